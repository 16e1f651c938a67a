"""Reductions (+ _grad): mean, reduce_sum, reduce_mean, reduce_max, reduce_min,
reduce_prod, and reduce_all / reduce_any (bool, no gradient).

    mean:        Out = sum(X) / numel(X), shape [1] (Fluid 1.x's convention, DESIGN.md 7)
    reduce_sum:  Out = sum of X over `dim`
    reduce_mean: Out = mean of X over `dim`
    reduce_max / _min / _prod / _all / _any: the max ... any of X over `dim`

reduce_* follow Paddle: `dim` lists axes (negative ones count from the end),
`keep_dim` keeps them as size 1, and `reduce_all` (or a `dim` naming every
axis) reduces everything; with keep_dim=False that gives Out of shape [1], as
in Fluid 1.x (a fetched loss indexes as `loss[0]`). Gradients
broadcast dOut back over the reduced axes (divided by the count for means);
max/min send dOut to every element equal to the extreme (Paddle's rule: ties
all receive it); prod gives dX = dOut * Out / X, computed as the product of
the other elements so that zeros in X are exact.
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import BOOL, FLOATS, NUMERIC, SMALL_INTS, Attr, In, Out, register_op

# --- mean ------------------------------------------------------------------------------------

mean = register_op(
    "mean",
    inputs=[In("X")],
    outputs=[Out("Out", "shape [1]")],
    fallback=True,
    doc="Out = sum(X) / numel(X), of shape [1] (Fluid 1.x).",
)


@mean.infer_shape
def _(ctx):
    ctx.set_output("Out", (1,), ctx.input_dtype("X"))


@mean.kernel(dtypes=FLOATS)
def mean_dense(attrs, x):
    if x.size and x.dtype.itemsize >= 4:
        # What x.mean() computes for float32/64 (the sum in x's dtype, then / numel),
        # without its Python wrapper, which costs more than the sum in a training step.
        total = np.add.reduce(x, axis=None)
        return np.full(1, total / x.size, dtype=x.dtype)
    return np.full(1, x.mean(), dtype=x.dtype)


@mean.grad_maker
def _(g):
    return [g.grad_op("mean_grad",
                      inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


mean_grad = register_op(
    "mean_grad",
    inputs=[In("X", "for its shape", no_need_buffer=True),
            In("Out@GRAD", "[1] (a 0-D tensor is accepted too)")],
    outputs=[Out("X@GRAD", dispensable=True)],
    key_inputs=["Out@GRAD"],
    fallback=True,
    doc="dX = dOut / numel(X), broadcast to X's shape.",
)


@mean_grad.infer_shape
def _(ctx):
    dout = ctx.input_shape("Out@GRAD")
    ctx.enforce(all(d in (1, -1) for d in dout),
                lambda: f"Out@GRAD must hold one element, got shape {shape_str(dout)}")
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")


@mean_grad.kernel(dtypes=FLOATS)
def mean_grad_dense(attrs, x, dout):
    value = dout.reshape(-1)[0] / max(x.size, 1)  # a scalar of dout's dtype
    grad = np.empty(x.shape, dtype=x.dtype)
    grad.fill(value)  # np.full's copyto is slower than fill
    return grad


# --- reduce_sum, reduce_mean -----------------------------------------------------------------

_REDUCE_ATTRS = [
    Attr("dim", "ints", [0], "the axes to reduce; negative ones count from the end"),
    Attr("keep_dim", "bool", False, "keep reduced axes as size 1"),
    Attr("reduce_all", "bool", False, "reduce over every axis, ignoring dim"),
]


def _axes(ctx) -> tuple[int, ...]:
    """The reduced axes, normalized and sorted; checked against X's rank."""
    shape = ctx.input_shape("X")
    rank = len(shape)
    if ctx.attr("reduce_all") or rank == 0:
        return tuple(range(rank))
    dims = list(ctx.attr("dim"))
    for d in dims:
        ctx.enforce(-rank <= d < rank, lambda:
                    f"dim {d} is out of range for X.shape={shape_str(shape)}: each dim must be "
                    f"in [-{rank}, {rank})")
    axes = sorted({d % rank for d in dims})
    ctx.enforce(len(axes) == len(dims), lambda:
                f"dim must not name an axis twice, got {dims} for X.shape={shape_str(shape)}")
    return tuple(axes)


def _reduced_shape(shape, axes, keep_dim: bool) -> list[int]:
    if keep_dim:
        return [1 if i in axes else d for i, d in enumerate(shape)]
    # Reducing every axis leaves [1], not [] (Fluid 1.x).
    return [d for i, d in enumerate(shape) if i not in axes] or [1]


def _kernel_axes(attrs, ndim: int) -> tuple[int, ...]:
    if attrs["reduce_all"]:
        return tuple(range(ndim))
    return tuple(sorted({d % ndim for d in attrs["dim"]})) if ndim else ()


