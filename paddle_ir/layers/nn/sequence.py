"""The LoD layers Fluid 1.7 keeps in layers.nn, not sequence_lod: lod_reset, lod_append
and ctc_greedy_decoder.
"""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper, _op
from paddle_ir.layers.nn.dense import topk

__all__ = ["ctc_greedy_decoder", "lod_append", "lod_reset"]


def ctc_greedy_decoder(input: Variable, blank: int, name=None) -> Variable:  # noqa: A002
    """The best path of CTC probabilities per sequence: argmax ids, repeats merged, blanks
    dropped (a LoDTensor of int64 ids)."""
    _, ids = topk(input, 1)
    return _op("ctc_align", {"Input": ids}, ["Output"],
               {"blank": int(blank), "merge_repeated": True}, name)


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
