"""bilinear_interp, nearest_interp and their _v2 forms (+ _grad ops): resize H and W of a
4-D X (NCHW, or NHWC with data_layout="NHWC"), Paddle's rules.

Output size, in order of precedence: the int tensors `SizeTensor` ([1] each,
[out_h, out_w]); the int tensor `OutSize` ([2]); the scale (the float tensor
`Scale`, else the `scale` attribute: a float in v1, a list [scale_h, scale_w]
or [scale] in v2) giving out = int(in * scale) when > 0; `out_h` / `out_w`.

Source coordinates, per output index k along a dim of input size n and output size m
(ratio = 0 when m == 1):

    ratio = (n - 1) / (m - 1) with align_corners, else n / m
            (v2, without align_corners: 1 / scale when a scale was given)
    nearest:   src = int(ratio * k + 0.5) with align_corners, else int(ratio * k)
    bilinear:  with align_mode == 0 and not align_corners ("half pixel"):
                   i0 = max(int(ratio * (k + 0.5) - 0.5), 0),
                   t = max(ratio * (k + 0.5) - 0.5, 0) - i0
               otherwise i0 = int(ratio * k), t = ratio * k - i0
               i1 = min(i0 + 1, n - 1); Out mixes rows i0, i1 with weights 1 - t, t

Each dim's resize is a [m, n] matrix A, so Out = A_h @ X @ A_w^T per (n, c)
plane (two BLAS products; nearest gathers instead), and dX = A_h^T @ dOut @ A_w.

Integer X (uint8; int32 and int64 for nearest and bilinear v1, as Paddle registers them):
nearest gathers; bilinear computes as Paddle's kernel does, the float32 sum of the four
corners times their weights in Paddle's order, truncated to X's dtype (so 127.9 is 127).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, INTS, Attr, In, Out, register_op

_U8 = (np.dtype(np.uint8),)
_U8_INTS = _U8 + INTS
# The integer dtypes Paddle registers CPU kernels for (1.8's REGISTER_OP_CPU_KERNEL lines:
# uint8 for every resize; 3.x adds int32/int64 to nearest and to bilinear v1).
NEAREST_INTS = {"nearest_interp": _U8_INTS, "nearest_interp_v2": _U8_INTS}
LINEAR_INTS = {"bilinear_interp": _U8_INTS, "bilinear_interp_v2": _U8}

_SIZE_INPUTS = [
    In("OutSize", "an int tensor [2]: [out_h, out_w]", dispensable=True),
    In("SizeTensor", "int tensors [1]: out_h, out_w", duplicable=True, dispensable=True),
    In("Scale", "a float tensor: the scale(s)", dispensable=True),
]


def _attrs(method: str, v2: bool):
    scale = (Attr("scale", "floats", [], "[scale_h, scale_w] or [scale]") if v2
             else Attr("scale", "float", 0.0, "out = int(in * scale) when > 0"))
    return [
        Attr("data_layout", "string", "NCHW", "NCHW or NHWC"),
        Attr("out_d", "int", -1, "unused for 2-D resizes"),
        Attr("out_h", "int", -1, "the output height"),
        Attr("out_w", "int", -1, "the output width"),
        scale,
        Attr("interp_method", "string", method, "bilinear or nearest"),
        Attr("align_corners", "bool", True, "map the corner pixels' centres onto each other"),
        Attr("align_mode", "int", 1, "bilinear: 0 half-pixel centres, 1 ratio * k"),
    ]


def _scales(attrs, scale_t, v2: bool) -> tuple[float, float]:
    if scale_t is not None:
        values = [float(v) for v in np.asarray(scale_t).reshape(-1)]
        if not values or not all(v > 0 for v in values):  # NaN fails too
            raise KernelError(f"the Scale input must hold positive scales, got {values}")
    elif v2:
        values = [float(v) for v in attrs["scale"]]
    else:
        values = [float(attrs["scale"])] if attrs["scale"] > 0 else []
    if not values:
        return 0.0, 0.0
    return (values[0], values[0]) if len(values) == 1 else (values[0], values[1])


def out_size(attrs, in_hw, out_size_t, size_list, scale_t, v2: bool):
    """((out_h, out_w), (scale_h, scale_w)) at run time."""
    if size_list:
        return tuple(int(np.asarray(t).reshape(-1)[0]) for t in size_list), (0.0, 0.0)
    scales = _scales(attrs, scale_t, v2)
    out = (attrs["out_h"], attrs["out_w"])
    if scales[0] > 0 and scales[1] > 0:
        out = (int(in_hw[0] * scales[0]), int(in_hw[1] * scales[1]))
    if out_size_t is not None:
        out = tuple(int(v) for v in np.asarray(out_size_t).reshape(-1)[:2])
    return out, scales


def _ratio(n: int, m: int, align_corners: bool, scale: float, v2: bool) -> np.float32:
    if m <= 1:
        return np.float32(0)
    if align_corners:
        return np.float32(n - 1) / np.float32(m - 1)
    if v2 and scale > 0:
        return np.float32(1.0 / scale)
    return np.float32(n) / np.float32(m)


def linear_taps(n: int, m: int, attrs, scale: float, v2: bool, double_weight: bool = False):
    """One dim's linear resize as Paddle's kernel computes it: per output index, the two
    source indices (i0, i1) and the float32 weight t of i1 (i0's is 1 - t).

    With half-pixel centres Paddle takes the index from ratio * (k + 0.5) - 0.5 in double
    (0.5 is a double literal) and the weight from the same expression rounded to float32
    (`double_weight`: bilinear's H, the 1-D resize) or computed in float32 (0.5f: bilinear's
    W, trilinear): a source position just below an integer lands on either side of it."""
    ratio = _ratio(n, m, attrs["align_corners"], scale, v2)
    k = np.arange(m, dtype=np.float32)
    if attrs["align_mode"] == 0 and not attrs["align_corners"]:
        exact = np.float64(ratio) * (np.arange(m) + 0.5) - 0.5
        i0 = np.maximum(exact, 0.0).astype(np.int64)
        pos = (exact.astype(np.float32) if double_weight
               else ratio * (k + np.float32(0.5)) - np.float32(0.5))
        pos = np.maximum(pos, np.float32(0))
    else:
        pos = ratio * k
        i0 = pos.astype(np.int64)
    i0 = np.minimum(i0, n - 1)
    return i0, np.minimum(i0 + 1, n - 1), (pos - i0).astype(np.float32)


def nearest_index(n: int, m: int, attrs, scale: float, v2: bool) -> np.ndarray:
    """One dim's nearest resize: the source index of each output index."""
    ratio = _ratio(n, m, attrs["align_corners"], scale, v2)
    k = np.arange(m, dtype=np.float32)
    src = (ratio * k + np.float32(0.5)) if attrs["align_corners"] else ratio * k
    return np.minimum(src.astype(np.int64), n - 1)


def resize_matrix(n: int, m: int, method: str, attrs, scale: float, v2: bool, dtype,
                  double_weight: bool = False):
    """The [m, n] matrix of one dim's resize (linear_taps says what double_weight is)."""
    a = np.zeros((m, n), dtype=dtype)
    rows = np.arange(m)
    if method == "nearest":
        a[rows, nearest_index(n, m, attrs, scale, v2)] = 1
        return a
    i0, i1, t = linear_taps(n, m, attrs, scale, v2, double_weight)
    t = t.astype(dtype)
    np.add.at(a, (rows, i0), 1 - t)
    np.add.at(a, (rows, i1), t)
    return a


def integer_linear_resize(x: np.ndarray, taps: list, corners: list) -> np.ndarray:
    """Paddle's integer (uint8, int32, int64) linear resizes of channel-first `x` over its
    trailing dims, `taps` being each dim's linear_taps: each output is the float32 sum,
    corner by corner in Paddle's order (`corners`: per corner, 0 for i0 or 1 for i1 along
    each dim), of the corner's value times its weights (1 - t or t) multiplied in dim
    order, truncated to x's dtype as a C++ cast truncates. A float rounding there decides
    the integer, so the order is Paddle's."""
    dims = len(taps)

    def along(d, v):  # v shaped to broadcast along resized dim d
        shape = [1] * dims
        shape[d] = len(v)
        return v.reshape(shape)

    acc = None
    for corner in corners:
        picked = [along(d, i1 if side else i0)
                  for d, ((i0, i1, _), side) in enumerate(zip(taps, corner, strict=True))]
        value = x[(Ellipsis, *picked)].astype(np.float32)
        for d, ((_, _, t), side) in enumerate(zip(taps, corner, strict=True)):
            value = value * along(d, t if side else np.float32(1) - t)
        acc = value if acc is None else acc + value
    return np.trunc(acc).astype(x.dtype)


def _nchw(a, attrs):
    return a.transpose(0, 3, 1, 2) if attrs["data_layout"] == "NHWC" else a


def _back(a, attrs):
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1)) if attrs["data_layout"] == "NHWC" else a


