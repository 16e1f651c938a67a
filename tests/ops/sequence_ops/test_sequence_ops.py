"""sequence_softmax, sequence_concat and sequence_reverse against numpy loops."""

import numpy as np
import pytest

import paddle_ir as pir
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(11)


def split(x, lengths):
    return np.split(x, np.cumsum(lengths)[:-1])


# --- sequence_softmax ----------------------------------------------------------------------------


def reference_softmax(x, lengths):
    parts = []
    for seq in split(x.astype(np.float64), lengths):
        e = np.exp(seq - seq.max()) if seq.size else seq
        parts.append(e / e.sum() if seq.size else seq)
    return np.concatenate(parts).astype(x.dtype)


@pytest.mark.parametrize("shape", [(10,), (10, 1)])
def test_softmax_within_each_sequence(shape):
    lengths = [3, 0, 1, 6]
    x = pir.create_lod_tensor(rng.uniform(-3, 3, shape).astype(np.float32), [lengths])
    want = pir.create_lod_tensor(reference_softmax(x.numpy(), lengths), [lengths])
    got = check_op("sequence_softmax", {"X": x}, {}, {"Out": want})
    sums = [s.sum() for s in split(got["Out"][0].numpy(), lengths) if s.size]
    np.testing.assert_allclose(sums, 1.0, rtol=1e-6)


def test_softmax_uses_the_last_level_and_keeps_both():
    lod = [[2, 1], [2, 3, 4]]
    x = pir.create_lod_tensor(rng.uniform(-3, 3, (9, 1)).astype(np.float64), lod)
    want = pir.create_lod_tensor(reference_softmax(x.numpy(), lod[1]), lod)
    check_op("sequence_softmax", {"X": x}, {}, {"Out": want})


def test_softmax_of_large_scores_is_finite():
    x = pir.create_lod_tensor(np.array([[1000.0], [1001.0], [-1000.0]], np.float32), [[2, 1]])
    want = pir.create_lod_tensor(reference_softmax(x.numpy(), [2, 1]), [[2, 1]])
    check_op("sequence_softmax", {"X": x}, {}, {"Out": want})


def test_softmax_gradient():
    x = pir.create_lod_tensor(rng.uniform(-1, 1, (7, 1)), [[3, 0, 4]])
    check_grad("sequence_softmax", {"X": x}, {})


def test_softmax_rejects_wide_rows_at_build_time():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 3], lod_level=1)
        with pytest.raises(pir.ProgramError, match=r"shape \[rows\] or \[rows, 1\], got \[-1, 3\]"):
            pir.layers.sequence_softmax(x)


# --- sequence_concat -----------------------------------------------------------------------------


def test_concat_paddles_example_sequence_by_sequence():
    # Paddle's sequence_concat example: X[0].lod = [[0, 3, 5]] X[0] = [1..5],
    # X[1].lod = [[0, 2, 4]] X[1] = [6..9] -> Out.lod = [[0, 5, 9]],
    # Out = [1, 2, 3, 6, 7, 4, 5, 8, 9].
    x0 = pir.create_lod_tensor(np.arange(1, 6, dtype=np.float32).reshape(5, 1), [[3, 2]])
    x1 = pir.create_lod_tensor(np.arange(6, 10, dtype=np.float32).reshape(4, 1), [[2, 2]])
    want = pir.create_lod_tensor(
        np.array([1, 2, 3, 6, 7, 4, 5, 8, 9], np.float32).reshape(9, 1), [[5, 4]])
    got = check_op("sequence_concat", {"X": [("x0", x0), ("x1", x1)]}, {}, {"Out": want})
    assert got["Out"][0].lod() == [[0, 5, 9]]


def test_concat_three_inputs_with_empty_sequences_against_a_loop():
    lengths = [[2, 0, 1], [0, 0, 3], [1, 2, 0]]
    xs = [pir.create_lod_tensor(rng.rand(sum(n), 2, 3).astype(np.float64), [n])
          for n in lengths]
    parts = []
    for i in range(3):
        for x, n in zip(xs, lengths, strict=True):
            parts.append(split(x.numpy(), n)[i])
    want = pir.create_lod_tensor(np.concatenate(parts), [list(np.sum(lengths, axis=0))])
    check_op("sequence_concat", {"X": [(f"x{k}", x) for k, x in enumerate(xs)]}, {},
             {"Out": want})


def test_concat_gradient_splits_dout_back():
    xs = [pir.create_lod_tensor(rng.rand(3, 2), [[1, 2]]),
          pir.create_lod_tensor(rng.rand(4, 2), [[3, 1]])]
    check_grad("sequence_concat", {"X": [("a", xs[0]), ("b", xs[1])]}, {})


def test_concat_needs_equal_sequence_counts():
    x0 = pir.create_lod_tensor(np.ones((3, 1), np.float32), [[1, 2]])
    x1 = pir.create_lod_tensor(np.ones((3, 1), np.float32), [[1, 1, 1]])
    with pytest.raises(pir.ProgramError, match=r"(?s)sequence_concat \(X=x0.*, x1.*same "
                                                r"number of sequences, got X\[0\] 2, X\[1\] 3"):
        check_op("sequence_concat", {"X": [("x0", x0), ("x1", x1)]}, {}, {})


def test_concat_build_time_checks():
    with pir.program_guard(pir.Program(), pir.Program()):
        a = pir.layers.data("a", [-1, 2], lod_level=1)
        b = pir.layers.data("b", [-1, 3], lod_level=1)
        c = pir.layers.data("c", [-1, 2], lod_level=2)
        with pytest.raises(pir.ProgramError, match=r"same dims after the first"):
            pir.layers.sequence_concat([a, b])
        with pytest.raises(pir.ProgramError, match=r"exactly 1 LoD level\(s\), got 'c'"):
            pir.layers.sequence_concat([a, c])
        assert pir.layers.sequence_concat([a, a]).lod_level == 1


# --- sequence_reverse ----------------------------------------------------------------------------


def test_reverse_each_sequence():
    lengths = [3, 2, 0, 1]
    x = pir.create_lod_tensor(np.arange(12, dtype=np.int64).reshape(6, 2), [lengths])
    want = np.concatenate([s[::-1] for s in split(x.numpy(), lengths)])
    check_op("sequence_reverse", {"X": x}, {}, {"Y": pir.create_lod_tensor(want, [lengths])})


def test_reverse_uses_the_last_level():
    lod = [[1, 1], [2, 3]]
    x = pir.create_lod_tensor(np.arange(5, dtype=np.float32).reshape(5, 1), lod)
    want = np.array([1, 0, 4, 3, 2], np.float32).reshape(5, 1)
    check_op("sequence_reverse", {"X": x}, {}, {"Y": pir.create_lod_tensor(want, lod)})


def test_reverse_gradient():
    x = pir.create_lod_tensor(rng.rand(6, 2), [[4, 0, 2]])
    check_grad("sequence_reverse", {"X": x}, {}, out_slot="Y")
