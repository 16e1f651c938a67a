"""Paddle's shape-only ops with an XShape output (+ their _grad ops): reshape2,
flatten2, flatten_contiguous_range, transpose2, squeeze2, unsqueeze2.

Each moves X's elements into a new shape (transpose2 also permutes them):

    reshape2                  Out.shape from `shape` (0 copies X's dim, one -1 is inferred;
                              see ops/tensor/reshape.py), or from the int tensor input `Shape`, or
                              from `ShapeTensor` (one int tensor [1] per dim), in that
                              order of precedence
    flatten2                  [prod(X.shape[:axis]), prod(X.shape[axis:])]
    flatten_contiguous_range  X's dims start_axis..stop_axis merged into one
    transpose2                Out = X with its dims permuted: Out.shape[i] = X.shape[axis[i]]
    squeeze2                  X without the listed size-1 dims (all size-1 dims if `axes` is
                              empty; a listed dim that is not 1 stays, as in Paddle 2.x)
    unsqueeze2                unit dims inserted one axis at a time, each axis counted in
                              the shape grown so far (negative: from its end, +1)

reshape2, squeeze2 and unsqueeze2 pass X's LoD to Out when Out's first dim is
X's, as Paddle's InferShape does (ops/tensor/reshape.py, share_lod_if_rows_kept):
the Fluid idiom embedding -> reshape2 [-1, 1, D] -> squeeze2 [1] -> a sequence op
keeps its sequences. reshape2 with a `Shape` tensor shares it whenever the new
shape is only known at run time (Paddle's rule); with `ShapeTensor` never. With a
`Shape` tensor and a `shape` attribute, Out is declared at build time from the
attribute, as Paddle's InferShape does; the tensor decides at run time.

XShape is Paddle's way to hand the grad op X's shape without X's data: a
tensor of shape [0] + X.shape and X's dtype, holding nothing. The grad ops
read only XShape and dOut: dX = dOut reshaped to XShape.shape[1:]
(transpose2_grad applies the inverse permutation).
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.tensor.reshape import reshaped, share_lod_if_rows_kept

_XSHAPE_DOC = "[0] + X.shape, X's dtype, no data: X's shape for the grad op"


def _prod(dims) -> int:
    return -1 if any(d < 0 for d in dims) else math.prod(dims)


def _axis_in(ctx, axis: int, rank: int, what: str) -> int:
    ctx.enforce(-rank <= axis < rank,
                lambda: f"{what} {axis} is outside [-{rank}, {rank}) for X of rank {rank}")
    return axis % rank


def _xshape(x: np.ndarray) -> np.ndarray:
    return np.empty((0,) + x.shape, dtype=x.dtype)


# --- the shape rules, shared by build time and run time -------------------------------------
def flatten_range_shape(shape, start: int, stop: int) -> list[int]:
    if not shape:
        return [1]
    return list(shape[:start]) + [_prod(shape[start:stop + 1])] + list(shape[stop + 1:])


def squeezed_shape(shape, axes, runtime: bool) -> list[int]:
    """Drop the listed dims of size 1 (at build time also the unknown ones), or all 1s."""
    rank = len(shape)
    if not axes:
        drop = {i for i, d in enumerate(shape) if d == 1}
    else:
        ok = (1,) if runtime else (1, -1)
        drop = {a % rank for a in axes if shape[a % rank] in ok}
    return [d for i, d in enumerate(shape) if i not in drop]


def unsqueezed_shape(shape, axes) -> list[int] | str:
    out = list(shape)
    for a in axes:
        rank = len(out)
        if not -(rank + 1) <= a <= rank:
            return (f"axis {a} cannot be inserted into a shape of rank {rank} "
                    f"({shape_str(out)}): it must be in [-{rank + 1}, {rank}]")
        out.insert(a + rank + 1 if a < 0 else a, 1)
    return out


def _int_list(values) -> list[int]:
    return [int(v) for v in np.asarray(values).reshape(-1)]


# --- the ops ------------------------------------------------------------------------------------
def _register(op_type: str, extra_inputs: list, attrs: list, doc: str, infer, kernel,
              grad_attrs: tuple[str, ...] = (), grad_kernel=None):
    opdef = register_op(
        op_type,
        inputs=[In("X")] + extra_inputs,
        outputs=[Out("Out"), Out("XShape", _XSHAPE_DOC, dispensable=True)],
        attrs=attrs,
        doc=doc,
    )

    @opdef.infer_shape
    def _(ctx):
        # X read before Out is set: an in-place op (Fluid's reshape(inplace=True): Out is
        # X) has X's shape overwritten then
        x_shape, x_dtype = tuple(ctx.input_shape("X")), ctx.input_dtype("X")
        infer(ctx)
        ctx.set_output("XShape", (0,) + x_shape, x_dtype)

    opdef.kernel(dtypes=ALL_DTYPES)(kernel)

    @opdef.grad_maker
    def _(g):
        return [g.grad_op(op_type + "_grad",
                          inputs={"XShape": g.output("XShape"), "Out@GRAD": g.output_grad("Out")},
                          outputs={"X@GRAD": g.input_grad("X")},
                          attrs={a: g.attr(a) for a in grad_attrs})]

    grad = register_op(
        op_type + "_grad",
        inputs=[In("XShape", no_need_buffer=True), In("Out@GRAD")],
        outputs=[Out("X@GRAD", dispensable=True)],
        attrs=[a for a in attrs if a.name in grad_attrs],
        key_inputs=["Out@GRAD"],
        doc="dX = dOut laid out in X's shape (XShape.shape[1:]).",
    )

    @grad.infer_shape
    def _(ctx):
        ctx.enforce(ctx.has_input("XShape"), "input XShape (the forward op's) is required")
        ctx.set_output("X@GRAD", ctx.input_shape("XShape")[1:], ctx.input_dtype("Out@GRAD"))

    grad.kernel(dtypes=FLOATS)(grad_kernel or _reshape_back)
    return opdef


def _reshape_back(attrs, xshape, dout):
    return dout.reshape(xshape.shape[1:])


# reshape2
def _reshape2_infer(ctx):
    x = ctx.input_shape("X")
    if ctx.has_input("ShapeTensor"):
        out = [-1] * ctx.input_count("ShapeTensor")
    elif ctx.has_input("Shape"):
        n = ctx.input_shape("Shape")[0] if ctx.input_shape("Shape") else 1
        out = [-1] * (n if n >= 0 else len(ctx.attr("shape")))
        read = getattr(ctx, "value", None) if ctx.is_runtime else None  # the running frame's
        shape_value = read(ctx.input_names("Shape")[0]) if read is not None else None
        if shape_value is not None:
            # At run time Paddle shares whatever the shape; a LoD on other rows than X's
            # would be invalid, so the rows decide here as for the attribute (the
            # executor's step does the same on later runs).
            actual = reshaped(x, _int_list(shape_value))
            if not isinstance(actual, str):
                share_lod_if_rows_kept(ctx, x, actual)
        elif not ctx.attr("shape"):
            ctx.share_lod("X", "Out")
        else:  # Paddle decides at build time from the attribute's shape
            declared = reshaped(x, ctx.attr("shape"))
            if not isinstance(declared, str):
                share_lod_if_rows_kept(ctx, x, declared)
                if not ctx.is_runtime and len(declared) == len(out):
                    # and declares Out by it (Fluid's layers.reshape with actual_shape
                    # passes both); the Shape tensor decides when the program runs
                    out = list(declared)
    else:
        out = reshaped(x, ctx.attr("shape"))
        if isinstance(out, str):
            ctx.fail(out)
        share_lod_if_rows_kept(ctx, x, out)
    ctx.set_output("Out", out, ctx.input_dtype("X"))


def _reshape2(attrs, x, shape_t, shape_list):
    if shape_list:
        shape = [_int_list(t)[0] for t in shape_list]
    elif shape_t is not None:
        shape = _int_list(shape_t)
    else:
        shape = attrs["shape"]
    out = reshaped(x.shape, shape)
    if isinstance(out, str):
        raise KernelError(f"reshape2: {out}")
    return x.reshape(out), _xshape(x)


_register("reshape2",
          [In("Shape", "an int tensor: the new shape; overrides the attribute",
              dispensable=True),
           In("ShapeTensor", "int tensors [1], one per dim; override Shape and the attribute",
              duplicable=True, dispensable=True)],
          [Attr("shape", "ints", [], "the new shape: 0 copies X's dim, one -1 is inferred")],
          "Out = X in a new shape (see ops/tensor/shape_ops.py).", _reshape2_infer, _reshape2)


# flatten2
def infer_flatten(ctx) -> list[int]:
    """flatten's and flatten2's Out shape [prod(X.shape[:axis]), prod(X.shape[axis:])],
    set on Out; an axis outside [0, rank] fails."""
    x = ctx.input_shape("X")
    axis = ctx.attr("axis")
    ctx.enforce(0 <= axis <= len(x), lambda: f"axis must be in [0, {len(x)}] for X.shape="
                                     f"{shape_str(x)}, got {axis}")
    out = [_prod(x[:axis]), _prod(x[axis:])]
    ctx.set_output("Out", out, ctx.input_dtype("X"))
    return out


def flattened(x: np.ndarray, axis: int) -> np.ndarray:
    return x.reshape(math.prod(x.shape[:axis]), math.prod(x.shape[axis:]))


def _flatten2_infer(ctx):
    infer_flatten(ctx)


def _flatten2(attrs, x):
    return flattened(x, attrs["axis"]), _xshape(x)


_register("flatten2", [], [Attr("axis", "int", 1, "X's dims before axis become the rows")],
          "Out = X as a matrix [prod(X.shape[:axis]), prod(X.shape[axis:])].",
          _flatten2_infer, _flatten2)


# flatten_contiguous_range
def _range(ctx_or_attrs, rank: int, ctx=None) -> tuple[int, int]:
    start, stop = ctx_or_attrs["start_axis"], ctx_or_attrs["stop_axis"]
    if rank == 0:
        return 0, 0
    if ctx is not None:
        start = _axis_in(ctx, start, rank, "start_axis")
        stop = _axis_in(ctx, stop, rank, "stop_axis")
        ctx.enforce(start <= stop,
                    lambda: f"start_axis {start} must not come after stop_axis {stop}")
    return start % rank, stop % rank


def _flatten_range_infer(ctx):
    x = ctx.input_shape("X")
    start, stop = _range(ctx.attrs, len(x), ctx)
    ctx.set_output("Out", flatten_range_shape(x, start, stop), ctx.input_dtype("X"))
    if start > 0:
        ctx.share_lod("X", "Out")


def _flatten_range(attrs, x):
    start, stop = _range(attrs, x.ndim)
    return x.reshape(flatten_range_shape(x.shape, start, stop)), _xshape(x)


_register("flatten_contiguous_range", [],
          [Attr("start_axis", "int", 1, "the first dim merged"),
           Attr("stop_axis", "int", 1, "the last dim merged (inclusive)")],
          "Out = X with dims start_axis..stop_axis merged into one.",
          _flatten_range_infer, _flatten_range)


# transpose2
def _transpose2_infer(ctx):
    x, axis = ctx.input_shape("X"), list(ctx.attr("axis"))
    ctx.enforce(sorted(a % max(len(x), 1) for a in axis) == list(range(len(x)))
                and all(-len(x) <= a < len(x) for a in axis),
                lambda: f"axis {axis} must be a permutation of X's {len(x)} dims "
                f"(X.shape={shape_str(x)})")
    ctx.set_output("Out", [x[a] for a in axis], ctx.input_dtype("X"))


def _transpose2(attrs, x):
    return np.ascontiguousarray(np.transpose(x, attrs["axis"])), _xshape(x)


def _transpose2_grad(attrs, xshape, dout):
    inverse = np.argsort([a % dout.ndim for a in attrs["axis"]])
    return np.ascontiguousarray(np.transpose(dout, inverse))


_register("transpose2", [],
          [Attr("axis", "ints", [], "the permutation: Out's dim i is X's dim axis[i]"),
           Attr("data_format", "string", "AnyLayout", "Paddle's layout tag; no effect")],
          "Out = X with its dims permuted by axis.", _transpose2_infer, _transpose2,
          grad_attrs=("axis",), grad_kernel=_transpose2_grad)


# squeeze2
def _squeeze2_infer(ctx):
    x = ctx.input_shape("X")
    for a in ctx.attr("axes"):
        _axis_in(ctx, a, len(x), "axes holds")
    out = squeezed_shape(x, ctx.attr("axes"), ctx.is_runtime)
    ctx.set_output("Out", out, ctx.input_dtype("X"))
    share_lod_if_rows_kept(ctx, x, out)


def _squeeze2(attrs, x):
    return x.reshape(squeezed_shape(x.shape, attrs["axes"], True)), _xshape(x)


_register("squeeze2", [], [Attr("axes", "ints", [], "the size-1 dims to drop (empty: all)")],
          "Out = X without the listed size-1 dims.", _squeeze2_infer, _squeeze2)


# unsqueeze2
def infer_unsqueeze(ctx):
    """unsqueeze2's shape rule, also unsqueeze's (v1, shape_v1.py): Out only."""
    x = ctx.input_shape("X")
    if ctx.has_input("AxesTensorList") or ctx.has_input("AxesTensor"):
        count = (ctx.input_count("AxesTensorList") if ctx.has_input("AxesTensorList")
                 else max(ctx.input_shape("AxesTensor")[0], 0))
        ctx.set_output("Out", [-1] * (len(x) + count), ctx.input_dtype("X"))
        return
    out = unsqueezed_shape(x, ctx.attr("axes"))
    if isinstance(out, str):
        ctx.fail(out)
    ctx.set_output("Out", out, ctx.input_dtype("X"))
    share_lod_if_rows_kept(ctx, x, out)


def _unsqueeze2(attrs, x, axes_t, axes_list):
    if axes_list:
        axes = [_int_list(t)[0] for t in axes_list]
    elif axes_t is not None:
        axes = _int_list(axes_t)
    else:
        axes = attrs["axes"]
    out = unsqueezed_shape(x.shape, axes)
    if isinstance(out, str):
        raise KernelError(f"unsqueeze2: {out}")
    return x.reshape(out), _xshape(x)


_register("unsqueeze2",
          [In("AxesTensor", "an int tensor of axes; overrides the attribute", dispensable=True),
           In("AxesTensorList", "int tensors [1], one per axis", duplicable=True,
              dispensable=True)],
          [Attr("axes", "ints", [], "where unit dims go, one at a time")],
          "Out = X with unit dims inserted at axes.", infer_unsqueeze, _unsqueeze2)
