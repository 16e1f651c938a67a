"""linear_interp_v2 (3-D X), bicubic_interp_v2 (4-D) and trilinear_interp_v2 (5-D)
(+ _grad): F.interpolate's other modes, with ops/nn/interp.py's size and coordinate rules;
and their Fluid 1.x forms linear_interp, bicubic_interp and trilinear_interp
(layers.resize_trilinear), whose `scale` is one float (0: none) and whose ratio
without align_corners is always in / out (interp.py's v1 rule).

Output size, in order of precedence: SizeTensor (int tensors [1], one per resized dim),
OutSize (an int tensor), the scale (the Scale tensor, else the `scale` attribute, one
value or one per dim: out = int(in * scale)), else out_d / out_h / out_w. Channels come
first unless data_layout is channel-last (NWC, NHWC, NDHWC).

Each resized dim is a [m, n] matrix A applied along it (Out = X x_d A_d x_h A_h ...;
dX applies the transposes). linear and trilinear use interp.py's linear matrix
(align_corners, align_mode 0 half-pixel or 1), and on uint8 Paddle's own float32 sum
over the 2 or 8 corners, truncated (interp.py's integer_linear_resize); bicubic, with
ratio as in interp.py and src = ratio * k (align_corners) or ratio * (k + 0.5) - 0.5,
mixes the 4 rows floor(src) - 1 .. floor(src) + 2 (clamped to the dim) with Keys' cubic
weights, a = -0.75.
"""

from __future__ import annotations

import itertools

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.nn.interp import (
    integer_linear_resize,
    linear_taps,
    register_resize_grad,
    resize_matrix,
)
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_SIZE_INPUTS = [
    In("OutSize", "an int tensor: the output size of each resized dim", dispensable=True),
    In("SizeTensor", "int tensors [1], one per resized dim", duplicable=True,
       dispensable=True),
    In("Scale", "a float tensor: the scale(s)", dispensable=True),
]
_CHANNEL_LAST = ("NWC", "NHWC", "NDHWC")
CUBIC_A = -0.75


def _attrs(method: str, v2: bool = True):
    scale = (Attr("scale", "floats", [], "one scale, or one per resized dim") if v2
             else Attr("scale", "float", 0.0, "out = int(in * scale) when > 0"))
    return [
        Attr("data_layout", "string", "NCHW", "channels first (NCW, NCHW, NCDHW) or last"),
        Attr("out_d", "int", -1, "the output depth (trilinear)"),
        Attr("out_h", "int", -1, "the output height (bicubic, trilinear)"),
        Attr("out_w", "int", -1, "the output width"),
        scale,
        Attr("interp_method", "string", method, f"{method}"),
        Attr("align_corners", "bool", True, "map the corner pixels' centres onto each other"),
        Attr("align_mode", "int", 1, "linear: 0 half-pixel centres, 1 ratio * k"),
    ]


def _spatial_axes(rank: int, layout: str) -> list[int]:
    return list(range(1, rank - 1)) if layout in _CHANNEL_LAST else list(range(2, rank))


def _attr_sizes(get, dims: int) -> list[int]:
    return [get("out_d"), get("out_h"), get("out_w")][3 - dims:]


def _scales(get, scale_t, dims: int) -> list[float]:
    if scale_t is not None:
        values = [float(v) for v in np.asarray(scale_t).reshape(-1)]
    else:
        scale = get("scale")  # v2: a list; v1: one float, 0 for none
        values = ([float(v) for v in scale] if isinstance(scale, (list, tuple))
                  else [float(scale)] if scale > 0 else [])
    if not values:
        return [0.0] * dims
    return values * dims if len(values) == 1 else values[:dims]


def _sizes(get, in_sizes, out_size_t, size_list, scale_t):
    """(output sizes, scales) of the resized dims at run time."""
    dims = len(in_sizes)
    if size_list:
        return [int(np.asarray(t).reshape(-1)[0]) for t in size_list], [0.0] * dims
    scales = _scales(get, scale_t, dims)
    out = _attr_sizes(get, dims)
    if all(s > 0 for s in scales):
        out = [int(n * s) for n, s in zip(in_sizes, scales, strict=True)]
    if out_size_t is not None:
        out = [int(v) for v in np.asarray(out_size_t).reshape(-1)[:dims]]
    return out, scales


def cubic_matrix(n: int, m: int, align_corners: bool, scale: float, dtype) -> np.ndarray:
    """The [m, n] bicubic resize matrix of one dim."""
    if m <= 1:
        ratio = np.float32(0)
    elif align_corners:
        ratio = np.float32(n - 1) / np.float32(m - 1)
    elif scale > 0:
        ratio = np.float32(1.0 / scale)
    else:
        ratio = np.float32(n) / np.float32(m)
    k = np.arange(m, dtype=np.float32)
    src = ratio * k if align_corners else ratio * (k + np.float32(0.5)) - np.float32(0.5)
    i0 = np.floor(src).astype(np.int64)
    t = (src - i0).astype(np.float64)
    a = CUBIC_A
    weights = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
               ((a + 2) * t - (a + 3)) * t * t + 1,
               ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
               ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]
    out = np.zeros((m, n), dtype=np.float64)
    rows = np.arange(m)
    for tap, w in enumerate(weights):  # four taps, each a vectorised scatter
        np.add.at(out, (rows, np.clip(i0 - 1 + tap, 0, n - 1)), w)
    return out.astype(dtype)


