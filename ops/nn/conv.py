"""conv2d, depthwise_conv2d and conv2d_transpose (+ their _grad ops), Paddle's slots and attrs.

conv2d: Input [N, C, H, W] (NHWC with data_format="NHWC"), Filter [OC, C/groups, kh, kw]:

    Output[n, o, p, q] = sum_{c, i, j} Inputpad[n, g(o)*C/groups + c, p*sh + i*dh, q*sw + j*dw]
                                       * Filter[o, c, i, j]
    OH = (H + pad_top + pad_bottom - (dh*(kh-1) + 1)) // sh + 1   (likewise OW)

`paddings` gives one value per spatial dim ([ph, pw], both sides) or four
([top, bottom, left, right]); `padding_algorithm` SAME pads so that
OH = ceil(H / sh) (dilations then count as 1), VALID pads nothing, EXPLICIT uses
`paddings`. depthwise_conv2d is conv2d (Paddle uses it when groups == C).

conv2d_transpose: Input [N, C, H, W], Filter [C, OC/groups, kh, kw]; Output is
the adjoint of conv2d, i.e. conv2d's data gradient with Input as dOut:

    OH = (H - 1)*sh - pad_top - pad_bottom + dh*(kh-1) + 1 + output_padding[0]

or `output_size` when given (it must lie in [that without output_padding,
+ sh)). Gradients: conv2d_grad gives Input@GRAD (conv2d_transpose of dOut) and
Filter@GRAD; conv2d_transpose_grad gives Input@GRAD = conv2d(dOut) and
Filter@GRAD. The arithmetic lives in ops/nn/conv_math.py.
"""

from __future__ import annotations

import functools

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.grad import grad_name
from paddle_ir.ops.nn import conv_math as cm
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_COMMON_ATTRS = [
    Attr("strides", "ints", [1, 1], "[sh, sw]"),
    Attr("paddings", "ints", [0, 0], "[ph, pw] or [top, bottom, left, right]"),
    Attr("padding_algorithm", "string", "EXPLICIT", "EXPLICIT, SAME or VALID"),
    Attr("groups", "int", 1, "channel groups; each sees C/groups inputs"),
    Attr("dilations", "ints", [1, 1], "[dh, dw]: the spacing of the filter taps"),
    Attr("data_format", "string", "NCHW", "NCHW or NHWC (AnyLayout means NCHW)"),
]
_TRANSPOSE_ATTRS = _COMMON_ATTRS + [
    Attr("output_padding", "ints", [], "extra rows/cols at the bottom/right of Output"),
    Attr("output_size", "ints", [], "[OH, OW]; overrides output_padding"),
]
_LAYOUTS = ("NCHW", "NHWC", "AnyLayout")


def _check_common(ctx, x, w) -> tuple[bool, tuple[int, int], int]:
    """(channels_last, input spatial dims, channels) after the checks every conv op shares."""
    layout = ctx.attr("data_format")
    ctx.enforce(layout in _LAYOUTS, lambda: f"data_format must be NCHW or NHWC, got {layout!r}")
    ctx.enforce(len(x) == 4, lambda: f"Input must be 4-D [N, C, H, W] (or NHWC), got Input.shape="
                             f"{shape_str(x)}")
    ctx.enforce(len(w) == 4, lambda: f"Filter must be 4-D, got Filter.shape={shape_str(w)}")
    for name in ("strides", "dilations"):
        values = ctx.attr(name)
        ctx.enforce(len(values) == 2 and min(values) > 0,
                    lambda: f"{name} must hold two positive values, got {list(values)}")
    algorithm = ctx.attr("padding_algorithm")
    ctx.enforce(algorithm in ("EXPLICIT", "SAME", "VALID"),
                lambda: f"padding_algorithm must be EXPLICIT, SAME or VALID, got {algorithm!r}")
    ctx.enforce(ctx.attr("groups") >= 1, lambda: f"groups must be >= 1, got {ctx.attr('groups')}")
    ctx.enforce(ctx.input_dtype("Input") == ctx.input_dtype("Filter"),
                lambda: f"Input and Filter must have one dtype, got {ctx.input_dtype('Input')} and "
                f"{ctx.input_dtype('Filter')}")
    last = layout == "NHWC"
    return last, (tuple(x[1:3]) if last else tuple(x[2:])), (x[3] if last else x[1])


