"""Convolutions of Fluid 1.7's layers.nn: conv2d, conv2d_transpose, conv3d (NCDHW),
conv3d_transpose, row_conv, temporal_shift, and the image-patch layers unfold and
im2sequence. Conv filters start as Normal(0, sqrt(2 / fan_in)).
"""

from __future__ import annotations

import math

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable
from paddle_ir.framework.initializer import Normal
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper, _check_format, _op, _padding, _pair, _three

__all__ = ["conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose", "deformable_conv",
           "im2sequence", "row_conv", "temporal_shift", "unfold"]


def _channels(x: Variable, data_format: str, layer: str) -> int:
    if len(x.shape) != 4:
        raise InvalidProgramError(f"{layer}: input {x.name} must be 4-D, got shape "
                                  f"{list(x.shape)}")
    c = x.shape[1] if data_format == "NCHW" else x.shape[3]
    if c < 0:
        raise InvalidProgramError(f"{layer}: input {x.name}'s channel dim must be known, got "
                                  f"shape {list(x.shape)}")
    return c


def _add_bias(helper: LayerHelper, out: Variable, bias_attr, size: int, axis: int) -> Variable:
    bias = ParamAttr.to_attr(bias_attr)
    if bias is None:
        return out
    b = helper.create_parameter(bias, [size], out.dtype, is_bias=True)
    result = helper.create_variable_for_type_inference(out.dtype)
    helper.append_op("elementwise_add", inputs={"X": out, "Y": b}, outputs={"Out": result},
                     attrs={"axis": axis})
    return result


