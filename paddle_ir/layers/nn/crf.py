"""Sequence tagging layers of Fluid 1.7's layers.nn: linear_chain_crf, crf_decoding and chunk_eval.

    emission = fc(hidden, size=num_tags)                        # [T, num_tags], lod_level 1
    cost = linear_chain_crf(emission, label, param_attr=ParamAttr(name="crfw"))
    path = crf_decoding(emission, param_attr=ParamAttr(name="crfw"))    # shares the transitions
    precision, recall, f1, *_ = chunk_eval(path, label, "IOB", num_chunk_types=3)

See ops/rnn/crf.py and ops/metrics/chunk_eval.py for the formulas and the transition layout.
"""

from __future__ import annotations

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper

__all__ = ["chunk_eval", "crf_decoding", "linear_chain_crf"]


def linear_chain_crf(input: Variable, label: Variable, param_attr=None,  # noqa: A002
                     length: Variable | None = None) -> Variable:
    """The negative log-likelihood [N, 1] of each label sequence under a linear-chain CRF.

    input: unscaled emissions [T, D] with LoD (or [N, L, D] with `length`). The
    transition parameter is [D + 2, D] (start row, end row, tag-to-tag rows);
    name it in param_attr to decode with crf_decoding.
    """
    helper = LayerHelper("linear_chain_crf")
    size = input.shape[2] if length is not None else input.shape[1]
    if size is None or size < 0:
        raise InvalidProgramError(f"linear_chain_crf needs the tag number (the last dim of "
                                  f"{input.name!r}, shape {list(input.shape)}) to be known")
    transition = helper.create_parameter(ParamAttr.to_attr(param_attr), [size + 2, size],
                                         input.dtype)
    outputs = {slot: helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
               for slot in ("Alpha", "EmissionExps", "TransitionExps")}
    log_likelihood = helper.create_variable_for_type_inference(input.dtype)
    outputs["LogLikelihood"] = log_likelihood
    inputs = {"Emission": input, "Transition": transition, "Label": label}
    if length is not None:
        inputs["Length"] = length
    helper.append_op("linear_chain_crf", inputs=inputs, outputs=outputs)
    return log_likelihood


def crf_decoding(input: Variable, param_attr, label: Variable | None = None,  # noqa: A002
                 length: Variable | None = None) -> Variable:
    """The Viterbi tag path (int64 [T, 1], input's LoD) with the named transition parameter.

    With `label`, 1 where the path's tag equals the label's and 0 elsewhere.
    """
    attr = ParamAttr.to_attr(param_attr)
    block = LayerHelper("crf_decoding").main_program.global_block()
    if attr is None or attr.name is None or not block.has_var(attr.name):
        raise InvalidProgramError(
            f"crf_decoding reads the transition parameter that linear_chain_crf created; "
            f"param_attr must name it (got {param_attr!r})",
            hint="give both layers the same ParamAttr(name=...)")
    helper = LayerHelper("crf_decoding")
    path = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    inputs = {"Emission": input, "Transition": block.var(attr.name)}
    if label is not None:
        inputs["Label"] = label
    if length is not None:
        inputs["Length"] = length
    helper.append_op("crf_decoding", inputs=inputs, outputs={"ViterbiPath": path})
    return path


def chunk_eval(input: Variable, label: Variable, chunk_scheme: str,  # noqa: A002
               num_chunk_types: int, excluded_chunk_types=None,
               seq_length: Variable | None = None):
    """(precision, recall, f1_score, num_infer_chunks, num_label_chunks, num_correct_chunks)."""
    helper = LayerHelper("chunk_eval")
    floats = [helper.create_variable_for_type_inference("float32", stop_gradient=True)
              for _ in range(3)]
    counts = [helper.create_variable_for_type_inference("int64", stop_gradient=True)
              for _ in range(3)]
    inputs = {"Inference": input, "Label": label}
    if seq_length is not None:
        inputs["SeqLength"] = seq_length
    helper.append_op(
        "chunk_eval", inputs=inputs,
        outputs={"Precision": floats[0], "Recall": floats[1], "F1-Score": floats[2],
                 "NumInferChunks": counts[0], "NumLabelChunks": counts[1],
                 "NumCorrectChunks": counts[2]},
        attrs={"num_chunk_types": int(num_chunk_types), "chunk_scheme": chunk_scheme,
               "excluded_chunk_types": [int(t) for t in excluded_chunk_types or []]})
    return tuple(floats + counts)