def _infer_reduce(ctx, out_dtype=None):
    axes = _axes(ctx)
    shape = ctx.input_shape("X")
    dtype = ctx.input_dtype("X") if out_dtype is None else out_dtype(ctx.input_dtype("X"))
    ctx.set_output("Out", _reduced_shape(shape, axes, ctx.attr("keep_dim")), dtype)
    # Reducing over the batch axis (or nothing at all) leaves no rows for a LoD to describe.
    if 0 not in axes and shape:
        ctx.share_lod("X", "Out")


def _infer_reduce_grad(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    """A sum of bools counts them in int64 (Paddle); other sums keep X's dtype (and wrap,
    as Paddle's narrow integer kernels do)."""
    return np.dtype(np.int64) if dtype == np.bool_ else np.dtype(dtype)


def _bool_mean(x, axis, keepdims, dtype):
    """Paddle's mean of bools: the float mean cast back to bool (true where any is)."""
    return np.mean(x, axis=axis, keepdims=keepdims, dtype=np.float64).astype(np.bool_)


def _reduce_kernel(numpy_fn, name, out_dtype=np.dtype):
    def kernel(attrs, x):
        axes = _kernel_axes(attrs, x.ndim)
        fn = _bool_mean if numpy_fn is np.mean and x.dtype == np.bool_ else numpy_fn
        out = np.asarray(fn(x, axis=axes, keepdims=attrs["keep_dim"],
                            dtype=out_dtype(x.dtype)))
        return out.reshape(1) if out.ndim == 0 else out  # a full reduction is [1]

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _reduce_grad_kernel(is_mean: bool, name):
    def kernel(attrs, x, dout):
        axes = _kernel_axes(attrs, x.ndim)
        kept = [1 if i in axes else d for i, d in enumerate(x.shape)]
        grad = dout.reshape(kept)
        if is_mean:
            grad = grad / max(math.prod(x.shape[i] for i in axes), 1)
        return np.broadcast_to(grad, x.shape).astype(x.dtype)  # astype: writable, owned

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


for _op_type, _fn, _formula, _dtypes, _out_dtype in (
    # Paddle's CPU kernels: sum over every integer width and bool, mean over bool too
    ("reduce_sum", np.sum, "sum", NUMERIC + SMALL_INTS + BOOL, _sum_dtype),
    ("reduce_mean", np.mean, "mean", FLOATS + BOOL, np.dtype),
):
    _fwd = register_op(
        _op_type,
        inputs=[In("X")],
        outputs=[Out("Out", "X reduced over dim")],
        attrs=_REDUCE_ATTRS,
        fallback=True,
        doc=f"Out = {_formula} of X over `dim` (all axes with reduce_all); see "
            "ops/reduce_ops/reduce.py.",
    )
    _fwd.infer_shape(lambda ctx, out_dtype=_out_dtype: _infer_reduce(ctx, out_dtype))
    _fwd.kernel(dtypes=_dtypes)(_reduce_kernel(_fn, f"{_op_type}_dense", _out_dtype))

    def _maker(g, _grad_type=_op_type + "_grad"):
        return [g.grad_op(_grad_type,
                          inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                          outputs={"X@GRAD": g.input_grad("X")},
                          attrs={k: g.attr(k) for k in ("dim", "keep_dim", "reduce_all")})]

    _fwd.grad_maker(_maker)

    _bwd = register_op(
        _op_type + "_grad",
        inputs=[In("X", "for its shape", no_need_buffer=True), In("Out@GRAD")],
        outputs=[Out("X@GRAD", dispensable=True)],
        attrs=_REDUCE_ATTRS,
        key_inputs=["Out@GRAD"],
        fallback=True,
        doc=f"dX = dOut broadcast back over the reduced axes"
            f"{' / their element count' if _formula == 'mean' else ''}.",
    )
    _bwd.infer_shape(_infer_reduce_grad)
    _bwd.kernel(dtypes=FLOATS)(_reduce_grad_kernel(_formula == "mean", f"{_op_type}_grad_dense"))


# --- reduce_max, reduce_min, reduce_prod, reduce_all, reduce_any -----------------------------

_BOOL = (np.dtype(np.bool_),)


def _forward(numpy_fn, name):
    def kernel(attrs, x):
        axes = _kernel_axes(attrs, x.ndim)
        out = np.asarray(numpy_fn(x, axis=axes, keepdims=attrs["keep_dim"])).astype(
            x.dtype, copy=False)
        return out.reshape(1) if out.ndim == 0 else out  # a full reduction is [1] (Fluid)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _kept(attrs, x, arr):
    axes = _kernel_axes(attrs, x.ndim)
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
        attrs=_REDUCE_ATTRS,
        doc=f"Out = {_op_type[7:]} of X over `dim` (all axes with reduce_all); see "
            "ops/reduce_ops/reduce.py.",
    )
    _fwd.infer_shape(_infer_reduce)
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
        attrs=_REDUCE_ATTRS,
        key_inputs=["Out@GRAD"],
        doc="max/min: dOut where X equals the extreme; prod: dOut times the other elements.",
    )
    _bwd.infer_shape(_infer_reduce_grad)
    _bwd.kernel(dtypes=FLOATS)(_grad)