def geometry(attrs, in_spatial, ksize, fail=None) -> cm.Geometry:
    geo = _geometry_of(tuple(attrs["strides"]), tuple(attrs["paddings"]),
                       attrs["padding_algorithm"], tuple(attrs["dilations"]), attrs["groups"],
                       tuple(in_spatial), tuple(ksize))
    if isinstance(geo, str):
        if fail is None:
            raise KernelError(geo)
        fail(geo)
    return geo


@functools.lru_cache(maxsize=1024)
def _geometry_of(strides, paddings, algorithm, dilations, groups, in_spatial, ksize):
    """The Geometry of these attributes and shapes, or resolve_padding's message. Cached: a
    model's small convolutions spend a tenth of their time resolving it every run."""
    resolved = cm.resolve_padding(in_spatial, ksize, strides, paddings, algorithm, dilations)
    if isinstance(resolved, str):
        return resolved
    pads, dilations = resolved
    return cm.Geometry(strides, pads, tuple(dilations), groups)


def _out_shape(n, channels, spatial, last) -> list[int]:
    return [n, *spatial, channels] if last else [n, channels, *spatial]


def to_nchw(a: np.ndarray, attrs) -> np.ndarray:
    return a.transpose(0, 3, 1, 2) if attrs["data_format"] == "NHWC" else a


def from_nchw(a: np.ndarray, attrs) -> np.ndarray:
    if attrs["data_format"] == "NHWC":
        return np.ascontiguousarray(a.transpose(0, 2, 3, 1))
    return a


# --- conv2d and depthwise_conv2d ---------------------------------------------------------------
def _conv_infer(ctx):
    x, w = ctx.input_shape("Input"), ctx.input_shape("Filter")
    last, spatial, c = _check_common(ctx, x, w)
    groups = ctx.attr("groups")
    ctx.enforce(dims_match(c, w[1] * groups), lambda:
                f"Input has {c} channels but Filter.shape={shape_str(w)} with groups={groups} "
                f"expects {w[1]} x {groups} = {w[1] * groups}")
    ctx.enforce(w[0] < 0 or w[0] % groups == 0,
                lambda: f"Filter's {w[0]} output channels must divide into groups={groups}")
    geo = geometry(ctx.attrs, spatial, w[2:], ctx.fail)
    out = [cm.out_size(spatial[i], w[2 + i], geo.strides[i], geo.pads[i], geo.dilations[i])
           for i in range(2)]
    ctx.enforce(all(d != 0 and d >= -1 for d in out),
                lambda: f"the window {list(w[2:])} (dilations {list(geo.dilations)}) does not fit "
                f"Input's padded spatial dims {list(spatial)} with paddings "
                f"{[list(p) for p in geo.pads]}: Output would be {out}")
    ctx.set_output("Output", _out_shape(x[0], w[0], out, last), ctx.input_dtype("Input"))


def conv2d_kernel(attrs, x, w):
    xc = to_nchw(x, attrs)
    geo = geometry(attrs, xc.shape[2:], w.shape[2:])
    return from_nchw(cm.forward(xc, w, geo), attrs)


def conv2d_grad_kernel(attrs, x, w, dout):
    xc = to_nchw(x, attrs)
    geo = geometry(attrs, xc.shape[2:], w.shape[2:])
    dc = to_nchw(dout, attrs)
    dx = from_nchw(cm.backward_data(dc, w, xc.shape, geo), attrs)
    dw = cm.backward_filter(xc, dc, w.shape, geo)
    return np.ascontiguousarray(dx), dw


def _transpose_infer(ctx):
    x, w = ctx.input_shape("Input"), ctx.input_shape("Filter")
    last, spatial, c = _check_common(ctx, x, w)
    groups = ctx.attr("groups")
    ctx.enforce(dims_match(c, w[0]),
                lambda: f"Input has {c} channels but Filter.shape={shape_str(w)} expects {w[0]} "
                f"(conv2d_transpose's Filter is [C, OC/groups, kh, kw])")
    geo = geometry(ctx.attrs, spatial, w[2:], ctx.fail)
    sizes = transpose_sizes(ctx.attrs, spatial, w[2:], geo, ctx.fail)
    ctx.set_output("Output", _out_shape(x[0], -1 if w[1] < 0 else w[1] * groups, sizes, last),
                   ctx.input_dtype("Input"))


