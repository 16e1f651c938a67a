"""linear_chain_crf and crf_decoding (ops/rnn/crf.py): against brute force, gradients,
errors."""

import itertools

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import PaddleIRError, ShapeInferenceError
from tests.op_test import append_declared_op, check_grad, check_op

rng = np.random.RandomState(11)
TAGS = 3


def path_score(x, trans, path):
    s = trans[0, path[0]] + trans[1, path[-1]] + sum(x[t, p] for t, p in enumerate(path))
    return s + sum(trans[2 + a, b] for a, b in zip(path, path[1:], strict=False))


def brute_force(x, trans):
    """(log Z, best path) by listing every path."""
    paths = list(itertools.product(range(trans.shape[1]), repeat=len(x)))
    scores = np.array([path_score(x, trans, p) for p in paths])
    best = paths[int(np.argmax(scores))]
    return np.log(np.exp(scores - scores.max()).sum()) + scores.max(), np.array(best)


def crf_inputs(lengths, dtype=np.float64):
    x = rng.uniform(-2, 2, (sum(lengths), TAGS)).astype(dtype)
    trans = rng.uniform(-1, 1, (TAGS + 2, TAGS)).astype(dtype)
    label = rng.randint(0, TAGS, (sum(lengths), 1)).astype(np.int64)
    return x, trans, label


def expected_crf(x, trans, label, lengths):
    nll, alpha, pos = [], [], 0
    for n in lengths:
        seq, tags = x[pos:pos + n].astype(np.float64), label[pos:pos + n, 0]
        if n == 0:
            nll.append(0.0)
            continue
        log_z, _ = brute_force(seq, trans)
        nll.append(log_z - path_score(seq, trans, tags))
        a = trans[0] + seq[0]                       # forward vectors, scaled to sum 1 each step
        alpha.append(np.exp(a) / np.exp(a).sum())
        for t in range(1, n):
            a = np.log(np.exp(a[:, None] + trans[2:]).sum(0)) + seq[t]
            alpha.append(np.exp(a) / np.exp(a).sum())
        pos += n
    return np.array(nll).reshape(-1, 1), np.array(alpha).reshape(-1, TAGS)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_negative_log_likelihood_and_alpha_match_brute_force(dtype):
    lengths = [3, 1, 0, 4]
    x, trans, label = crf_inputs(lengths, dtype)
    nll, alpha = expected_crf(x, trans.astype(np.float64), label, lengths)
    exps = np.exp(x - x.max(1, keepdims=True))
    check_op("linear_chain_crf",
             {"Emission": pir.create_lod_tensor(x, [lengths]), "Transition": trans,
              "Label": pir.create_lod_tensor(label, [lengths])}, {},
             {"LogLikelihood": nll.astype(dtype), "Alpha": alpha.astype(dtype),
              "EmissionExps": exps, "TransitionExps": np.exp(trans)},
             atol=1e-5, rtol=1e-4)


def test_gradient_matches_finite_differences():
    lengths = [3, 1, 2]
    x, trans, label = crf_inputs(lengths)
    check_grad("linear_chain_crf",
               {"Emission": pir.create_lod_tensor(x, [lengths]), "Transition": trans,
                "Label": pir.create_lod_tensor(label, [lengths])},
               wrt=("Emission", "Transition"), out_slot="LogLikelihood", atol=1e-6)


def test_padded_batch_with_length_equals_the_lod_batch():
    lengths = [3, 1, 2]
    x, trans, label = crf_inputs(lengths)
    nll, alpha = expected_crf(x, trans, label, lengths)
    padded = np.zeros((3, 3, TAGS))
    padded_label = np.zeros((3, 3), dtype=np.int64)
    padded_alpha = np.zeros((3, 3, TAGS))
    pos = 0
    for n_, n in enumerate(lengths):
        padded[n_, :n], padded_label[n_, :n] = x[pos:pos + n], label[pos:pos + n, 0]
        padded_alpha[n_, :n] = alpha[pos:pos + n]
        pos += n
    inputs = {"Emission": padded, "Transition": trans, "Label": padded_label,
              "Length": np.array(lengths, dtype=np.int64)}
    check_op("linear_chain_crf", inputs, {}, {"LogLikelihood": nll, "Alpha": padded_alpha},
             atol=1e-6)
    check_grad("linear_chain_crf", inputs, wrt=("Emission", "Transition"),
               out_slot="LogLikelihood")
    paths = check_op("crf_decoding", {k: inputs[k] for k in ("Emission", "Transition",
                                                             "Length")})["ViterbiPath"][0]
    for n_, n in enumerate(lengths):
        np.testing.assert_array_equal(paths.numpy()[n_, :n], brute_force(padded[n_, :n],
                                                                         trans)[1])
        assert not paths.numpy()[n_, n:].any()


def test_viterbi_path_matches_brute_force_and_keeps_lod():
    lengths = [4, 1, 3, 0, 5]
    x, trans, label = crf_inputs(lengths)
    best, pos = [], 0
    for n in lengths:
        if n:
            best.append(brute_force(x[pos:pos + n], trans)[1])
        pos += n
    path = np.concatenate(best).reshape(-1, 1)
    emission = pir.create_lod_tensor(x, [lengths])
    check_op("crf_decoding", {"Emission": emission, "Transition": trans},
             {}, {"ViterbiPath": pir.create_lod_tensor(path, [lengths])})
    label[:, 0] = path[:, 0]
    label[::3, 0] = (label[::3, 0] + 1) % TAGS      # every third tag wrong
    right = (label == path).astype(np.int64)
    check_op("crf_decoding", {"Emission": emission, "Transition": trans,
                              "Label": pir.create_lod_tensor(label, [lengths])},
             {}, {"ViterbiPath": pir.create_lod_tensor(right, [lengths])})


def test_crf_build_errors():
    def build(trans_shape, emission_lod=1):
        prog = pir.Program()
        b = prog.global_block()
        e = b.create_var(name="e", shape=[-1, 3], dtype="float32", lod_level=emission_lod)
        t = b.create_var(name="t", shape=trans_shape, dtype="float32")
        o = b.create_var(name="o", dtype="int64")
        b.append_op("crf_decoding", inputs={"Emission": e, "Transition": t},
                    outputs={"ViterbiPath": o})
    with pytest.raises(ShapeInferenceError, match="must be \\[D \\+ 2, D\\]"):
        build([4, 3])
    with pytest.raises(ShapeInferenceError, match="must be a sequence"):
        build([5, 3], emission_lod=0)


def test_label_out_of_range_fails_at_run_time():
    x, trans, label = crf_inputs([2])
    label[0, 0] = TAGS
    with pytest.raises(PaddleIRError, match="tags outside \\[0, 3\\)"):
        check_op("linear_chain_crf", {"Emission": pir.create_lod_tensor(x, [[2]]),
                                      "Transition": trans,
                                      "Label": pir.create_lod_tensor(label, [[2]])})


F, I64 = "float32", "int64"
CRF_OUT = ["Alpha", "EmissionExps", "TransitionExps", "LogLikelihood"]

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
]


@pytest.mark.parametrize("op_type,inputs,outputs,attrs,message", BUILD_ERRORS)
def test_build_time_errors(op_type, inputs, outputs, attrs, message):
    with pytest.raises(ShapeInferenceError, match=message):
        append_declared_op(op_type, inputs, outputs, attrs)


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
