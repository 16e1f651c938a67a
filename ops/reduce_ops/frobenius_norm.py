"""frobenius_norm (+ _grad): Out = sqrt(sum(X^2)) over dim (all dims with reduce_all);
dX = dOut * X / Out.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

frobenius_norm = register_op(
    "frobenius_norm",
    inputs=[In("X")],
    outputs=[Out("Out", "sqrt(sum(X^2)) over dim")],
    attrs=[Attr("dim", "ints", [], "the dims reduced"),
           Attr("keep_dim", "bool", False, "keep reduced dims as 1"),
           Attr("reduce_all", "bool", False, "reduce every dim")],
    doc=__doc__,
)


def _fro_axes(get, rank: int) -> tuple[int, ...]:
    dims = list(get("dim"))
    if get("reduce_all") or not dims:
        return tuple(range(rank))
    return tuple(sorted(d % rank for d in dims))


@frobenius_norm.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    for d in ctx.attr("dim"):
        ctx.enforce(-len(x) <= d < len(x), lambda: f"dim holds {d}, outside X {shape_str(x)}")
    axes = _fro_axes(ctx.attr, len(x))
    out = ([1 if k in axes else d for k, d in enumerate(x)] if ctx.attr("keep_dim")
           else [d for k, d in enumerate(x) if k not in axes])
    ctx.set_output("Out", out, ctx.input_dtype("X"))


@frobenius_norm.kernel(dtypes=FLOATS)
def frobenius_norm_kernel(attrs, x):
    axes = _fro_axes(attrs.__getitem__, x.ndim)
    return np.asarray(np.sqrt(np.sum(x * x, axis=axes, keepdims=attrs["keep_dim"])),
                      dtype=x.dtype)


@frobenius_norm.grad_maker
def _(g):
    return [g.grad_op("frobenius_norm_grad",
                      inputs={"X": g.input("X"), "Out": g.output("Out"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a: g.attr(a) for a in ("dim", "keep_dim", "reduce_all")})]


frobenius_norm_grad = register_op(
    "frobenius_norm_grad",
    inputs=[In("X"), In("Out"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("dim", "ints", []), Attr("keep_dim", "bool", False),
           Attr("reduce_all", "bool", False)],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut * X / Out.",
)


@frobenius_norm_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@frobenius_norm_grad.kernel(dtypes=FLOATS)
def frobenius_norm_grad_kernel(attrs, x, out, dout):
    axes = _fro_axes(attrs.__getitem__, x.ndim)
    kept = [1 if k in axes else d for k, d in enumerate(x.shape)]
    return (dout.reshape(kept) * x / out.reshape(kept)).astype(x.dtype)
