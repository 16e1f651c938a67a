"""elementwise_max / _min / _pow (+ _grad), elementwise_mod / _floordiv (no gradient):
Out = X (op) Y with Paddle's `axis` broadcasting (ops/broadcast.py), Out with X's LoD.

    max: dX = dOut * (X > Y),        dY = sum(dOut * (X <= Y))
    min: dX = dOut * (X < Y),        dY = sum(dOut * (X >= Y))
    pow: dX = dOut * Y * X^(Y - 1),  dY = sum(dOut * ln(X) * X^Y)
    mod: X - floor(X / Y) * Y (the sign of Y, Python's rule, as Paddle's kernel)
    floordiv: floor(X / Y)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.broadcast import align_y, infer_binary, reduce_to_shape
from paddle_ir.ops.elementwise.elementwise import check_integer_divisor, infer_binary_grad
from paddle_ir.ops.registry import FLOATS, NUMERIC, Attr, In, Out, register_op

_AXIS = Attr("axis", "int", -1, "where Y's dims start in X's; -1 aligns at the end")


def _pow(x, y):
    if x.dtype.kind in "iu":
        if y.dtype.kind == "i" and (y < 0).any():  # numpy: "Integers to negative integer
            # powers are not allowed"
            raise KernelError(f"elementwise_pow: Y holds a negative exponent, which an "
                              f"integer X ({x.dtype}) cannot take", hint="cast X to float")
        return np.power(x, y.astype(x.dtype))
    return np.power(x, y)


_FORWARD = {
    "elementwise_max": ("max(X, Y)", np.maximum, NUMERIC),
    "elementwise_min": ("min(X, Y)", np.minimum, NUMERIC),
    "elementwise_pow": ("X ^ Y", _pow, NUMERIC),
    "elementwise_mod": ("X mod Y, with the sign of Y", np.mod, NUMERIC),
    "elementwise_floordiv": ("floor(X / Y)", np.floor_divide, NUMERIC),
}


def _local_grads(op_type, x, y, dout):
    """(dX, dY) before summing over broadcast dims; y is already aligned with x."""
    if op_type == "elementwise_max":
        return dout * (x > y), dout * (x <= y)
    if op_type == "elementwise_min":
        return dout * (x < y), dout * (x >= y)
    powed = np.power(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        dy = np.where(x > 0, dout * np.log(np.where(x > 0, x, 1)) * powed, 0)
    return dout * y * np.power(x, y - 1), dy


def _forward_kernel(fn, name):
    divides = fn in (np.mod, np.floor_divide)
    op_type = name.removesuffix("_dense")

    def kernel(attrs, x, y):
        y = align_y(x, y, attrs["axis"])
        if divides:
            check_integer_divisor(op_type, x, y)
        return np.asarray(fn(x, y)).astype(x.dtype, copy=False)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _grad_kernel(op_type):
    def kernel(attrs, x, y, dout):
        y_al = align_y(x, y, attrs["axis"])
        dx, dy = _local_grads(op_type, x, y_al, dout)
        dx = reduce_to_shape(np.broadcast_to(dx, dout.shape), x.shape).astype(x.dtype)
        dy = reduce_to_shape(np.broadcast_to(dy, dout.shape), y_al.shape)
        return dx, dy.reshape(y.shape).astype(y.dtype)

    kernel.__name__ = kernel.__qualname__ = f"{op_type}_grad_dense"
    return kernel


def _grad_maker(op_type):
    def maker(g):
        return [g.grad_op(op_type + "_grad",
                          inputs={"X": g.input("X"), "Y": g.input("Y"),
                                  "Out@GRAD": g.output_grad("Out")},
                          outputs={"X@GRAD": g.input_grad("X"), "Y@GRAD": g.input_grad("Y")},
                          attrs={"axis": g.attr("axis")})]

    return maker


for _op_type, (_formula, _fn, _dtypes) in _FORWARD.items():
    _fwd = register_op(
        _op_type,
        inputs=[In("X", "the left operand"), In("Y", "the right operand, aligned at axis")],
        outputs=[Out("Out", "the result, with X's LoD")],
        attrs=[_AXIS],
        key_inputs=["X"],
        fallback=True,
        doc=f"Out = {_formula}, broadcasting Y into X from `axis`.",
    )
    _fwd.infer_shape(infer_binary)
    _fwd.kernel(dtypes=_dtypes)(_forward_kernel(_fn, f"{_op_type}_dense"))
    if _op_type in ("elementwise_mod", "elementwise_floordiv"):
        continue  # integer-valued steps: no gradient, as in Paddle
    _fwd.grad_maker(_grad_maker(_op_type))
    _bwd = register_op(
        _op_type + "_grad",
        inputs=[In("X"), In("Y"), In("Out@GRAD")],
        outputs=[Out("X@GRAD", dispensable=True), Out("Y@GRAD", dispensable=True)],
        attrs=[_AXIS],
        key_inputs=["Out@GRAD"],
        doc=f"Gradients of {_op_type} w.r.t. X and Y, summed over broadcast dims.",
    )
    _bwd.infer_shape(infer_binary_grad)
    _bwd.kernel(dtypes=FLOATS)(_grad_kernel(_op_type))