def transpose_sizes(attrs, spatial, ksize, geo, fail) -> list[int]:
    base = [cm.transpose_out_size(spatial[i], ksize[i], geo.strides[i], geo.pads[i],
                                  geo.dilations[i]) for i in range(2)]
    size, extra = list(attrs["output_size"]), list(attrs["output_padding"])
    if size:
        if len(size) != 2:
            fail(f"output_size must hold [OH, OW], got {size}")
        for i in range(2):
            if base[i] >= 0 and not base[i] <= size[i] < base[i] + geo.strides[i]:
                fail(f"output_size[{i}]={size[i]} must lie in [{base[i]}, "
                     f"{base[i] + geo.strides[i]}) for these strides and paddings")
        return size
    if extra:
        if len(extra) != 2:
            fail(f"output_padding must hold two values, got {extra}")
        for i in range(2):
            if not 0 <= extra[i] < max(geo.strides[i], geo.dilations[i]):
                fail(f"output_padding[{i}]={extra[i]} must be smaller than the stride or "
                     f"dilation")
        return [b if b < 0 else b + e for b, e in zip(base, extra, strict=True)]
    if any(b == 0 or b < -1 for b in base):
        fail(f"conv2d_transpose's Output would have spatial dims {base}")
    return base


def _raise(message):
    raise KernelError(message)


def conv2d_transpose_kernel(attrs, x, w):
    xc = to_nchw(x, attrs)
    geo = geometry(attrs, xc.shape[2:], w.shape[2:])
    oh, ow = transpose_sizes(attrs, xc.shape[2:], w.shape[2:], geo, _raise)
    out_shape = (xc.shape[0], w.shape[1] * geo.groups, oh, ow)
    return np.ascontiguousarray(from_nchw(cm.backward_data(xc, w, out_shape, geo), attrs))


def conv2d_transpose_grad_kernel(attrs, x, w, dout):
    xc = to_nchw(x, attrs)
    geo = geometry(attrs, xc.shape[2:], w.shape[2:])
    dc = np.ascontiguousarray(to_nchw(dout, attrs))
    dx = from_nchw(cm.forward(dc, w, geo), attrs)
    dw = cm.backward_filter(dc, xc, w.shape, geo)
    return np.ascontiguousarray(dx), dw


def _register(op_type: str, attrs, infer, kernel, grad_kernel, doc: str) -> None:
    fwd = register_op(
        op_type,
        inputs=[In("Input", "[N, C, H, W] or [N, H, W, C]"), In("Filter")],
        outputs=[Out("Output")],
        attrs=attrs,
        doc=doc,
    )
    fwd.infer_shape(infer)
    fwd.kernel(dtypes=FLOATS)(kernel)

    @fwd.grad_maker
    def _(g):
        return [g.grad_op(op_type + "_grad",
                          inputs={"Input": g.input("Input"), "Filter": g.input("Filter"),
                                  "Output@GRAD": g.output_grad("Output")},
                          outputs={"Input@GRAD": g.input_grad("Input"),
                                   "Filter@GRAD": g.input_grad("Filter")},
                          attrs={a.name: g.attr(a.name) for a in attrs})]

    bwd = register_op(
        op_type + "_grad",
        inputs=[In("Input"), In("Filter"), In("Output@GRAD")],
        outputs=[Out("Input@GRAD", dispensable=True), Out("Filter@GRAD", dispensable=True)],
        attrs=attrs,
        key_inputs=["Output@GRAD"],
        doc=f"Gradients of {op_type} w.r.t. Input and Filter.",
    )

    @bwd.infer_shape
    def _(ctx):
        for slot in ("Input", "Filter"):
            ctx.set_output(grad_name(slot), ctx.input_shape(slot), ctx.input_dtype(slot))

    bwd.kernel(dtypes=FLOATS)(grad_kernel)


_register("conv2d", _COMMON_ATTRS, _conv_infer, conv2d_kernel, conv2d_grad_kernel, __doc__)
_register("depthwise_conv2d", _COMMON_ATTRS, _conv_infer, conv2d_kernel, conv2d_grad_kernel,
          "conv2d with one filter group per input channel (see conv2d).")
_register("conv2d_transpose", _TRANSPOSE_ATTRS, _transpose_infer, conv2d_transpose_kernel,
          conv2d_transpose_grad_kernel, "The adjoint of conv2d (see conv2d).")
# paddle.nn.Conv2DTranspose with groups == in_channels saves this name; same math.
_register("depthwise_conv2d_transpose", _TRANSPOSE_ATTRS, _transpose_infer,
          conv2d_transpose_kernel, conv2d_transpose_grad_kernel,
          "conv2d_transpose with one filter group per input channel (see conv2d).")
