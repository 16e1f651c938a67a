"""The error paths of the sequence_conv, CRF, chunk_eval, beam search and RNN-cell ops and
layers: each names the op, the variable and what was expected."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import InvalidProgramError, PaddleIRError, ShapeInferenceError
from tests.op_test import check_op


def build(op_type, inputs, outputs, attrs=None):
    """Append one op over declared variables: {slot: (shape, dtype, lod_level)}."""
    prog = pir.Program()
    block = prog.global_block()
    ins = {slot: block.create_var(name=f"in_{slot}", shape=shape, dtype=dtype,
                                  lod_level=lod)
           for slot, (shape, dtype, lod) in inputs.items()}
    outs = {slot: block.create_var(name=f"out_{slot}", dtype="float32") for slot in outputs}
    block.append_op(op_type, inputs=ins, outputs=outs, attrs=attrs or {})


F, I64 = "float32", "int64"
CRF_OUT = ["Alpha", "EmissionExps", "TransitionExps", "LogLikelihood"]
CHUNK_OUT = ["Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks",
             "NumCorrectChunks"]

BUILD_ERRORS = [
    ("linear_chain_crf", {"Emission": ([-1, 3], F, 1), "Transition": ([5], F, 0),
                          "Label": ([-1, 1], I64, 1)}, CRF_OUT, {},
     "Input\\(Transition\\) must be 2-D"),
    ("linear_chain_crf", {"Emission": ([-1, 4], F, 1), "Transition": ([5, 3], F, 0),
                          "Label": ([-1, 1], I64, 1)}, CRF_OUT, {},
     "must equal the tag number D = 3"),
    ("linear_chain_crf", {"Emission": ([-1, 3], F, 1), "Transition": ([5, 3], F, 0),
                          "Label": ([-1, 1], I64, 1), "Length": ([-1], I64, 0)}, CRF_OUT, {},
     "must be 3-D \\(\\[N, L, D\\] with Length\\)"),
    ("linear_chain_crf", {"Emission": ([-1, 3], F, 1), "Transition": ([5, 3], F, 0),
                          "Label": ([-1, 2], I64, 1)}, CRF_OUT, {},
     "Input\\(Label\\) must be \\[T, 1\\]"),
    ("linear_chain_crf", {"Emission": ([-1, 3], F, 1), "Transition": ([5, 3], F, 0),
                          "Label": ([-1, 1], I64, 0)}, CRF_OUT, {},
     "Input\\(Label\\) of linear_chain_crf must be a sequence"),
    ("linear_chain_crf", {"Emission": ([-1, 5, 3], F, 0), "Transition": ([5, 3], F, 0),
                          "Label": ([-1, 5, 2], I64, 0), "Length": ([-1], I64, 0)}, CRF_OUT,
     {}, "must be \\[N, L\\] or \\[N, L, 1\\] in padding mode"),
    ("chunk_eval", {"Inference": ([-1, 1], I64, 1), "Label": ([-1, 1], I64, 1)}, CHUNK_OUT,
     {"num_chunk_types": 2, "chunk_scheme": "BIO"}, "chunk_scheme must be one of"),
    ("chunk_eval", {"Inference": ([-1, 1], I64, 1), "Label": ([-1, 2], I64, 1)}, CHUNK_OUT,
     {"num_chunk_types": 2}, "Inference's shape must be the same as Label's"),
    ("chunk_eval", {"Inference": ([-1, 1], I64, 0), "Label": ([-1, 1], I64, 0)}, CHUNK_OUT,
     {"num_chunk_types": 2}, "must be sequences \\(lod_level >= 1\\)"),
    ("beam_search", {"pre_ids": ([-1, 1], I64, 2), "pre_scores": ([-1, 1], F, 2),
                     "scores": ([-1], F, 2)}, ["selected_ids", "selected_scores"],
     {"beam_size": 2, "end_id": 1}, "Input\\(scores\\) must be \\[M, K\\]"),
    ("beam_search", {"pre_ids": ([-1, 1], I64, 2), "pre_scores": ([-1, 1], F, 2),
                     "scores": ([-1, 3], F, 2)}, ["selected_ids", "selected_scores"],
     {"beam_size": 0, "end_id": 1}, "beam_size must be > 0"),
    ("gru_unit", {"Input": ([-1, 6], F, 0), "HiddenPrev": ([-1, 2], F, 0),
                  "Weight": ([2, 6], F, 0)}, ["Gate", "ResetHiddenPrev", "Hidden"],
     {"activation": 7}, "activation must be 0 \\(identity\\)"),
    ("gru_unit", {"Input": ([-1, 6], F, 0), "HiddenPrev": ([-1, 2], F, 0),
                  "Weight": ([3, 6], F, 0)}, ["Gate", "ResetHiddenPrev", "Hidden"], {},
     "Weight must be \\[frame_size, frame_size \\* 3\\] = \\[2, 6\\]"),
    ("gru_unit", {"Input": ([-1, 6], F, 0), "HiddenPrev": ([-1, 2], F, 0),
                  "Weight": ([2, 6], F, 0), "Bias": ([1, 5], F, 0)},
     ["Gate", "ResetHiddenPrev", "Hidden"], {}, "Bias must be \\[1, frame_size \\* 3\\]"),
    ("lstm_unit", {"X": ([-1, 6], F, 0), "C_prev": ([-1, 2], F, 0)}, ["C", "H"], {},
     "X must be \\[N, 4D\\] for C_prev \\[N, D\\]"),
    ("expand", {"X": ([2, 3], F, 0)}, ["Out"], {"expand_times": [1, 0]},
     "expand_times must be >= 1"),
    ("cos_sim", {"X": ([-1, 3], F, 0), "Y": ([-1, 4], F, 0)}, ["Out", "XNorm", "YNorm"], {},
     "must agree in every dim but the first"),
    ("cos_sim", {"X": ([4, 3], F, 0), "Y": ([2, 3], F, 0)}, ["Out", "XNorm", "YNorm"], {},
     "Y must have X's rows \\(4\\) or one row"),
    ("unstack", {"X": ([2, 3], F, 0)}, ["Y"], {"axis": 2, "num": 2}, "axis must be in"),
]


@pytest.mark.parametrize("op_type,inputs,outputs,attrs,message", BUILD_ERRORS)
def test_build_time_errors(op_type, inputs, outputs, attrs, message):
    with pytest.raises(ShapeInferenceError, match=message):
        build(op_type, inputs, outputs, attrs)


def test_run_time_errors():
    x = np.zeros((4, 3))
    trans = np.zeros((5, 3))
    label = pir.create_lod_tensor(np.zeros((3, 1), np.int64), [[3]])
    with pytest.raises(PaddleIRError, match="LoD of Label covers 3 rows but Emission has 4"):
        check_op("linear_chain_crf", {"Emission": pir.create_lod_tensor(x, [[4]]),
                                      "Transition": trans, "Label": label})
    with pytest.raises(PaddleIRError, match="Length\\) must hold 2 lengths in \\[0, 2\\]"):
        check_op("crf_decoding", {"Emission": np.zeros((2, 2, 3)), "Transition": trans,
                                  "Length": np.array([1, 3], np.int64)})
    with pytest.raises(PaddleIRError, match="Label\\) has 3 tags but Emission has 4 steps"):
        check_op("crf_decoding", {"Emission": pir.create_lod_tensor(x, [[4]]),
                                  "Transition": trans, "Label": label})
    tags = pir.create_lod_tensor(np.array([[0], [9]], np.int64), [[2]])
    with pytest.raises(PaddleIRError, match="Input\\(Inference\\) should be in \\[0, 4\\]"):
        check_op("chunk_eval", {"Inference": tags, "Label": tags}, {"num_chunk_types": 2})
    ids = pir.create_lod_tensor(np.zeros((2, 1), np.int64), [[2], [1, 1]])
    scores = pir.create_lod_tensor(np.zeros((3, 2), np.float32), [[3], [1, 1, 1]])
    with pytest.raises(PaddleIRError, match="one entry per row of scores \\(3\\), got 2"):
        check_op("beam_search", {"pre_ids": ids, "pre_scores": ids, "scores": scores},
                 {"beam_size": 2, "end_id": 1})
    with pytest.raises(PaddleIRError, match="num \\(2\\) must equal X.shape\\[0\\]"):
        prog = pir.Program()
        with pir.program_guard(prog, pir.Program()):
            a = layers.data("a", [-1, 2])
            parts = layers.unstack(a, axis=0, num=2)
        pir.Executor().run(prog, feed={"a": np.zeros((3, 2), np.float32)}, fetch_list=parts)


def test_decode_needs_two_level_steps():
    from paddle_ir.core.tensor_array import LoDTensorArray
    from paddle_ir.ops.rnn.beam_search import beam_search_decode_kernel

    one_level = pir.create_lod_tensor(np.zeros((1, 1), np.int64), [[1]])
    arr = LoDTensorArray([one_level], np.int64)
    with pytest.raises(PaddleIRError, match="step 0 of Ids has 1 LoD levels"):
        beam_search_decode_kernel({"beam_size": 1, "end_id": 1}, arr, arr)


def test_layer_errors():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = layers.data("x", [-1, 3, 2], lod_level=1)
        with pytest.raises(InvalidProgramError, match="sequence_conv needs a 2-D input"):
            layers.sequence_conv(x, num_filters=2)
        e = layers.data("e", [-1, 3], lod_level=1)
        with pytest.raises(InvalidProgramError, match="param_attr must name it"):
            layers.crf_decoding(e, param_attr=None)
        with pytest.raises(InvalidProgramError, match="param_attr must name it"):
            layers.crf_decoding(e, param_attr=pir.ParamAttr(name="no_such_param"))
        u = layers.data("u", [-1, -1])
        with pytest.raises(InvalidProgramError, match="unstack needs num"):
            layers.unstack(u, axis=1)
        with pytest.raises(InvalidProgramError, match="size must be 3 \\* D"):
            layers.gru_unit(layers.data("g", [-1, 6]), layers.data("h", [-1, 2]), size=7)
        with pytest.raises(InvalidProgramError, match="needs the tag number"):
            layers.linear_chain_crf(u, layers.data("lab", [-1, 1], dtype="int64", lod_level=1))
