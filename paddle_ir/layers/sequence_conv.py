"""sequence_conv: Fluid's convolution over the steps of each sequence
(ops/sequence_ops/sequence_conv.py).

    emb = embedding(words, size=[vocab, 32])                      # [T, 32], lod_level 1
    conv = sequence_conv(emb, num_filters=64, filter_size=3, act="tanh")   # [T, 64], same LoD
"""

from __future__ import annotations

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper

__all__ = ["append_bias", "sequence_conv"]


def append_bias(helper: LayerHelper, x: Variable, bias_attr, size: int) -> Variable:
    """x + b along axis 1 with a new [size] bias (Fluid's append_bias_op); bias_attr=False: x."""
    attr = ParamAttr.to_attr(bias_attr)
    if attr is None:
        return x
    b = helper.create_parameter(attr, [size], x.dtype, is_bias=True)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("elementwise_add", inputs={"X": x, "Y": b}, outputs={"Out": out},
                     attrs={"axis": 1})
    return out


def sequence_conv(input: Variable, num_filters: int, filter_size: int = 3,  # noqa: A002
                  filter_stride: int = 1, padding: bool = True, padding_start: int | None = None,
                  bias_attr=None, param_attr=None, act: str | None = None,
                  name: str | None = None) -> Variable:
    """act(conv(input) + b): each output row sees `filter_size` rows of its own sequence.

    The window of row t starts at row t + padding_start (None: -(filter_size // 2),
    centred); rows outside the sequence read as zeros, so the output keeps the
    input's length and LoD. The filter `sequence_conv_N.w_0` is
    [filter_size * D, num_filters], the bias [num_filters] (bias_attr=False: none).
    `padding` is accepted and ignored, as in Fluid (the input is always padded).
    """
    if len(input.shape) != 2 or input.shape[1] < 0:
        raise InvalidProgramError(
            f"sequence_conv needs a 2-D input [T, D] with a known D, got {input.name!r} of "
            f"shape {list(input.shape)}")
    helper = LayerHelper("sequence_conv", name)
    dtype = input.dtype
    weight = helper.create_parameter(ParamAttr.to_attr(param_attr),
                                     [filter_size * input.shape[1], num_filters], dtype)
    if padding_start is None:
        padding_start = -int(filter_size // 2)
    pre_bias = helper.create_variable_for_type_inference(dtype)
    helper.append_op("sequence_conv", inputs={"X": input, "Filter": weight},
                     outputs={"Out": pre_bias},
                     attrs={"contextStride": int(filter_stride),
                            "contextStart": int(padding_start),
                            "contextLength": int(filter_size)})
    pre_act = append_bias(helper, pre_bias, bias_attr, num_filters)
    return helper.append_activation(pre_act, act)
