"""Vision and normalisation layers with Fluid 1.7's signatures and defaults: conv2d,
conv2d_transpose, pool2d, adaptive_pool2d, batch_norm, layer_norm, dropout, and the
activations relu6, hard_swish, hard_sigmoid, swish, gelu, leaky_relu.

Each appends its ops to the current main program; parameters get their
initializer ops in the startup program (conv filters: Normal(0, sqrt(2 / fan_in)),
batch_norm's moving statistics: persistable, not trainable, 0 and 1).
"""

from __future__ import annotations

import math

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable, unique_name
from paddle_ir.framework.initializer import Constant, Normal
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper

__all__ = ["adaptive_pool2d", "batch_norm", "conv2d", "conv2d_transpose", "dropout", "gelu",
           "hard_sigmoid", "hard_swish", "layer_norm", "leaky_relu", "pool2d", "relu6", "swish"]


def _pair(value, what: str) -> list[int]:
    if isinstance(value, int):
        return [value, value]
    value = [int(v) for v in value]
    if len(value) != 2:
        raise InvalidProgramError(f"{what} must be an int or a pair, got {value}")
    return value


def _padding(padding, data_format: str) -> tuple[list[int], str]:
    """Fluid's padding argument -> (paddings attribute, padding_algorithm)."""
    if isinstance(padding, str):
        algorithm = padding.upper()
        if algorithm not in ("SAME", "VALID"):
            raise InvalidProgramError(f"padding must be 'SAME', 'VALID', an int or a list, "
                                      f"got {padding!r}")
        return [0, 0], algorithm
    if isinstance(padding, int):
        return [padding, padding], "EXPLICIT"
    padding = list(padding)
    if padding and isinstance(padding[0], (list, tuple)):  # one pair per dim of the input
        spatial = padding[2:] if data_format == "NCHW" else padding[1:3]
        return [int(p) for pair in spatial for p in pair], "EXPLICIT"
    if len(padding) not in (2, 4):
        raise InvalidProgramError(f"padding must hold 2 or 4 values, got {padding}")
    return [int(p) for p in padding], "EXPLICIT"


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


def pool2d(input, pool_size=-1, pool_type: str = "max", pool_stride=1,  # noqa: A002
           pool_padding=0, global_pooling: bool = False, use_cudnn: bool = True,
           ceil_mode: bool = False, name=None, exclusive: bool = True,
           data_format: str = "NCHW") -> Variable:
    """Max or average pooling, as Fluid's pool2d (pool_padding may be "SAME"/"VALID")."""
    if pool_type not in ("max", "avg"):
        raise InvalidProgramError(f"pool2d: pool_type must be 'max' or 'avg', got {pool_type!r}")
    if pool_size == -1 and not global_pooling:
        raise InvalidProgramError("pool2d: give pool_size, or global_pooling=True")
    helper = LayerHelper("pool2d", name)
    paddings, algorithm = _padding(pool_padding, data_format)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("pool2d", inputs={"X": input}, outputs={"Out": out},
                     attrs={"pooling_type": pool_type,
                            "ksize": [1, 1] if pool_size == -1 else _pair(pool_size, "pool_size"),
                            "global_pooling": global_pooling,
                            "strides": _pair(pool_stride, "pool_stride"), "paddings": paddings,
                            "padding_algorithm": algorithm, "ceil_mode": ceil_mode,
                            "exclusive": exclusive, "data_format": data_format})
    return out


