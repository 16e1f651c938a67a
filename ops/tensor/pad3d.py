"""pad3d (+ _grad): pad the D, H and W dims of a 5-D tensor (paddle.nn.Pad2D/Pad3D, F.pad).

paddings = [left, right, top, bottom, front, back] (W, then H, then D: Paddle's order);
a 4-D input is unsqueezed to 5-D by the layer before this op.

    constant   Out = value outside X
    reflect    mirror without the edge row:  ... x2 x1 | x0 x1 x2 ... (pads < the dim)
    replicate  repeat the edge row:          ... x0 x0 | x0 x1 x2 ...
    circular   wrap around:                  ... xn-2 xn-1 | x0 x1 ...

The Paddings input, when bound, overrides the attribute (an int32 tensor of 6 values).
dX sums dOut over every output position that read each input position (for constant,
the interior only): per padded dim, dOut contracted with a 0/1 map [out, in].
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, NUMERIC, Attr, In, Out, register_op

MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}
FORMATS = ("NCDHW", "NDHWC")

pad3d = register_op(
    "pad3d",
    inputs=[In("X", "a 5-D tensor"),
            In("Paddings", "int32 [6], overrides paddings when given", dispensable=True)],
    outputs=[Out("Out", "X padded on its D, H and W dims")],
    attrs=[Attr("paddings", "ints", [], "[left, right, top, bottom, front, back]"),
           Attr("mode", "string", "constant", "constant, reflect, replicate or circular"),
           Attr("value", "float", 0.0, "the fill of constant mode"),
           Attr("data_format", "string", "NCDHW", "NCDHW or NDHWC")],
    doc=__doc__,
)


def _spatial_axes(data_format: str) -> tuple[int, int, int]:
    return (2, 3, 4) if data_format == "NCDHW" else (1, 2, 3)


def _check(ctx) -> None:
    ctx.enforce(ctx.attr("mode") in MODES,
                lambda: f"mode must be one of {', '.join(MODES)}, got {ctx.attr('mode')!r}")
    ctx.enforce(ctx.attr("data_format") in FORMATS,
                lambda: f"data_format must be NCDHW or NDHWC, got {ctx.attr('data_format')!r}")
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 5, lambda: f"X must be 5-D, got {shape_str(x)}")
    if not ctx.has_input("Paddings"):
        pads = list(ctx.attr("paddings"))
        ctx.enforce(len(pads) == 6 and min(pads) >= 0,
                    lambda: f"paddings must be 6 values >= 0, got {pads}")


@pad3d.infer_shape
def _(ctx):
    _check(ctx)
    x = list(ctx.input_shape("X"))
    out = list(x)
    axes = _spatial_axes(ctx.attr("data_format"))
    if ctx.has_input("Paddings"):
        for a in axes:
            out[a] = -1
    else:
        pads = ctx.attr("paddings")
        for k, a in enumerate(axes):  # D gets pads[4:6], H pads[2:4], W pads[0:2]
            before, after = pads[4 - 2 * k], pads[5 - 2 * k]
            out[a] = x[a] + before + after if x[a] >= 0 else -1
    ctx.set_output("Out", out, ctx.input_dtype("X"))


def _pad_widths(pads, data_format: str, ndim: int = 5) -> list[tuple[int, int]]:
    widths = [(0, 0)] * ndim
    for k, a in enumerate(_spatial_axes(data_format)):
        widths[a] = (int(pads[4 - 2 * k]), int(pads[5 - 2 * k]))
    return widths


def _paddings(attrs, paddings) -> list[int]:
    pads = attrs["paddings"] if paddings is None else np.asarray(paddings).reshape(-1).tolist()
    if len(pads) != 6 or min(pads) < 0:
        raise ValueError(f"pad3d: Paddings must be 6 values >= 0, got {pads}")
    return pads


def _check_reflect(mode: str, x_shape, widths) -> None:
    if mode == "reflect":
        for n, (before, after) in zip(x_shape, widths, strict=True):
            if max(before, after) >= n and (before or after):
                raise ValueError(f"pad3d: reflect padding {before, after} must be smaller "
                                 f"than the padded dim ({n})")


@pad3d.kernel(dtypes=NUMERIC)
def pad3d_kernel(attrs, x, paddings):
    widths = _pad_widths(_paddings(attrs, paddings), attrs["data_format"])
    mode = attrs["mode"]
    _check_reflect(mode, x.shape, widths)
    if len(widths) == x.ndim:  # paddings read from a tensor: sized before np.pad allocates
        check_allocation("pad3d", [d + b + a for d, (b, a) in zip(x.shape, widths, strict=True)],
                         x.dtype, "its paddings attribute" if paddings is None
                         else "its Paddings values")
    if mode == "constant":
        return np.pad(x, widths, mode="constant",
                      constant_values=np.asarray(attrs["value"], np.float32).astype(x.dtype))
    return np.pad(x, widths, mode=MODES[mode])


@pad3d.grad_maker
def _(g):
    inputs = {"X": g.input("X"), "Out@GRAD": g.output_grad("Out")}
    if g.input("Paddings"):
        inputs["Paddings"] = g.input("Paddings")
    return [g.grad_op("pad3d_grad", inputs=inputs, outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a: g.attr(a) for a in ("paddings", "mode", "value", "data_format")})]


pad3d_grad = register_op(
    "pad3d_grad",
    inputs=[In("X", no_need_buffer=True), In("Paddings", dispensable=True), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("paddings", "ints", []), Attr("mode", "string", "constant"),
           Attr("value", "float", 0.0), Attr("data_format", "string", "NCDHW")],
    key_inputs=["Out@GRAD"],
    doc="dX: dOut summed over the output positions that read each input position.",
)


@pad3d_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


def source_map(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """[n + before + after, n] 0/1: which input position each output position reads."""
    if mode == "constant":
        idx = np.pad(np.arange(n), (before, after), constant_values=-1)
    else:
        idx = np.pad(np.arange(n), (before, after), mode=MODES[mode])
    m = np.zeros((idx.size, n))
    inside = idx >= 0
    m[np.flatnonzero(inside), idx[inside]] = 1
    return m


@pad3d_grad.kernel(dtypes=FLOATS)
def pad3d_grad_kernel(attrs, x, paddings, dout):
    widths = _pad_widths(_paddings(attrs, paddings), attrs["data_format"])
    dx = dout
    for axis, (before, after) in enumerate(widths):
        if before or after:
            m = source_map(x.shape[axis], before, after, attrs["mode"]).astype(dout.dtype)
            dx = np.moveaxis(np.tensordot(dx, m, axes=([axis], [0])), -1, axis)
    return np.ascontiguousarray(dx, dtype=dout.dtype)
