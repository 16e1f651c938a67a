"""Fluid 1.7's remaining sequence layers over ops/sequence_more.py."""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper

__all__ = ["sequence_enumerate", "sequence_expand_as", "sequence_reshape", "sequence_scatter",
           "sequence_slice"]


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
