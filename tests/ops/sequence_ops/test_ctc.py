"""ctc_align, edit_distance (ops/sequence_ops/ctc.py) and sequence_erase."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op

rng = np.random.RandomState(41)


def lod(arr, lengths):
    t = LoDTensor(np.asarray(arr))
    t.set_recursive_sequence_lengths([lengths])
    return t


def test_ctc_align_and_sequence_erase():
    ids = np.array([[0], [1], [1], [0], [1], [2], [2], [3], [0], [0]], np.int64)
    lengths = [5, 2, 3]
    want, want_len = [], []
    for seq in np.split(ids[:, 0], np.cumsum(lengths)[:-1]):
        merged = [v for i, v in enumerate(seq) if i == 0 or v != seq[i - 1]]
        kept = [v for v in merged if v != 0]
        want += kept
        want_len.append(len(kept))
    check_op("ctc_align", {"Input": lod(ids, lengths)}, {"blank": 0},
             {"Output": lod(np.array(want, np.int64).reshape(-1, 1), want_len)})
    erased = [[v for v in seq if v not in (0, 2)]
              for seq in np.split(ids[:, 0], np.cumsum(lengths)[:-1])]
    check_op("sequence_erase", {"X": lod(ids, lengths)}, {"tokens": [0, 2]},
             {"Out": lod(np.array(sum(erased, []), np.int64).reshape(-1, 1),
                         [len(e) for e in erased])})


def _lev(a, b):
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        for j in range(len(b) + 1):
            if i == 0 or j == 0:
                d[i][j] = i + j
            else:
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1,
                              d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
    return d[-1][-1]


@pytest.mark.parametrize("normalized", [False, True])
def test_edit_distance(normalized):
    hyp_lens, ref_lens = [4, 0, 6, 3], [3, 2, 6, 5]
    hyps = rng.randint(0, 4, (sum(hyp_lens), 1)).astype(np.int64)
    refs = rng.randint(0, 4, (sum(ref_lens), 1)).astype(np.int64)
    hs = np.split(hyps[:, 0], np.cumsum(hyp_lens)[:-1])
    rs = np.split(refs[:, 0], np.cumsum(ref_lens)[:-1])
    want = np.array([[_lev(list(h), list(r)) / (len(r) if normalized else 1)]
                     for h, r in zip(hs, rs, strict=True)], np.float32)
    check_op("edit_distance", {"Hyps": lod(hyps, hyp_lens), "Refs": lod(refs, ref_lens)},
             {"normalized": normalized},
             {"Out": want, "SequenceNum": np.array([4], np.int64)})


I64 = np.array([[0], [1]], np.int64)


ERROR_CASES = [
    ("edit_distance", {"Hyps": lod(I64, [2]), "Refs": lod(np.ones((2, 1), np.int64), [1, 1])},
     {}, "Hyps has 1 sequences but Refs has 2"),
    ("edit_distance", {"Hyps": lod(I64, [2]), "Refs": lod(np.ones((0, 1), np.int64), [0])},
     {"normalized": True}, "a reference sequence is empty"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)


@pytest.mark.parametrize("normalized", [False, True])
def test_edit_distance_of_padded_rows_with_their_lengths(normalized):
    hyp_lens, ref_lens = [4, 0, 6], [3, 2, 6]
    hyps = rng.randint(0, 4, (3, 7)).astype(np.int64)  # padded past each length
    refs = rng.randint(0, 4, (3, 6)).astype(np.int64)
    want = np.array([[_lev(list(hyps[b, :hl]), list(refs[b, :rl])) / (rl if normalized else 1)]
                     for b, (hl, rl) in enumerate(zip(hyp_lens, ref_lens, strict=True))],
                    np.float32)
    check_op("edit_distance", {"Hyps": hyps, "Refs": refs,
                               "HypsLength": np.array(hyp_lens, np.int64),
                               "RefsLength": np.array(ref_lens, np.int64)},
             {"normalized": normalized}, {"Out": want, "SequenceNum": np.array([3], np.int64)})


def test_edit_distance_padded_lengths_are_checked():
    ids = np.zeros((2, 3), np.int64)
    with pytest.raises(PaddleIRError, match=r"HypsLength must hold one length in \[0, 3\]"):
        check_op("edit_distance", {"Hyps": ids, "Refs": ids,
                                   "HypsLength": np.array([1, 4], np.int64),
                                   "RefsLength": np.array([1, 1], np.int64)})
    with pytest.raises(PaddleIRError, match="give both HypsLength and RefsLength"):
        check_op("edit_distance", {"Hyps": ids, "Refs": ids,
                                   "HypsLength": np.array([1, 1], np.int64)})


def test_ctc_align_padded_form_with_its_lengths():
    ids = np.array([[1, 1, 0, 2, 2, 0], [0, 3, 3, 3, 1, 9], [2, 0, 2, 5, 5, 5]], np.int64)
    lengths = np.array([[5], [5], [3]], np.int64)  # past a length: padding, ignored
    want = np.array([[1, 2, -1, -1, -1, -1], [3, 1, -1, -1, -1, -1], [2, 2, -1, -1, -1, -1]],
                    np.int64)
    check_op("ctc_align", {"Input": ids, "InputLength": lengths},
             {"blank": 0, "merge_repeated": True, "padding_value": -1},
             {"Output": want, "OutputLength": np.array([[2], [2], [2]], np.int64)},
             outputs={"Output": 1, "OutputLength": 1})
    with pytest.raises(PaddleIRError, match=r"InputLength must hold one length in \[0, 6\]"):
        check_op("ctc_align", {"Input": ids, "InputLength": np.array([[7], [1], [1]], np.int64)},
                 outputs={"Output": 1, "OutputLength": 1})
