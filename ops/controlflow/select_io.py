"""select_input and select_output: how Fluid's `static.nn.cond` carries values in and out
of its two conditional_blocks (what Paddle 2.x saves for a cond that returns values).

    select_input:  Out = X[Mask]            X a list of tensors (one per branch), Mask an
                                            int32 [1] (the branch that ran, 0 or 1)
    select_output: Out[Mask] = X            the one input routed to the branch that runs

Mask outside [0, len) is an error naming it. Out carries the LoD of the tensor chosen.
As in Paddle, select_output writes Out[Mask] alone; the others stay unset (their branch
does not run). Both are control kernels: which variable is read or written is chosen
at run time, by name.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.registry import In, Out, register_op


def _branch(op_type: str, mask, count: int) -> int:
    values = np.asarray(mask).reshape(-1)
    if values.size != 1 or values.dtype.kind not in "iub":
        raise KernelError(f"{op_type}: Mask must be one integer (the branch index), got "
                          f"{values.size} value(s) of {values.dtype}")
    branch = int(values[0])
    if not 0 <= branch < count:
        raise KernelError(f"{op_type}: Mask = {branch} picks no branch: X has {count} "
                          f"{'inputs' if op_type == 'select_input' else 'outputs'} "
                          f"(0..{count - 1})")
    return branch


select_input = register_op(
    "select_input", key_inputs=(),
    inputs=[In("X", "one tensor per branch (those of branches that did not run hold none)",
               duplicable=True, may_be_unset=True),
            In("Mask", "int32 [1]: the index of the branch that ran")],
    outputs=[Out("Out", "X[Mask]")],
    doc=__doc__,
)


@select_input.infer_shape
def _(ctx):
    if ctx.is_runtime:  # only the chosen branch's value exists
        names = ctx.input_names("X")
        mask = ctx.value(ctx.input_names("Mask")[0])
        chosen = _branch("select_input", mask, len(names))
        info = ctx.var_info(names[chosen])
        ctx.set_output("Out", info.shape, info.dtype)
        ctx.set_output_lod_level("Out", info.lod_level)
        return
    shapes = ctx.input_shapes("X")
    ctx.enforce(len(shapes) >= 1, "select_input needs at least one X")
    # The branches may give different shapes; a dim they disagree on is known only at run.
    first = shapes[0]
    same_rank = all(len(s) == len(first) for s in shapes)
    dims = ([a if all(s[k] == a for s in shapes) else -1 for k, a in enumerate(first)]
            if same_rank else [-1] * len(first))
    ctx.set_output("Out", dims, ctx.input_dtype("X"))
    ctx.set_output_lod_level("Out", max(ctx.input_lod_level("X", i)
                                        for i in range(len(shapes))))


# No element type of their own: with no key inputs the executor asks for float32.
@select_input.kernel(storage=[], dtypes=[np.float32], control=True)
def select_input_kernel(ctx, attrs, xs, mask):
    names = ctx.input_names("X")
    chosen = names[_branch("select_input", mask, len(names))]
    value = ctx.value(chosen)
    if value is None:
        raise KernelError(f"select_input: X[{names.index(chosen)}] = {chosen!r} has no value "
                          f"(the branch that should have written it did not run)")
    ctx.scope.var(ctx.output_names("Out")[0]).value = value


select_output = register_op(
    "select_output", key_inputs=(),
    inputs=[In("X", "the value routed to the branch that runs"),
            In("Mask", "int32 [1]: the index of the branch that runs")],
    outputs=[Out("Out", "one tensor per branch; Out[Mask] = X", duplicable=True)],
    doc=__doc__,
)


@select_output.infer_shape
def _(ctx):
    for i in range(len(ctx.output_names("Out"))):
        ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"), i=i)
        ctx.share_lod("X", "Out", 0, i)


@select_output.kernel(storage=[], dtypes=[np.float32], control=True)
def select_output_kernel(ctx, attrs, x, mask):
    names = ctx.output_names("Out")
    ctx.scope.var(names[_branch("select_output", mask, len(names))]).value = ctx.value(
        ctx.input_names("X")[0])
