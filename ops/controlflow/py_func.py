"""py_func: Out = f(X), f a Python callable the program names by a registry id.

Fluid's py_func runs user Python inside a program (numpy code with no op of its own).
`forward_callable_id` names a PyFuncRegistry entry: it is called with the X values as
LoDTensors and returns one value (a LoDTensor, an array or None) per Out. The gradient is
another py_func, whose callable (`backward_callable_id`, -1: none) receives X, Out and
the gradients of Out, less the variables named in `backward_skip_vars`, and returns one
gradient (or None) per X.

The ids live in this process's registry: a saved program holding py_func runs only where
the same functions were registered again, as in Fluid. The callables are the user's
code, run as given; their results are checked against the number of outputs.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.python_functions import PyFuncRegistry
from paddle_ir.ops.registry import CONTROL_DTYPES, Attr, In, Out, register_op

py_func = register_op(
    "py_func",
    inputs=[In("X", "the callable's inputs", duplicable=True, dispensable=True)],
    outputs=[Out("Out", "its outputs, declared by the program", duplicable=True,
                 dispensable=True)],
    attrs=[Attr("forward_callable_id", "int", -1, "the PyFuncRegistry id of the function"),
           Attr("backward_callable_id", "int", -1, "the id of its gradient function (-1: none)"),
           Attr("backward_skip_vars", "strings", [], "forward variables the gradient "
                                                     "function does not receive")],
    key_inputs=[],
    doc=__doc__,
)


@py_func.infer_shape
def _(ctx):
    ctx.enforce(ctx.attr("forward_callable_id") >= 0,
                lambda: f"forward_callable_id must name a registered function, got "
                f"{ctx.attr('forward_callable_id')}")
    # The outputs keep what the program declared for them: only the function knows.


@py_func.kernel(storage=[], dtypes=CONTROL_DTYPES, control=True)
def py_func_kernel(ctx, attrs, xs):
    func = PyFuncRegistry.registered_func(attrs["forward_callable_id"])
    names = ctx.output_names("Out")
    # the values with their LoD, from the scope (a control kernel's inputs are the arrays)
    values = [ctx.scope.find_var(name).value for name in ctx.input_names("X")]
    results = func(*[x if isinstance(x, LoDTensor) else LoDTensor(np.asarray(x))
                     for x in values])
    if len(results) != len(names):
        raise KernelError(f"py_func: the function returns {len(results)} values for "
                          f"{len(names)} outputs {names}")
    for name, value in zip(names, results, strict=True):
        if value is not None and name:
            ctx.scope.var(name).value = value


@py_func.grad_maker
def _(g):
    backward = g.attr("backward_callable_id")
    if backward < 0 or not g.needs_any_input_grad():
        return []
    skip = set(g.attr("backward_skip_vars"))
    xs, outs = g.input("X"), g.output("Out")
    inputs = [n for n in xs + outs if n not in skip] + g.output_grad("Out")
    grads = g.input_grad("X") or [""] * len(xs)
    return [g.grad_op("py_func", inputs={"X": inputs}, outputs={"Out": grads},
                      attrs={"forward_callable_id": backward, "backward_callable_id": -1,
                             "backward_skip_vars": []})]


