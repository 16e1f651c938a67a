"""elementwise_add / _sub / _mul / _div (+ _grad): Out = X (op) Y with Paddle's `axis`.

Y's dims line up with X's starting at `axis` (-1: at the end, numpy's rule).
Out has X's LoD. Gradients sum over the broadcast dims:

    add: dX = dOut,          dY = sum(dOut)
    sub: dX = dOut,          dY = -sum(dOut)
    mul: dX = dOut * Y,      dY = sum(dOut * X)
    div: dX = dOut / Y,      dY = -sum(dOut * Out / Y)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.broadcast import align_y, infer_binary, reduce_to_shape
from paddle_ir.ops.elementwise.elementwise_sparse import sparse_kernels, storage_rule
from paddle_ir.ops.grad import grad_name
from paddle_ir.ops.registry import FLOATS, NUMERIC, Attr, In, Out, register_op

_SHAPE_ONLY_OPERANDS = ("elementwise_add", "elementwise_sub")  # for their gradients
_FORMULAS = {
    "elementwise_add": ("X + Y", np.add),
    "elementwise_sub": ("X - Y", np.subtract),
    "elementwise_mul": ("X * Y", np.multiply),
    "elementwise_div": ("X / Y", np.divide),
}


def infer_binary_grad(ctx):
    for slot in ("X", "Y"):
        ctx.set_output(grad_name(slot), ctx.input_shape(slot), ctx.input_dtype(slot))
        ctx.share_lod(slot, grad_name(slot))


def check_integer_divisor(op_type: str, x, y) -> None:
    """Integer division by zero: numpy answers 0 with a warning; Paddle refuses it."""
    if x.dtype.kind in "iu" and not np.all(y):
        raise KernelError(f"{op_type}: Y holds 0, and integer division by zero is undefined "
                          f"(X and Y are {x.dtype})",
                          hint="mask the zero divisors, or cast to float first")


def _truncating_divide(x, y):
    """Integer division rounding toward zero, as C++ (and Paddle's int kernels) do."""
    q = np.floor_divide(x, y)
    q += ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)
    return q


def _forward_kernel(ufunc):
    def kernel(attrs, x, y):
        y = align_y(x, y, attrs["axis"])
        if ufunc is np.divide and x.dtype.kind in "iu":
            check_integer_divisor("elementwise_div", x, y)
            return _truncating_divide(x, y)
        return ufunc(x, y)

    return kernel


def _grad_kernel(op_type):
    def kernel(attrs, x, y, out, dout):
        axis = attrs["axis"]
        y_al = align_y(x, y, axis)
        if op_type == "elementwise_add":
            dx, dy = dout, dout
        elif op_type == "elementwise_sub":
            dx, dy = dout, -dout
        elif op_type == "elementwise_mul":
            dx, dy = dout * y_al, dout * x
        else:
            dx, dy = dout / y_al, -dout * out / y_al
        dx = reduce_to_shape(np.asarray(dx), x.shape).astype(x.dtype, copy=False)
        dy = reduce_to_shape(np.asarray(dy), y_al.shape).reshape(y.shape).astype(y.dtype,
                                                                                 copy=False)
        return dx, dy

    return kernel


def _make_grad_maker(op_type):
    def maker(g):
        return [g.grad_op(
            op_type + "_grad",
            inputs={"X": g.input("X"), "Y": g.input("Y"), "Out": g.output("Out"),
                    "Out@GRAD": g.output_grad("Out")},
            outputs={"X@GRAD": g.input_grad("X"), "Y@GRAD": g.input_grad("Y")},
            attrs={"axis": g.attr("axis")})]

    return maker


for _op_type, (_formula, _ufunc) in _FORMULAS.items():
    _fwd = register_op(
        _op_type,
        inputs=[In("X", "the left operand"), In("Y", "the right operand, aligned at axis")],
        outputs=[Out("Out", "the result, with X's LoD")],
        attrs=[Attr("axis", "int", -1, "where Y's dims start in X's; -1 aligns at the end")],
        key_inputs=["X", "Y"],
        fallback=True,
        doc=f"Out = {_formula}, broadcasting Y into X from `axis` (Paddle's rule). Storage "
            f"rule and sparse kernels: ops/elementwise/elementwise_sparse.py.",
    )
    _fwd.infer_var_type(storage_rule(_op_type))
    _fwd.infer_shape(infer_binary)
    _kernel = _forward_kernel(_ufunc)
    _kernel.__qualname__ = _kernel.__name__ = f"{_op_type}_dense"
    _fwd.kernel(dtypes=NUMERIC)(_kernel)
    for _storage, _sparse in sparse_kernels(_op_type).items():
        _fwd.kernel(storage=_storage, dtypes=NUMERIC)(_sparse)
    _fwd.grad_maker(_make_grad_maker(_op_type))

    _bwd = register_op(
        _op_type + "_grad",
        # add and sub read only X's and Y's shapes; only div reads Out's data.
        inputs=[In("X", no_need_buffer=_op_type in _SHAPE_ONLY_OPERANDS),
                In("Y", no_need_buffer=_op_type in _SHAPE_ONLY_OPERANDS),
                In("Out", no_need_buffer=_op_type != "elementwise_div",
                   # Paddle writes add/sub/mul grads without Out (they never read it).
                   dispensable=_op_type != "elementwise_div"), In("Out@GRAD")],
        outputs=[Out("X@GRAD", dispensable=True), Out("Y@GRAD", dispensable=True)],
        attrs=[Attr("axis", "int", -1)],
        key_inputs=["X", "Y", "Out@GRAD"],
        dtype_from="Out@GRAD",
        fallback=True,
        doc=f"Gradients of {_op_type} w.r.t. X and Y, summed over broadcast dims.",
    )
    _bwd.infer_shape(infer_binary_grad)
    _kernel = _grad_kernel(_op_type)
    _kernel.__qualname__ = _kernel.__name__ = f"{_op_type}_grad_dense"
    _bwd.kernel(dtypes=FLOATS)(_kernel)
