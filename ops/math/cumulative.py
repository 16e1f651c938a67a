"""Running sums and products along an axis (+ _grad):

    cumsum   Out = running sum along `axis` (exclusive, reverse); gradient: the reverse
             running sum of dOut
    cumprod  Out[..., k, ...] = prod of X[..., :k+1, ...] along dim (exclusive: :k;
             reverse: from the end);  dX[k] = sum_{m >= k} dOut[m] * Out[m] / X[k]
             (computed without dividing, so zeros in X are fine)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import same_as_input
from paddle_ir.ops.registry import FLOATS, NUMERIC, SMALL_INTS, Attr, In, Out, register_op
from paddle_ir.ops.simple_op import register_simple

# --- cumsum -----------------------------------------------------------------------------

def _cumsum(attrs, x):
    if attrs["flatten"]:
        x = x.reshape(-1)
    axis = attrs["axis"] % max(x.ndim, 1)
    if attrs["reverse"]:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if attrs["exclusive"]:
        out = out - x
    return np.flip(out, axis) if attrs["reverse"] else out


def _cumsum_grad(attrs, x, dout):
    rev = dict(attrs, reverse=not attrs["reverse"], flatten=False)
    g = _cumsum(rev, dout if not attrs["flatten"] else dout.reshape(-1))
    return g.reshape(x.shape)


def _infer_cumsum(ctx):
    shape = ctx.input_shape("X")
    if ctx.attr("flatten"):
        n = int(np.prod(shape)) if all(d >= 0 for d in shape) else -1
        ctx.set_output("Out", (n,), ctx.input_dtype("X"))
        return
    rank, axis = len(shape), ctx.attr("axis")
    ctx.enforce(-rank <= axis < rank, lambda: f"axis {axis} is out of range for rank {rank}")
    same_as_input(ctx)


register_simple(
    "cumsum", [In("X")], [Out("Out", "X's shape")],
    [Attr("axis", "int", -1, "the axis to sum along"),
     Attr("flatten", "bool", False, "sum over X flattened to 1-D"),
     Attr("exclusive", "bool", False, "leave out the element itself"),
     Attr("reverse", "bool", False, "sum from the end")],
    _infer_cumsum, _cumsum, backward=_cumsum_grad, wrt=["X"], dtypes=NUMERIC + SMALL_INTS,
    doc=__doc__)


# --- cumprod ----------------------------------------------------------------------------

cumprod = register_op(
    "cumprod",
    inputs=[In("X")],
    outputs=[Out("Out", "the running product along dim")],
    attrs=[Attr("dim", "int", -1, "the dim scanned"),
           Attr("exclusive", "bool", False, "leave the current element out (first gets 1)"),
           Attr("reverse", "bool", False, "scan from the end")],
    doc=__doc__,
)


@cumprod.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    rank = max(len(x), 1)
    ctx.enforce(-rank <= ctx.attr("dim") < rank,
                lambda: f"dim must be in [{-rank}, {rank}), got {ctx.attr('dim')}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))


def _scan(x: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> np.ndarray:
    if reverse:
        x = np.flip(x, axis)
    out = np.cumprod(x, axis=axis)
    if exclusive:
        ones = np.ones_like(np.take(out, [0], axis=axis))
        out = np.concatenate([ones, np.delete(out, -1, axis=axis)], axis=axis)
    return np.ascontiguousarray(np.flip(out, axis) if reverse else out)


@cumprod.kernel(dtypes=NUMERIC)
def cumprod_kernel(attrs, x):
    if x.ndim == 0:
        return x.copy()
    return _scan(x, attrs["dim"] % x.ndim, attrs["exclusive"], attrs["reverse"])


@cumprod.grad_maker
def _(g):
    return [g.grad_op("cumprod_grad", inputs={"X": g.input("X"),
                                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a: g.attr(a) for a in ("dim", "exclusive", "reverse")})]


cumprod_grad = register_op(
    "cumprod_grad", inputs=[In("X"), In("Out@GRAD")], outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("dim", "int", -1), Attr("exclusive", "bool", False),
           Attr("reverse", "bool", False)],
    key_inputs=["Out@GRAD"], doc="dX[k] = sum over m of dOut[m] * dOut[m]/dX[k].")


@cumprod_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@cumprod_grad.kernel(dtypes=FLOATS)
def cumprod_grad_kernel(attrs, x, dout):
    if x.ndim == 0:
        return dout.copy()
    axis = attrs["dim"] % x.ndim
    if attrs["reverse"]:
        x, dout = np.flip(x, axis), np.flip(dout, axis)
    # With before[k] = prod(x[:k]), dOut[m]/dx[k] = before[k] * prod(x[k+1 .. m]) for
    # k <= m (inclusive; exclusive: k < m and the product stops at m-1). So
    # dX[k] = before[k] * S[k] with the reverse recurrences
    #   inclusive  S[k] = dOut[k] + x[k+1] * S[k+1]
    #   exclusive  S[k] = dOut[k+1] + x[k+1] * S[k+1]   (S[last] = 0)
    # which need no division (zeros in X are fine). One vectorised step per position.
    n = x.shape[axis]
    xm = np.moveaxis(x, axis, 0)
    dm = np.moveaxis(dout, axis, 0)
    before = np.concatenate([np.ones_like(xm[:1]), np.cumprod(xm, axis=0)[:-1]], axis=0)
    acc = np.zeros_like(xm[0])
    dx = np.empty_like(xm)
    for k in range(n - 1, -1, -1):
        if attrs["exclusive"]:
            acc = dm[k + 1] + xm[k + 1] * acc if k + 1 < n else acc
        else:
            acc = dm[k] + (xm[k + 1] * acc if k + 1 < n else 0)
        dx[k] = before[k] * acc
    dx = np.moveaxis(dx, 0, axis)
    return np.ascontiguousarray(np.flip(dx, axis) if attrs["reverse"] else dx)
