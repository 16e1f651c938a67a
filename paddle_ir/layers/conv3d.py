"""conv3d, conv3d_transpose, pool3d and adaptive_pool3d layers over NCDHW volumes
(ops/nn/conv3d.py)."""

from __future__ import annotations

import math

from paddle_ir.framework import Variable
from paddle_ir.framework.initializer import Normal
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper

__all__ = ["adaptive_pool3d", "conv3d", "conv3d_transpose", "pool3d"]


def _three(v) -> list[int]:
    return [int(v)] * 3 if isinstance(v, int) else [int(d) for d in v]


def _check_format(layer: str, data_format: str, ceil_mode: bool = False) -> None:
    if data_format != "NCDHW":
        raise ValueError(f"{layer}: only data_format='NCDHW' is supported, got {data_format!r}")
    if ceil_mode:
        raise ValueError(f"{layer}: ceil_mode=True is not supported")


def _conv_layer(op_type, input, filter_shape, num_filters, stride, padding, dilation,  # noqa: A002
                groups, param_attr, bias_attr, act, name):
    helper = LayerHelper(op_type, name)
    fan_in = math.prod(filter_shape[1:]) if op_type == "conv3d" else \
        input.shape[1] * math.prod(filter_shape[2:])
    attr = ParamAttr.to_attr(param_attr) or ParamAttr()
    w = helper.create_parameter(attr, filter_shape, input.dtype,
                                default_initializer=Normal(0.0, (2.0 / fan_in) ** 0.5))
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(op_type, inputs={"Input": input, "Filter": w}, outputs={"Output": out},
                     attrs={"strides": _three(stride), "paddings": _three(padding),
                            "dilations": _three(dilation), "groups": int(groups)})
    bias = ParamAttr.to_attr(bias_attr)
    if bias is not None:
        b = helper.create_parameter(bias, [num_filters], input.dtype, is_bias=True)
        biased = helper.create_variable_for_type_inference(input.dtype)
        helper.append_op("elementwise_add", inputs={"X": out, "Y": b}, outputs={"Out": biased},
                         attrs={"axis": 1})
        out = biased
    return helper.append_activation(out, act)


def conv3d(input: Variable, num_filters: int, filter_size, stride=1, padding=0,  # noqa: A002
           dilation=1, groups=None, param_attr=None, bias_attr=None, use_cudnn: bool = True,
           act=None, name=None, data_format: str = "NCDHW") -> Variable:
    """A 3-D convolution with a [num_filters, C / groups, kd, kh, kw] filter and a bias."""
    _check_format("conv3d", data_format)
    groups = groups or 1
    shape = [num_filters, input.shape[1] // groups] + _three(filter_size)
    return _conv_layer("conv3d", input, shape, num_filters, stride, padding, dilation, groups,
                       param_attr, bias_attr, act, name)


def conv3d_transpose(input: Variable, num_filters: int, output_size=None,  # noqa: A002
                     filter_size=None, padding=0, stride=1, dilation=1, groups=None,
                     param_attr=None, bias_attr=None, use_cudnn: bool = True, act=None,
                     name=None, data_format: str = "NCDHW") -> Variable:
    """The transposed 3-D convolution; filter_size may be derived from output_size."""
    _check_format("conv3d_transpose", data_format)
    groups = groups or 1
    stride, padding, dilation = _three(stride), _three(padding), _three(dilation)
    if filter_size is None:
        if output_size is None:
            raise ValueError("conv3d_transpose needs filter_size or output_size")
        out = _three(output_size)
        filter_size = [(o - (s - 1) * st + 2 * p - 1) // d + 1 for o, s, st, p, d in zip(
            out, input.shape[2:], stride, padding, dilation, strict=True)]
    shape = [input.shape[1], num_filters // groups] + _three(filter_size)
    return _conv_layer("conv3d_transpose", input, shape, num_filters, stride, padding,
                       dilation, groups, param_attr, bias_attr, act, name)


def pool3d(input: Variable, pool_size=-1, pool_type: str = "max", pool_stride=1,  # noqa: A002
           pool_padding=0, global_pooling: bool = False, use_cudnn: bool = True,
           ceil_mode: bool = False, name=None, exclusive: bool = True,
           data_format: str = "NCDHW") -> Variable:
    """Max or average pooling over pool_size windows (or the whole volume)."""
    _check_format("pool3d", data_format, ceil_mode)
    helper = LayerHelper("pool3d", name)
    out = helper.create_variable_for_type_inference(input.dtype)
    size = [1, 1, 1] if global_pooling and pool_size == -1 else _three(pool_size)
    helper.append_op("pool3d", inputs={"X": input}, outputs={"Out": out},
                     attrs={"pooling_type": pool_type, "ksize": size,
                            "strides": _three(pool_stride), "paddings": _three(pool_padding),
                            "global_pooling": bool(global_pooling),
                            "exclusive": bool(exclusive)})
    return out


def adaptive_pool3d(input: Variable, pool_size, pool_type: str = "max",  # noqa: A002
                    require_index: bool = False, name=None) -> Variable:
    """Max or average pooling to an output of pool_size [od, oh, ow] cells."""
    if require_index:
        raise ValueError("adaptive_pool3d: require_index (the max positions) is not supported")
    helper = LayerHelper("adaptive_pool3d", name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("adaptive_pool3d", inputs={"X": input}, outputs={"Out": out},
                     attrs={"pooling_type": pool_type, "ksize": _three(pool_size)})
    return out
