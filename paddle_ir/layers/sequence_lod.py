"""Fluid 1.7's layers.sequence_lod: sequence layers over LoD tensors, with Paddle
Fluid's names and signatures.

    words = data("words", [-1, 1], dtype="int64", lod_level=1)
    emb = embedding(words, size=[vocab, 32], is_sparse=True)
    sentence = sequence_pool(emb, "sum")          # one row per sequence, LoD dropped
    conv = sequence_conv(emb, num_filters=64, filter_size=3, act="tanh")   # [T, 64], same LoD

Each layer appends one op; the op's InferShape sets the output's lod_level
(sequence_pool drops a level, sequence_unpad makes one, ...), and an input
without a LoD fails here, at build time, naming the line that built it.
"""

from __future__ import annotations

from paddle_ir.core.dtypes import convert_dtype, from_numpy_dtype
from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper, append_bias
from paddle_ir.layers.tensor import fill_constant

__all__ = ["sequence_concat", "sequence_conv", "sequence_enumerate", "sequence_expand",
           "sequence_expand_as", "sequence_first_step", "sequence_last_step", "sequence_mask",
           "sequence_pad", "sequence_pool", "sequence_reshape", "sequence_reverse",
           "sequence_scatter", "sequence_slice", "sequence_softmax", "sequence_unpad"]


def sequence_pool(input: Variable, pool_type: str, is_test: bool = False,  # noqa: A002
                  pad_value: float = 0.0) -> Variable:
    """Pool each sequence of the last LoD level to one row.

    pool_type: "sum", "average", "sqrt", "max", "last" or "first" (any case).
    Empty sequences give `pad_value`. The result has one LoD level fewer.
    """
    helper = LayerHelper("sequence_pool")
    pooltype = str(pool_type).upper()
    out = helper.create_variable_for_type_inference(input.dtype)
    outputs = {"Out": out}
    if pooltype == "MAX":  # the row each feature came from, for the gradient
        outputs["MaxIndex"] = helper.create_variable_for_type_inference("int32",
                                                                        stop_gradient=True)
    helper.append_op("sequence_pool", inputs={"X": input}, outputs=outputs,
                     attrs={"pooltype": pooltype, "is_test": bool(is_test),
                            "pad_value": float(pad_value)})
    return out


def sequence_first_step(input: Variable) -> Variable:  # noqa: A002
    """The first row of each sequence (sequence_pool with "first")."""
    return sequence_pool(input, "first")


def sequence_last_step(input: Variable) -> Variable:  # noqa: A002
    """The last row of each sequence (sequence_pool with "last")."""
    return sequence_pool(input, "last")


def sequence_expand(x: Variable, y: Variable, ref_level: int = -1, name=None) -> Variable:
    """Repeat x's sequences (or rows, if x has no LoD) as y's LoD level `ref_level` says."""
    helper = LayerHelper("sequence_expand", name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("sequence_expand", inputs={"X": x, "Y": y}, outputs={"Out": out},
                     attrs={"ref_level": int(ref_level)})
    return out


def sequence_softmax(input: Variable, use_cudnn: bool = False, name=None) -> Variable:  # noqa: A002
    """A softmax over the steps of each sequence; input is [rows] or [rows, 1]."""
    helper = LayerHelper("sequence_softmax", name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("sequence_softmax", inputs={"X": input}, outputs={"Out": out})
    return out


def sequence_concat(input: list[Variable], name=None) -> Variable:  # noqa: A002
    """Join the i-th sequences of all inputs into the i-th output sequence."""
    helper = LayerHelper("sequence_concat", name)
    out = helper.create_variable_for_type_inference(input[0].dtype)
    helper.append_op("sequence_concat", inputs={"X": list(input)}, outputs={"Out": out})
    return out


def sequence_pad(x: Variable, pad_value, maxlen: int | None = None,
                 name=None) -> tuple[Variable, Variable]:
    """(padded [num_sequences, maxlen, ...], lengths [num_sequences] int64).

    pad_value is a Variable ([1], or one step's shape) as in Paddle, or a number.
    maxlen None pads to the longest sequence of the batch.
    """
    helper = LayerHelper("sequence_pad", name)
    if not isinstance(pad_value, Variable):
        pad_value = fill_constant([1], x.dtype, pad_value)
    out = helper.create_variable_for_type_inference(x.dtype)
    length = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("sequence_pad", inputs={"X": x, "PadValue": pad_value},
                     outputs={"Out": out, "Length": length},
                     attrs={"padded_length": -1 if maxlen is None else int(maxlen)})
    return out, length


def sequence_unpad(x: Variable, length: Variable, name=None) -> Variable:
    """Strip the padding: x [n, L, ...] and lengths [n] give a 1-level LoD tensor."""
    helper = LayerHelper("sequence_unpad", name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("sequence_unpad", inputs={"X": x, "Length": length},
                     outputs={"Out": out})
    return out


def sequence_mask(x: Variable, maxlen=None, dtype="int64", name=None) -> Variable:
    """y[..., j] = (j < x[...]); maxlen is an int, a 1-element Variable, or None (max(x))."""
    helper = LayerHelper("sequence_mask", name)
    dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    inputs = {"X": x}
    attrs = {"out_dtype": from_numpy_dtype(dtype), "maxlen": -1}
    if isinstance(maxlen, Variable):
        inputs["MaxLenTensor"] = maxlen
    elif maxlen is not None:
        attrs["maxlen"] = int(maxlen)
    helper.append_op("sequence_mask", inputs=inputs, outputs={"Y": out}, attrs=attrs)
    return out


def sequence_reverse(x: Variable, name=None) -> Variable:
    """Reverse the rows of each sequence of the last LoD level."""
    helper = LayerHelper("sequence_reverse", name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("sequence_reverse", inputs={"X": x}, outputs={"Y": out})
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


def _seq(op_type: str, inputs: dict, attrs=None, name=None, dtype=None) -> Variable:
    helper = LayerHelper(op_type, name)
    out = helper.create_variable_for_type_inference(dtype or next(iter(inputs.values())).dtype)
    helper.append_op(op_type, inputs=inputs, outputs={"Out": out}, attrs=attrs)
    return out


def sequence_enumerate(input: Variable, win_size: int, pad_value: int = 0,  # noqa: A002
                       name=None) -> Variable:
    """[N, win_size]: each id with the win_size - 1 ids after it in its sequence."""
    return _seq("sequence_enumerate", {"X": input},
                {"win_size": int(win_size), "pad_value": int(pad_value)}, name)


def sequence_expand_as(x: Variable, y: Variable, name=None) -> Variable:
    """Row i of x repeated as many times as y's i-th sequence is long; y's LoD."""
    return _seq("sequence_expand_as", {"X": x, "Y": y}, name=name)


def sequence_reshape(input: Variable, new_dim: int) -> Variable:  # noqa: A002
    """Each sequence's rows re-cut to width new_dim."""
    return _seq("sequence_reshape", {"X": input}, {"new_dim": int(new_dim)})


def sequence_scatter(input: Variable, index: Variable, updates: Variable,  # noqa: A002
                     name=None) -> Variable:
    """input with updates added at [i, index[j]] for the j of index's i-th sequence."""
    return _seq("sequence_scatter", {"X": input, "Ids": index, "Updates": updates}, name=name)


def sequence_slice(input: Variable, offset: Variable, length: Variable,  # noqa: A002
                   name=None) -> Variable:
    """The slice [offset[i], offset[i] + length[i]) of each sequence."""
    return _seq("sequence_slice", {"X": input, "Offset": offset, "Length": length}, name=name)
