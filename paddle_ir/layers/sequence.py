"""Sequence layers over LoD tensors, with Paddle Fluid's names and signatures.

    words = data("words", [-1, 1], dtype="int64", lod_level=1)
    emb = embedding(words, size=[vocab, 32], is_sparse=True)
    sentence = sequence_pool(emb, "sum")          # one row per sequence, LoD dropped

Each layer appends one op; the op's InferShape sets the output's lod_level
(sequence_pool drops a level, sequence_unpad makes one, ...), and an input
without a LoD fails here, at build time, naming the line that built it.
"""

from __future__ import annotations

from paddle_ir.core.dtypes import convert_dtype, from_numpy_dtype
from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.layers.tensor import fill_constant


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


def lod_reset(x: Variable, y: Variable | None = None, target_lod=None) -> Variable:
    """x's data with y's LoD (or y's values as offsets), or with `target_lod` (offsets)."""
    helper = LayerHelper("lod_reset")
    out = helper.create_variable_for_type_inference(x.dtype)
    if y is not None:
        helper.append_op("lod_reset", inputs={"X": x, "Y": y}, outputs={"Out": out})
    elif target_lod is not None:
        helper.append_op("lod_reset", inputs={"X": x}, outputs={"Out": out},
                         attrs={"target_lod": [int(v) for v in target_lod]})
    else:
        raise ValueError("lod_reset needs y or target_lod (offsets such as [0, 2, 5])")
    return out


def lod_append(x: Variable, level) -> Variable:
    """x with one more LoD level below its own: `level` is offsets (a list) or a Variable."""
    helper = LayerHelper("lod_append")
    out = helper.create_variable_for_type_inference(x.dtype)
    if isinstance(level, Variable):
        helper.append_op("lod_reset", inputs={"X": x, "Y": level}, outputs={"Out": out},
                         attrs={"append": True})
    else:
        helper.append_op("lod_reset", inputs={"X": x}, outputs={"Out": out},
                         attrs={"target_lod": [int(v) for v in level], "append": True})
    return out


def sequence_reverse(x: Variable, name=None) -> Variable:
    """Reverse the rows of each sequence of the last LoD level."""
    helper = LayerHelper("sequence_reverse", name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("sequence_reverse", inputs={"X": x}, outputs={"Y": out})
    return out
