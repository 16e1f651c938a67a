"""chunk_eval (ops/metrics/chunk_eval.py): against a step-by-step extractor, errors."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import PaddleIRError, ShapeInferenceError
from tests.op_test import append_declared_op, check_op

rng = np.random.RandomState(11)


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


F, I64 = "float32", "int64"
CHUNK_OUT = ["Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks",
             "NumCorrectChunks"]

BUILD_ERRORS = [
    ("chunk_eval", {"Inference": ([-1, 1], I64, 1), "Label": ([-1, 1], I64, 1)}, CHUNK_OUT,
     {"num_chunk_types": 2, "chunk_scheme": "BIO"}, "chunk_scheme must be one of"),
    ("chunk_eval", {"Inference": ([-1, 1], I64, 1), "Label": ([-1, 2], I64, 1)}, CHUNK_OUT,
     {"num_chunk_types": 2}, "Inference's shape must be the same as Label's"),
    ("chunk_eval", {"Inference": ([-1, 1], I64, 0), "Label": ([-1, 1], I64, 0)}, CHUNK_OUT,
     {"num_chunk_types": 2}, "must be sequences \\(lod_level >= 1\\)"),
]


@pytest.mark.parametrize("op_type,inputs,outputs,attrs,message", BUILD_ERRORS)
def test_build_time_errors(op_type, inputs, outputs, attrs, message):
    with pytest.raises(ShapeInferenceError, match=message):
        append_declared_op(op_type, inputs, outputs, attrs)