def _apply(x: np.ndarray, mats, axes, transpose: bool = False) -> np.ndarray:
    for a, axis in zip(mats, axes, strict=True):
        a = a.T if transpose else a
        x = np.moveaxis(np.tensordot(a.astype(x.dtype), x, axes=([1], [axis])), 0, axis)
    return np.ascontiguousarray(x)


def _register(op_type: str, method: str, rank: int, v2: bool = True) -> None:
    attrs = _attrs(method, v2)
    dims = rank - 2
    fwd = register_op(op_type, inputs=[In("X")] + _SIZE_INPUTS, outputs=[Out("Out")],
                      attrs=attrs, doc=__doc__)

    @fwd.infer_shape
    def _(ctx):
        x = ctx.input_shape("X")
        ctx.enforce(len(x) == rank, lambda: f"X must be {rank}-D, got X.shape={shape_str(x)}")
        ctx.enforce(ctx.attr("interp_method") == method,
                    lambda: f"interp_method must be {method!r} for {op_type}, got "
                    f"{ctx.attr('interp_method')!r}")
        axes = _spatial_axes(rank, ctx.attr("data_layout"))
        out = list(x)
        if any(ctx.has_input(s.name) for s in _SIZE_INPUTS):
            sizes = [-1] * dims
        else:
            scales = _scales(ctx.attr, None, dims)
            if all(s > 0 for s in scales):
                sizes = [-1 if x[a] < 0 else int(x[a] * s)
                         for a, s in zip(axes, scales, strict=True)]
            else:
                sizes = _attr_sizes(ctx.attr, dims)
            ctx.enforce(all(d > 0 or d == -1 for d in sizes),
                        lambda: f"the output size must be positive: give the out_ sizes, a scale, "
                        f"OutSize or SizeTensor (got {sizes})")
        for a, d in zip(axes, sizes, strict=True):
            out[a] = d
        ctx.set_output("Out", out, ctx.input_dtype("X"))

    def matrices(attrs_, x, out_size_t, size_list, scale_t):
        axes = _spatial_axes(rank, attrs_["data_layout"])
        in_sizes = [x.shape[a] for a in axes]
        sizes, scales = _sizes(attrs_.__getitem__, in_sizes, out_size_t, size_list, scale_t)
        if min(sizes) <= 0:
            raise ValueError(f"{op_type}: the output size must be positive, got {sizes}")
        if method == "bicubic":  # v1 takes the ratio from the sizes, never from the scale
            mats = [cubic_matrix(n, m, attrs_["align_corners"], s if v2 else 0.0, x.dtype)
                    for n, m, s in zip(in_sizes, sizes, scales, strict=True)]
        else:
            mats = [resize_matrix(n, m, "bilinear", attrs_, s, v2, x.dtype,
                                  double_weight=method == "linear")
                    for n, m, s in zip(in_sizes, sizes, scales, strict=True)]
        return mats, axes

    @fwd.kernel(dtypes=FLOATS)
    def kernel(attrs_, x, out_size_t, size_list, scale_t):
        mats, axes = matrices(attrs_, x, out_size_t, size_list, scale_t)
        return _apply(x, mats, axes)

    kernel.__name__ = kernel.__qualname__ = f"{op_type}_dense"

    if method != "bicubic":  # Paddle has no integer bicubic kernel
        @fwd.kernel(dtypes=(np.dtype(np.uint8),))
        def int_kernel(attrs_, x, out_size_t, size_list, scale_t):
            axes = _spatial_axes(rank, attrs_["data_layout"])
            in_sizes = [x.shape[a] for a in axes]
            sizes, scales = _sizes(attrs_.__getitem__, in_sizes, out_size_t, size_list,
                                   scale_t)
            if min(sizes) <= 0:
                raise ValueError(f"{op_type}: the output size must be positive, got {sizes}")
            trailing = list(range(rank - dims, rank))
            taps = [linear_taps(n, m, attrs_, s, v2, double_weight=method == "linear")
                    for n, m, s in zip(in_sizes, sizes, scales, strict=True)]
            if op_type == "linear_interp_v2":
                # Paddle 3.x's 1-D kernel keeps the weight in X's own type (its MT for
                # uint8 is uint8): the fraction truncates to 0, so Out is the i0 tap
                taps = [(i0, i1, np.zeros_like(t)) for i0, i1, t in taps]
            # Paddle's linear and trilinear order: the last dim's index varies fastest
            corners = list(itertools.product((0, 1), repeat=dims))
            out = integer_linear_resize(np.moveaxis(x, axes, trailing), taps, corners)
            return np.ascontiguousarray(np.moveaxis(out, trailing, axes))

        int_kernel.__name__ = int_kernel.__qualname__ = f"{op_type}_integer"

    bwd = register_resize_grad(fwd, op_type, attrs, _SIZE_INPUTS,
                               "dX = dOut with each A transposed.")

    @bwd.kernel(dtypes=FLOATS)
    def grad_kernel(attrs_, x, out_size_t, size_list, scale_t, dout):
        mats, axes = matrices(attrs_, x, out_size_t, size_list, scale_t)
        return _apply(dout, mats, axes, transpose=True)

    grad_kernel.__name__ = grad_kernel.__qualname__ = f"{op_type}_grad_dense"


_register("linear_interp_v2", "linear", 3)
_register("bicubic_interp_v2", "bicubic", 4)
_register("trilinear_interp_v2", "trilinear", 5)
_register("linear_interp", "linear", 3, v2=False)
_register("bicubic_interp", "bicubic", 4, v2=False)
_register("trilinear_interp", "trilinear", 5, v2=False)
