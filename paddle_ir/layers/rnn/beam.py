"""Beam search layers of Fluid 1.7's layers.rnn: beam_search and beam_search_decode.

The decoder of Paddle's machine-translation book runs a While loop that reads
the previous step's ids and scores from tensor arrays, scores the next words,
keeps the best with beam_search and writes them back; beam_search_decode then
traces the arrays back into sentences. See ops/rnn/beam_search.py for the LoD.
"""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper

__all__ = ["beam_search", "beam_search_decode"]


def beam_search(pre_ids: Variable, pre_scores: Variable, ids: Variable | None,
                scores: Variable, beam_size: int, end_id: int, level: int = 0,
                is_accumulated: bool = True, name: str | None = None,
                return_parent_idx: bool = False):
    """One beam-search step: (selected_ids, selected_scores[, parent_idx]), 2-level LoD."""
    helper = LayerHelper("beam_search", name)
    selected_scores = helper.create_variable_for_type_inference(pre_scores.dtype,
                                                                stop_gradient=True)
    selected_ids = helper.create_variable_for_type_inference(pre_ids.dtype, stop_gradient=True)
    parent_idx = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    inputs = {"pre_ids": pre_ids, "pre_scores": pre_scores, "scores": scores}
    if ids is not None:
        inputs["ids"] = ids
    helper.append_op("beam_search", inputs=inputs,
                     outputs={"selected_ids": selected_ids, "selected_scores": selected_scores,
                              "parent_idx": parent_idx},
                     attrs={"level": int(level), "beam_size": int(beam_size),
                            "end_id": int(end_id), "is_accumulated": bool(is_accumulated)})
    if return_parent_idx:
        return selected_ids, selected_scores, parent_idx
    return selected_ids, selected_scores


def beam_search_decode(ids: Variable, scores: Variable, beam_size: int, end_id: int,
                       name: str | None = None):
    """(sentence_ids, sentence_scores): every source's hypotheses, best first, 2-level LoD."""
    helper = LayerHelper("beam_search_decode", name)
    sentence_ids = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    sentence_scores = helper.create_variable_for_type_inference(scores.dtype,
                                                                stop_gradient=True)
    helper.append_op("beam_search_decode", inputs={"Ids": ids, "Scores": scores},
                     outputs={"SentenceIds": sentence_ids, "SentenceScores": sentence_scores},
                     attrs={"beam_size": int(beam_size), "end_id": int(end_id)})
    return sentence_ids, sentence_scores