def register_resize_grad(fwd, op_type: str, attrs: list, size_inputs: list, doc: str):
    """The grad maker of resize op `fwd` and its `_grad` op (spec and shape rule), shared
    by the 2-D resizes here and interp_nd's 1-D/3-D ones; the caller adds the kernel."""

    @fwd.grad_maker
    def _(g):
        inputs = {"X": g.input("X"), "Out@GRAD": g.output_grad("Out")}
        for s in size_inputs:
            if g.input(s.name):
                inputs[s.name] = g.input(s.name)
        return [g.grad_op(op_type + "_grad", inputs=inputs,
                          outputs={"X@GRAD": g.input_grad("X")},
                          attrs={a.name: g.attr(a.name) for a in attrs})]

    bwd = register_op(op_type + "_grad",
                      inputs=[In("X", no_need_buffer=True)] + size_inputs + [In("Out@GRAD")],
                      outputs=[Out("X@GRAD", dispensable=True)], attrs=attrs,
                      key_inputs=["Out@GRAD"], doc=doc)

    @bwd.infer_shape
    def _(ctx):
        ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))

    return bwd


def _register(op_type: str, method: str, v2: bool) -> None:
    attrs = _attrs(method, v2)
    fwd = register_op(op_type, inputs=[In("X")] + _SIZE_INPUTS, outputs=[Out("Out")],
                      attrs=attrs, doc=__doc__)

    @fwd.infer_shape
    def _(ctx):
        x = ctx.input_shape("X")
        ctx.enforce(len(x) == 4,
                    lambda: f"X must be 4-D (NCHW or NHWC), got X.shape={shape_str(x)}")
        layout = ctx.attr("data_layout")
        ctx.enforce(layout in ("NCHW", "NHWC", "AnyLayout"),
                    lambda: f"data_layout must be NCHW or NHWC, got {layout!r}")
        ctx.enforce(ctx.attr("interp_method") == method,
                    lambda: f"interp_method must be {method!r} for {op_type}, got "
                    f"{ctx.attr('interp_method')!r}")
        last = layout == "NHWC"
        hw = x[1:3] if last else x[2:]
        if any(ctx.has_input(s.name) for s in _SIZE_INPUTS):
            out = [-1, -1]
        else:
            scales = _scales(ctx.attrs, None, v2)
            if scales[0] > 0 and scales[1] > 0:
                out = [-1 if d < 0 else int(d * s) for d, s in zip(hw, scales, strict=True)]
            else:
                out = [ctx.attr("out_h"), ctx.attr("out_w")]
            ctx.enforce(all(d > 0 or d == -1 for d in out) and out != [-1, -1] or
                        any(d < 0 for d in hw),
                        lambda: f"the output size must be positive: give out_h and out_w, a scale, "
                        f"OutSize or SizeTensor (got out_h={ctx.attr('out_h')}, "
                        f"out_w={ctx.attr('out_w')}, scale={ctx.attr('scale')})")
        shape = [x[0], *out, x[3]] if last else [x[0], x[1], *out]
        ctx.set_output("Out", shape, ctx.input_dtype("X"))

    def dims(attrs_, x, out_size_t, size_list, scale_t):
        """((in_h, out_h, scale_h), (in_w, out_w, scale_w)) of channel-first x."""
        hw = x.shape[2:]
        (oh, ow), (sh, sw) = out_size(attrs_, hw, out_size_t, size_list, scale_t, v2)
        if oh <= 0 or ow <= 0:
            raise KernelError(f"{op_type}: the output size must be positive, got [{oh}, {ow}] "
                              f"(from out_h/out_w, the scale, OutSize or SizeTensor)")
        # The size may come from a tensor's values, which InferShape cannot know.
        check_allocation(op_type, (*x.shape[:2], oh, ow), x.dtype,
                         "out_h/out_w, the scale, OutSize or SizeTensor")
        return (hw[0], oh, sh), (hw[1], ow, sw)

    def matrices(attrs_, x, out_size_t, size_list, scale_t):
        return tuple(resize_matrix(n, m, method, attrs_, s, v2, x.dtype, double_weight=h)
                     for (n, m, s), h in zip(dims(attrs_, x, out_size_t, size_list, scale_t),
                                             (True, False), strict=True))

    if method == "nearest":
        @fwd.kernel(dtypes=FLOATS + NEAREST_INTS[op_type])
        def kernel(attrs_, x, out_size_t, size_list, scale_t):
            xc = _nchw(x, attrs_)
            ih, iw = (nearest_index(n, m, attrs_, s, v2)
                      for n, m, s in dims(attrs_, xc, out_size_t, size_list, scale_t))
            return _back(np.ascontiguousarray(xc[:, :, ih][:, :, :, iw]), attrs_)
    else:
        @fwd.kernel(dtypes=FLOATS)
        def kernel(attrs_, x, out_size_t, size_list, scale_t):
            xc = _nchw(x, attrs_)
            ah, aw = matrices(attrs_, xc, out_size_t, size_list, scale_t)
            return _back(np.ascontiguousarray(np.matmul(ah, np.matmul(xc, aw.T))), attrs_)

        @fwd.kernel(dtypes=LINEAR_INTS[op_type])
        def int_kernel(attrs_, x, out_size_t, size_list, scale_t):
            xc = _nchw(x, attrs_)
            taps = [linear_taps(n, m, attrs_, s, v2, double_weight=h)
                    for (n, m, s), h in zip(dims(attrs_, xc, out_size_t, size_list, scale_t),
                                            (True, False), strict=True)]
            # Paddle's bilinear order: the north pair, west then east (H varies first)
            out = integer_linear_resize(xc, taps, [(0, 0), (1, 0), (0, 1), (1, 1)])
            return _back(out, attrs_)

        int_kernel.__name__ = int_kernel.__qualname__ = f"{op_type}_integer"

    kernel.__name__ = kernel.__qualname__ = f"{op_type}_dense"

    bwd = register_resize_grad(fwd, op_type, attrs, _SIZE_INPUTS,
                               "dX = A_h^T @ dOut @ A_w per plane.")

    @bwd.kernel(dtypes=FLOATS)
    def grad_kernel(attrs_, x, out_size_t, size_list, scale_t, dout):
        xc = _nchw(x, attrs_)
        ah, aw = matrices(attrs_, xc, out_size_t, size_list, scale_t)
        dx = np.matmul(ah.T.astype(dout.dtype), np.matmul(_nchw(dout, attrs_), aw.astype(
            dout.dtype)))
        return _back(np.ascontiguousarray(dx), attrs_)

    grad_kernel.__name__ = grad_kernel.__qualname__ = f"{op_type}_grad_dense"


for _method in ("bilinear", "nearest"):
    _register(f"{_method}_interp", _method, v2=False)
    _register(f"{_method}_interp_v2", _method, v2=True)