def adaptive_pool2d(input, pool_size, pool_type: str = "max",  # noqa: A002
                    require_index: bool = False, name=None) -> Variable:
    """Pooling to a fixed output size pool_size = [OH, OW] (windows split the input evenly)."""
    if require_index:
        raise InvalidProgramError("adaptive_pool2d: require_index=True needs the "
                                  "max_pool2d_with_index op, which paddle-ir does not have")
    if pool_type not in ("max", "avg"):
        raise InvalidProgramError(f"adaptive_pool2d: pool_type must be 'max' or 'avg', got "
                                  f"{pool_type!r}")
    helper = LayerHelper("adaptive_pool2d", name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("pool2d", inputs={"X": input}, outputs={"Out": out},
                     attrs={"pooling_type": pool_type, "ksize": _pair(pool_size, "pool_size"),
                            "adaptive": True})
    return out


def batch_norm(input, act=None, is_test: bool = False, momentum: float = 0.9,  # noqa: A002
               epsilon: float = 1e-5, param_attr=None, bias_attr=None,
               data_layout: str = "NCHW", in_place: bool = False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var: bool = True,
               use_global_stats: bool = False) -> Variable:
    """Batch normalisation, as Fluid's batch_norm: scale (1) and bias (0) parameters, and
    persistable moving mean (0) and variance (1) that the op updates in place."""
    helper = LayerHelper("batch_norm", name)
    axis = len(input.shape) - 1 if data_layout == "NHWC" and len(input.shape) > 2 else 1
    c = input.shape[axis]
    if c < 0:
        raise InvalidProgramError(f"batch_norm: input {input.name}'s channel dim must be "
                                  f"known, got shape {list(input.shape)}")
    dtype = input.dtype
    scale = helper.create_parameter(ParamAttr.to_attr(param_attr), [c], dtype,
                                    default_initializer=Constant(1.0))
    bias = helper.create_parameter(ParamAttr.to_attr(bias_attr), [c], dtype, is_bias=True)
    mean = helper.create_parameter(
        ParamAttr(name=moving_mean_name or unique_name.generate(helper.name + ".mean"),
                  initializer=Constant(0.0), trainable=False), [c], dtype)
    variance = helper.create_parameter(
        ParamAttr(name=moving_variance_name or unique_name.generate(helper.name + ".var"),
                  initializer=Constant(1.0), trainable=False), [c], dtype)
    mean.stop_gradient = variance.stop_gradient = True
    saved_mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    saved_variance = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    out = input if in_place else helper.create_variable_for_type_inference(dtype)
    helper.append_op("batch_norm",
                     inputs={"X": input, "Scale": scale, "Bias": bias, "Mean": mean,
                             "Variance": variance},
                     outputs={"Y": out, "MeanOut": mean, "VarianceOut": variance,
                              "SavedMean": saved_mean, "SavedVariance": saved_variance},
                     attrs={"momentum": float(momentum), "epsilon": float(epsilon),
                            "is_test": is_test, "data_layout": data_layout,
                            "use_global_stats": use_global_stats})
    return helper.append_activation(out, act)


def layer_norm(input, scale: bool = True, shift: bool = True,  # noqa: A002
               begin_norm_axis: int = 1, epsilon: float = 1e-5, param_attr=None,
               bias_attr=None, act=None, name=None) -> Variable:
    """Layer normalisation over the dims from begin_norm_axis on, as Fluid's layer_norm."""
    helper = LayerHelper("layer_norm", name)
    norm_dims = input.shape[begin_norm_axis:]
    if any(d < 0 for d in norm_dims):
        raise InvalidProgramError(f"layer_norm: the dims of {input.name} from begin_norm_axis="
                                  f"{begin_norm_axis} on must be known, got shape "
                                  f"{list(input.shape)}")
    size = math.prod(norm_dims)
    inputs = {"X": input}
    if scale:
        inputs["Scale"] = helper.create_parameter(ParamAttr.to_attr(param_attr), [size],
                                                  input.dtype, default_initializer=Constant(1.0))
    if shift:
        inputs["Bias"] = helper.create_parameter(ParamAttr.to_attr(bias_attr), [size],
                                                 input.dtype, is_bias=True)
    out = helper.create_variable_for_type_inference(input.dtype)
    mean = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    variance = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op("layer_norm", inputs=inputs,
                     outputs={"Y": out, "Mean": mean, "Variance": variance},
                     attrs={"epsilon": float(epsilon), "begin_norm_axis": begin_norm_axis})
    return helper.append_activation(out, act)


def dropout(x, dropout_prob: float, is_test: bool = False, seed=None, name=None,
            dropout_implementation: str = "downgrade_in_infer") -> Variable:
    """Zero elements with probability dropout_prob, as Fluid's dropout. Without a seed, the
    program's random_seed (if set) fixes the mask; Program.clone(for_test=True) sets
    is_test."""
    helper = LayerHelper("dropout", name)
    if seed is None and helper.main_program.random_seed:
        seed = helper.main_program.random_seed
    out = helper.create_variable_for_type_inference(x.dtype)
    mask = helper.create_variable_for_type_inference("uint8", stop_gradient=True)
    helper.append_op("dropout", inputs={"X": x}, outputs={"Out": out, "Mask": mask},
                     attrs={"dropout_prob": float(dropout_prob), "is_test": is_test,
                            "fix_seed": seed is not None, "seed": int(seed or 0),
                            "dropout_implementation": dropout_implementation})
    return out


def _activation(op_type: str, x: Variable, attrs: dict, name=None) -> Variable:
    helper = LayerHelper(op_type, name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, inputs={"X": x}, outputs={"Out": out}, attrs=attrs)
    return out


def relu6(x, threshold: float = 6.0, name=None) -> Variable:
    """min(max(x, 0), threshold)."""
    return _activation("relu6", x, {"threshold": float(threshold)}, name)


def hard_swish(x, threshold: float = 6.0, scale: float = 6.0, offset: float = 3.0,
               name=None) -> Variable:
    """x * min(max(x + offset, 0), threshold) / scale."""
    return _activation("hard_swish", x, {"threshold": float(threshold), "scale": float(scale),
                                         "offset": float(offset)}, name)


def hard_sigmoid(x, slope: float = 0.2, offset: float = 0.5, name=None) -> Variable:
    """min(max(slope * x + offset, 0), 1)."""
    return _activation("hard_sigmoid", x, {"slope": float(slope), "offset": float(offset)},
                       name)


def swish(x, beta: float = 1.0, name=None) -> Variable:
    """x * sigmoid(beta * x)."""
    return _activation("swish", x, {"beta": float(beta)}, name)


def gelu(x, approximate: bool = False, name=None) -> Variable:
    """x * Phi(x) (the tanh approximation when approximate)."""
    return _activation("gelu", x, {"approximate": bool(approximate)}, name)


def leaky_relu(x, alpha: float = 0.02, name=None) -> Variable:
    """x if x > 0 else alpha * x."""
    return _activation("leaky_relu", x, {"alpha": float(alpha)}, name)