def conv2d(input, num_filters: int, filter_size, stride=1, padding=0,  # noqa: A002
           dilation=1, groups=None, param_attr=None, bias_attr=None, use_cudnn: bool = True,
           act=None, name=None, data_format: str = "NCHW") -> Variable:
    """A 2-D convolution (+ bias along the channel axis, + act), as Fluid's conv2d.

    The filter is [num_filters, C / groups, kh, kw]; `padding` is an int, 2 or 4
    ints, one pair per input dim, or "SAME"/"VALID". As in Fluid, the op is
    depthwise_conv2d when groups == C, num_filters % C == 0 and not use_cudnn.
    """
    helper = LayerHelper("conv2d", name)
    c = _channels(input, data_format, "conv2d")
    groups = groups or 1
    if c % groups:
        raise InvalidProgramError(f"conv2d: {c} input channels do not divide into "
                                  f"groups={groups}")
    ksize = _pair(filter_size, "filter_size")
    paddings, algorithm = _padding(padding, data_format)
    op_type = ("depthwise_conv2d" if c == groups and num_filters % c == 0 and not use_cudnn
               else "conv2d")
    fan_in = ksize[0] * ksize[1] * c
    w = helper.create_parameter(ParamAttr.to_attr(param_attr),
                                [num_filters, c // groups] + ksize, input.dtype,
                                default_initializer=Normal(0.0, (2.0 / fan_in) ** 0.5))
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(op_type, inputs={"Input": input, "Filter": w}, outputs={"Output": out},
                     attrs={"strides": _pair(stride, "stride"), "paddings": paddings,
                            "padding_algorithm": algorithm,
                            "dilations": _pair(dilation, "dilation"), "groups": groups,
                            "data_format": data_format})
    out = _add_bias(helper, out, bias_attr, num_filters, 1 if data_format == "NCHW" else 3)
    return helper.append_activation(out, act)


def deformable_conv(input, offset, mask, num_filters: int, filter_size,  # noqa: A002
                    stride=1, padding=0, dilation=1, groups=None, deformable_groups=None,
                    im2col_step=None, param_attr=None, bias_attr=None, modulated: bool = True,
                    name=None) -> Variable:
    """A deformable convolution (DCN v2 with modulated=True and a mask, else v1), as Fluid's
    deformable_conv: the filter is [num_filters, C / groups, kh, kw], + bias."""
    helper = LayerHelper("deformable_conv", name)
    c = _channels(input, "NCHW", "deformable_conv")
    groups = groups or 1
    if c % groups:
        raise InvalidProgramError(f"deformable_conv: {c} input channels do not divide into "
                                  f"groups={groups}")
    if modulated and mask is None:
        raise InvalidProgramError("deformable_conv: modulated=True (DCN v2) needs a mask")
    ksize = _pair(filter_size, "filter_size")
    fan_in = ksize[0] * ksize[1] * c
    w = helper.create_parameter(ParamAttr.to_attr(param_attr),
                                [num_filters, c // groups] + ksize, input.dtype,
                                default_initializer=Normal(0.0, (2.0 / fan_in) ** 0.5))
    inputs = {"Input": input, "Offset": offset, "Filter": w}
    if modulated:
        inputs["Mask"] = mask
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("deformable_conv" if modulated else "deformable_conv_v1", inputs=inputs,
                     outputs={"Output": out},
                     attrs={"strides": _pair(stride, "stride"),
                            "paddings": _pair(padding, "padding"),
                            "dilations": _pair(dilation, "dilation"), "groups": groups,
                            "deformable_groups": deformable_groups or 1,
                            "im2col_step": im2col_step or 64})
    return _add_bias(helper, out, bias_attr, num_filters, 1)


def conv2d_transpose(input, num_filters: int, output_size=None, filter_size=None,  # noqa: A002
                     padding=0, stride=1, dilation=1, groups=None, param_attr=None,
                     bias_attr=None, use_cudnn: bool = True, act=None, name=None,
                     data_format: str = "NCHW") -> Variable:
    """The adjoint of conv2d, as Fluid's conv2d_transpose; filter [C, num_filters / groups,
    kh, kw]. Without filter_size, it is derived from output_size."""
    helper = LayerHelper("conv2d_transpose", name)
    c = _channels(input, data_format, "conv2d_transpose")
    groups = groups or 1
    stride, dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
    paddings, algorithm = _padding(padding, data_format)
    if filter_size is None:
        if output_size is None:
            raise InvalidProgramError("conv2d_transpose needs filter_size or output_size")
        out_hw = _pair(output_size, "output_size")
        in_hw = input.shape[2:] if data_format == "NCHW" else input.shape[1:3]
        pads = paddings if len(paddings) == 4 else [paddings[0]] * 2 + [paddings[1]] * 2
        ksize = [(out_hw[i] - (in_hw[i] - 1) * stride[i] + pads[2 * i] + pads[2 * i + 1] - 1)
                 // dilation[i] + 1 for i in range(2)]
    else:
        ksize = _pair(filter_size, "filter_size")
    if num_filters % groups:
        raise InvalidProgramError(f"conv2d_transpose: num_filters={num_filters} does not "
                                  f"divide into groups={groups}")
    w = helper.create_parameter(ParamAttr.to_attr(param_attr),
                                [c, num_filters // groups] + ksize, input.dtype)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("conv2d_transpose", inputs={"Input": input, "Filter": w},
                     outputs={"Output": out},
                     attrs={"strides": stride, "paddings": paddings,
                            "padding_algorithm": algorithm, "dilations": dilation,
                            "groups": groups, "data_format": data_format,
                            "output_size": [] if output_size is None
                            else _pair(output_size, "output_size")})
    out = _add_bias(helper, out, bias_attr, num_filters, 1 if data_format == "NCHW" else 3)
    return helper.append_activation(out, act)


def _conv_layer(op_type, input, filter_shape, num_filters, stride, padding, dilation,  # noqa: A002
                groups, param_attr, bias_attr, act, name, data_format="NCDHW"):
    helper = LayerHelper(op_type, name)
    last = data_format == "NDHWC"
    channels = input.shape[4] if last else input.shape[1]
    fan_in = math.prod(filter_shape[1:]) if op_type == "conv3d" else \
        channels * math.prod(filter_shape[2:])
    attr = ParamAttr.to_attr(param_attr) or ParamAttr()
    w = helper.create_parameter(attr, filter_shape, input.dtype,
                                default_initializer=Normal(0.0, (2.0 / fan_in) ** 0.5))
    out = helper.create_variable_for_type_inference(input.dtype)
    paddings, algorithm = _padding(padding, data_format, 3)
    attrs = {"strides": _three(stride), "paddings": paddings,
             "dilations": _three(dilation), "groups": int(groups)}
    if algorithm != "EXPLICIT":
        attrs["padding_algorithm"] = algorithm
    if last:  # Fluid's conv3d_transpose layer writes NHWC for NDHWC (Paddle's kernel reads it)
        attrs["data_format"] = "NHWC" if op_type == "conv3d_transpose" else "NDHWC"
    helper.append_op(op_type, inputs={"Input": input, "Filter": w}, outputs={"Output": out},
                     attrs=attrs)
    bias = ParamAttr.to_attr(bias_attr)
    if bias is not None:
        b = helper.create_parameter(bias, [num_filters], input.dtype, is_bias=True)
        biased = helper.create_variable_for_type_inference(input.dtype)
        helper.append_op("elementwise_add", inputs={"X": out, "Y": b}, outputs={"Out": biased},
                         attrs={"axis": 4 if last else 1})
        out = biased
    return helper.append_activation(out, act)


def conv3d(input: Variable, num_filters: int, filter_size, stride=1, padding=0,  # noqa: A002
           dilation=1, groups=None, param_attr=None, bias_attr=None, use_cudnn: bool = True,
           act=None, name=None, data_format: str = "NCDHW") -> Variable:
    """A 3-D convolution with a [num_filters, C / groups, kd, kh, kw] filter and a bias;
    padding as Fluid takes it (an int, 3 or 6 values, pairs per dim, 'SAME' or 'VALID')."""
    _check_format("conv3d", data_format)
    groups = groups or 1
    channels = input.shape[4] if data_format == "NDHWC" else input.shape[1]
    shape = [num_filters, channels // groups] + _three(filter_size)
    return _conv_layer("conv3d", input, shape, num_filters, stride, padding, dilation, groups,
                       param_attr, bias_attr, act, name, data_format)


def conv3d_transpose(input: Variable, num_filters: int, output_size=None,  # noqa: A002
                     filter_size=None, padding=0, stride=1, dilation=1, groups=None,
                     param_attr=None, bias_attr=None, use_cudnn: bool = True, act=None,
                     name=None, data_format: str = "NCDHW") -> Variable:
    """The transposed 3-D convolution; filter_size may be derived from output_size."""
    _check_format("conv3d_transpose", data_format)
    groups = groups or 1
    stride, dilation = _three(stride), _three(dilation)
    last = data_format == "NDHWC"
    channels, spatial = ((input.shape[4], input.shape[1:4]) if last
                         else (input.shape[1], input.shape[2:]))
    if filter_size is None:
        if output_size is None:
            raise ValueError("conv3d_transpose needs filter_size or output_size")
        paddings, algorithm = _padding(padding, data_format, 3)
        if algorithm != "EXPLICIT":
            raise ValueError("conv3d_transpose: give filter_size with padding 'SAME' or "
                             "'VALID' (it cannot be derived from output_size)")
        pairs = ([(p, p) for p in paddings] if len(paddings) == 3
                 else list(zip(paddings[::2], paddings[1::2], strict=True)))
        out = _three(output_size)
        filter_size = [(o - (s - 1) * st + b + a - 1) // d + 1 for o, s, st, (b, a), d in zip(
            out, spatial, stride, pairs, dilation, strict=True)]
    shape = [channels, num_filters // groups] + _three(filter_size)
    return _conv_layer("conv3d_transpose", input, shape, num_filters, stride, padding,
                       dilation, groups, param_attr, bias_attr, act, name, data_format)


def temporal_shift(x: Variable, seg_num: int, shift_ratio: float = 0.25,
                   name=None) -> Variable:
    """TSM's shift of shift_ratio of the channels one step back and forward in time."""
    return _op("temporal_shift", {"X": x}, ["Out"],
               {"seg_num": int(seg_num), "shift_ratio": float(shift_ratio)}, name)


def row_conv(input: Variable, future_context_size: int, param_attr=None,  # noqa: A002
             act=None) -> Variable:
    """The lookahead convolution over each sequence, with a [future + 1, D] filter."""
    helper = LayerHelper("row_conv")
    filt = helper.create_parameter(ParamAttr.to_attr(param_attr) or ParamAttr(),
                                   [future_context_size + 1, input.shape[-1]], input.dtype)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("row_conv", inputs={"X": input, "Filter": filt}, outputs={"Out": out})
    return helper.append_activation(out, act)


def _as_pair(v):
    return [int(v), int(v)] if isinstance(v, int) else [int(d) for d in v]


def unfold(x: Variable, kernel_sizes, strides=1, paddings=0, dilations=1,
           name=None) -> Variable:
    """im2col: [N, C, H, W] -> [N, C kh kw, L] sliding blocks."""
    pads = [int(paddings)] * 4 if isinstance(paddings, int) else [int(p) for p in paddings]
    if len(pads) == 2:
        pads = pads * 2
    return _op("unfold", {"X": x}, ["Y"],
               {"kernel_sizes": _as_pair(kernel_sizes), "strides": _as_pair(strides),
                "paddings": pads, "dilations": _as_pair(dilations)}, name)


def im2sequence(input: Variable, filter_size=1, stride=1, padding=0,  # noqa: A002
                input_image_size=None, out_stride=1, name=None) -> Variable:
    """Each image's filter_size blocks as one sequence of rows (a LoDTensor)."""
    if input_image_size is not None:
        raise ValueError("im2sequence: input_image_size (per-image real sizes) is not "
                         "supported; pass images of one size")
    pads = [int(padding)] * 4 if isinstance(padding, int) else [int(p) for p in padding]
    if len(pads) == 2:
        pads = pads * 2
    return _op("im2sequence", {"X": input}, ["Out"],
               {"kernels": _as_pair(filter_size), "strides": _as_pair(stride), "paddings": pads},
               name)
