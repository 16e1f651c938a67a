"""linear_chain_crf and crf_decoding against brute force over every tag path, finite
differences for the gradient, and chunk_eval against a step-by-step chunk extractor."""

import itertools

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import PaddleIRError, ShapeInferenceError
from tests.op_test import check_grad, check_op

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


# --- chunk_eval --------------------------------------------------------------------------

SCHEMES = {"IOB": (2, 0, 1, -1, -1), "IOE": (2, -1, 0, 1, -1), "IOBES": (4, 0, 1, 2, 3),
           "plain": (1, -1, -1, -1, -1)}


def reference_chunks(tags, scheme, num_types):
    """Chunks of one sequence read step by step as the tagging schemes define them."""
    ntt, b_tag, i_tag, e_tag, s_tag = SCHEMES[scheme]
    out, start, cur, prev_tag = [], None, None, -1
    for pos, label in enumerate(list(tags) + [None]):
        if label is None:
            tag, typ = None, num_types
        else:
            tag, typ = label % ntt, label // ntt
        closes = cur is not None and (
            typ != cur or tag in (b_tag, s_tag) and tag is not None and tag >= 0
            or prev_tag in (e_tag, s_tag) and prev_tag >= 0)
        if scheme == "plain":
            closes = cur is not None and typ != cur
        if closes:
            out.append((start, pos - 1, cur))
            cur = None
        if typ != num_types and cur is None:
            start, cur = pos, typ
        prev_tag = tag
    return out


def chunk_counts(infer, label, lengths, scheme, num_types, excluded=()):
    n_i = n_l = n_c = 0
    pos = 0
    for n in lengths:
        a = [c for c in reference_chunks(infer[pos:pos + n], scheme, num_types)
             if c[2] not in excluded]
        b = [c for c in reference_chunks(label[pos:pos + n], scheme, num_types)
             if c[2] not in excluded]
        n_i, n_l, n_c = n_i + len(a), n_l + len(b), n_c + len(set(a) & set(b))
        pos += n
    return n_i, n_l, n_c


@pytest.mark.parametrize("scheme", ["IOB", "IOE", "IOBES", "plain"])
@pytest.mark.parametrize("excluded", [(), (1,)])
def test_chunk_counts_match_a_step_by_step_extractor(scheme, excluded):
    num_types = 3
    top = num_types * SCHEMES[scheme][0]        # the "outside" tag id
    lengths = [7, 0, 1, 12, 5, 9]
    label = rng.randint(0, top + 1, sum(lengths)).astype(np.int64)
    infer = label.copy()
    flip = rng.rand(label.size) < 0.3
    infer[flip] = rng.randint(0, top + 1, flip.sum())
    n_i, n_l, n_c = chunk_counts(infer, label, lengths, scheme, num_types, excluded)
    p = n_c / n_i if n_i else 0.0
    r = n_c / n_l if n_l else 0.0
    f1 = 2 * p * r / (p + r) if n_c else 0.0
    assert n_c > 0 and n_c < n_l
    check_op("chunk_eval", {"Inference": pir.create_lod_tensor(infer[:, None], [lengths]),
                            "Label": pir.create_lod_tensor(label[:, None], [lengths])},
             {"num_chunk_types": num_types, "chunk_scheme": scheme,
              "excluded_chunk_types": list(excluded)},
             {"Precision": np.float32([p]), "Recall": np.float32([r]),
              "F1-Score": np.float32([f1]), "NumInferChunks": np.int64([n_i]),
              "NumLabelChunks": np.int64([n_l]), "NumCorrectChunks": np.int64([n_c])})


def test_chunk_eval_doc_example_and_padded_input():
    # IOB with B-ORG 0, I-ORG 1, B-PER 2, I-PER 3, B-LOC 4, I-LOC 5, O 6 (Paddle's doc).
    label = np.array([2, 3, 6, 6, 0, 1, 1, 1, 6, 4], dtype=np.int64)
    infer = np.array([2, 3, 6, 6, 0, 1, 6, 1, 6, 4], dtype=np.int64)   # ORG split in two
    got = check_op("chunk_eval", {"Inference": infer.reshape(2, 5),
                                  "Label": label.reshape(2, 5),
                                  "SeqLength": np.array([5, 5], dtype=np.int64)},
                   {"num_chunk_types": 3})
    # rows 0-4 | 5-9: label PER, ORG | ORG, LOC; the inference splits the third chunk in two
    n_i, n_l, n_c = chunk_counts(infer, label, [5, 5], "IOB", 3)
    counts = [int(np.asarray(got[s][0]).reshape(-1)[0])
              for s in ("NumInferChunks", "NumLabelChunks", "NumCorrectChunks")]
    assert counts == [n_i, n_l, n_c] == [5, 4, 3]
    assert reference_chunks(label, "IOB", 3) == [(0, 1, 1), (4, 7, 0), (9, 9, 2)]


def test_chunk_eval_rejects_different_lods():
    x = np.zeros((4, 1), dtype=np.int64)
    with pytest.raises(PaddleIRError, match="same LoD"):
        check_op("chunk_eval", {"Inference": pir.create_lod_tensor(x, [[2, 2]]),
                                "Label": pir.create_lod_tensor(x, [[1, 3]])},
                 {"num_chunk_types": 2})
