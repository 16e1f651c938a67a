"""reduce_max / reduce_min / reduce_prod (+ _grad), reduce_all / reduce_any (bool, no
gradient): the rest of Paddle's reductions, with reduce_sum's `dim`, `keep_dim` and
`reduce_all` rules (ops/reduce_ops/reduce.py).

Gradients: max/min send dOut to every element equal to the extreme (Paddle's
rule: ties all receive it); prod gives dX = dOut * Out / X, computed as the
product of the other elements so that zeros in X are exact.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.reduce_ops.reduce import (
    REDUCE_ATTRS,
    infer_reduce,
    infer_reduce_grad,
    kernel_axes,
)
from paddle_ir.ops.registry import FLOATS, NUMERIC, In, Out, register_op

_BOOL = (np.dtype(np.bool_),)


def _forward(numpy_fn, name):
    def kernel(attrs, x):
        axes = kernel_axes(attrs, x.ndim)
        out = np.asarray(numpy_fn(x, axis=axes, keepdims=attrs["keep_dim"])).astype(
            x.dtype, copy=False)
        return out.reshape(1) if out.ndim == 0 else out  # a full reduction is [1] (Fluid)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _kept(attrs, x, arr):
    axes = kernel_axes(attrs, x.ndim)
    return arr.reshape([1 if i in axes else d for i, d in enumerate(x.shape)]), axes


def _extreme_grad(attrs, x, out, dout):
    out_k, _ = _kept(attrs, x, out)
    dout_k, _ = _kept(attrs, x, dout)
    return np.where(x == out_k, dout_k, 0).astype(x.dtype)


def _prod_grad(attrs, x, out, dout):
    dout_k, axes = _kept(attrs, x, dout)
    if not axes:
        return np.broadcast_to(dout_k, x.shape).astype(x.dtype)
    front = tuple(range(len(axes)))
    moved = np.moveaxis(x, axes, front)
    flat = moved.reshape((-1,) + moved.shape[len(axes):])
    # The product of all the other elements: exclusive prefix times exclusive suffix
    # products, exact where X holds zeros (Out / X would divide by them).
    ones = np.ones((1,) + flat.shape[1:], dtype=x.dtype)
    prefix = np.concatenate([ones, np.cumprod(flat, axis=0)[:-1]], axis=0)
    suffix = np.concatenate([np.cumprod(flat[::-1], axis=0)[::-1][1:], ones], axis=0)
    others = np.moveaxis((prefix * suffix).reshape(moved.shape), front, axes)
    return (others * dout_k).astype(x.dtype)


for _op_type, _fn, _dtypes, _grad in (
    ("reduce_max", np.max, NUMERIC, _extreme_grad),
    ("reduce_min", np.min, NUMERIC, _extreme_grad),
    ("reduce_prod", np.prod, NUMERIC, _prod_grad),
    ("reduce_all", np.all, _BOOL, None),
    ("reduce_any", np.any, _BOOL, None),
):
    _fwd = register_op(
        _op_type,
        inputs=[In("X")],
        outputs=[Out("Out", "X reduced over dim")],
        attrs=REDUCE_ATTRS,
        doc=f"Out = {_op_type[7:]} of X over `dim` (all axes with reduce_all); see "
            f"ops/reduce_more.py.",
    )
    _fwd.infer_shape(infer_reduce)
    _fwd.kernel(dtypes=_dtypes)(_forward(_fn, f"{_op_type}_dense"))
    if _grad is None:
        continue

    def _maker(g, _grad_type=_op_type + "_grad"):
        return [g.grad_op(_grad_type,
                          inputs={"X": g.input("X"), "Out": g.output("Out"),
                                  "Out@GRAD": g.output_grad("Out")},
                          outputs={"X@GRAD": g.input_grad("X")},
                          attrs={k: g.attr(k) for k in ("dim", "keep_dim", "reduce_all")})]

    _fwd.grad_maker(_maker)
    _bwd = register_op(
        _op_type + "_grad",
        inputs=[In("X"), In("Out"), In("Out@GRAD")],
        outputs=[Out("X@GRAD", dispensable=True)],
        attrs=REDUCE_ATTRS,
        key_inputs=["Out@GRAD"],
        doc="max/min: dOut where X equals the extreme; prod: dOut times the other elements.",
    )
    _bwd.infer_shape(infer_reduce_grad)
    _bwd.kernel(dtypes=FLOATS)(_grad)
