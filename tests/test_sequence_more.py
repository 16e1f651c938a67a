"""sequence_enumerate / expand_as / reshape / scatter / slice against per-sequence Python
loops, with LoD in and out, gradients and the LoD errors."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import PaddleIRError, ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(29)


def lod(arr, lengths):
    t = LoDTensor(np.asarray(arr))
    t.set_recursive_sequence_lengths([lengths])
    return t


def _seqs(arr, lengths):
    out, start = [], 0
    for n in lengths:
        out.append(arr[start:start + n])
        start += n
    return out


def test_sequence_enumerate():
    ids = np.array([[1], [2], [3], [4], [5], [6]], dtype=np.int64)
    lengths = [3, 0, 1, 2]
    want = []
    for seq in _seqs(ids[:, 0], lengths):
        for j in range(len(seq)):
            want.append([seq[j + k] if j + k < len(seq) else 9 for k in range(3)])
    check_op("sequence_enumerate", {"X": lod(ids, lengths)}, {"win_size": 3, "pad_value": 9},
             {"Out": lod(np.array(want, np.int64), lengths)})


def test_sequence_expand_as():
    x = rng.uniform(-1, 1, (3, 2))
    lengths = [2, 0, 3]
    want = np.concatenate([np.repeat(x[i:i + 1], n, 0) for i, n in enumerate(lengths)])
    y = lod(np.zeros((5, 1)), lengths)
    check_op("sequence_expand_as", {"X": x, "Y": y}, {}, {"Out": lod(want, lengths)})
    check_grad("sequence_expand_as", {"X": x, "Y": y})
    with pytest.raises(PaddleIRError, match="X has 2 rows but Y's last LoD level has 3"):
        check_op("sequence_expand_as", {"X": x[:2], "Y": y})


def test_sequence_reshape():
    x = rng.uniform(-1, 1, (5, 4))
    lengths = [2, 3]
    out = check_op("sequence_reshape", {"X": lod(x, lengths)}, {"new_dim": 2},
                   {"Out": lod(x.reshape(-1, 2), [4, 6])})
    assert out
    check_grad("sequence_reshape", {"X": lod(x, lengths)}, {"new_dim": 1})
    with pytest.raises(PaddleIRError, match="must be a multiple of new_dim 3"):
        check_op("sequence_reshape", {"X": lod(x, lengths)}, {"new_dim": 3})
    with pytest.raises(ProgramError, match="should be larger than 0"):
        check_op("sequence_reshape", {"X": x}, {"new_dim": 2})


def test_sequence_scatter():
    x = rng.uniform(-1, 1, (3, 5))
    ids = np.array([[0], [4], [0], [2], [3], [1]], dtype=np.int64)
    upd = rng.uniform(-1, 1, (6, 1))
    lengths = [3, 0, 3]
    want = x.copy()
    j = 0
    for i, n in enumerate(lengths):
        for _ in range(n):
            want[i, ids[j, 0]] += upd[j, 0]
            j += 1
    inputs = {"X": x, "Ids": lod(ids, lengths), "Updates": lod(upd, lengths)}
    check_op("sequence_scatter", inputs, {}, {"Out": want})
    check_grad("sequence_scatter", inputs, wrt=("X", "Updates"))


def test_sequence_slice():
    x = rng.uniform(-1, 1, (7, 2))
    lengths = [3, 4]
    offset = np.array([[1], [0]], dtype=np.int64)
    length = np.array([[2], [3]], dtype=np.int64)
    seqs = _seqs(x, lengths)
    want = np.concatenate([seqs[0][1:3], seqs[1][0:3]])
    inputs = {"X": lod(x, lengths), "Offset": offset, "Length": length}
    check_op("sequence_slice", inputs, {}, {"Out": lod(want, [2, 3])})
    check_grad("sequence_slice", inputs)
    with pytest.raises(PaddleIRError, match="must lie inside its sequence"):
        check_op("sequence_slice", {**inputs, "Length": np.array([[3], [3]], np.int64)})


def test_sequence_layers_in_a_program():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        ids = layers.data("ids", [-1, 1], dtype="int64", lod_level=1)
        x = layers.data("x", [-1, 4], lod_level=1)
        rows = layers.data("rows", [-1, 4])
        enum = layers.sequence_enumerate(ids, 2, pad_value=0)
        expanded = layers.sequence_expand_as(rows, x)
        reshaped = layers.sequence_reshape(x, 2)
        sliced = layers.sequence_slice(x, layers.fill_constant([2, 1], "int64", 1),
                                       layers.fill_constant([2, 1], "int64", 1))
        scattered = layers.sequence_scatter(rows, ids, layers.cast(ids, "float32"))
    exe = pir.Executor()
    exe.run(startup)
    xv = rng.uniform(-1, 1, (5, 4)).astype(np.float32)
    feed = {"ids": lod(np.array([[1], [2], [3], [0], [1]], np.int64), [2, 3]),
            "x": lod(xv, [2, 3]), "rows": np.ones((2, 4), np.float32)}
    e, ex, rs, sl, sc = exe.run(main, feed=feed, fetch_list=[enum, expanded, reshaped, sliced,
                                                              scattered], return_numpy=False)
    np.testing.assert_array_equal(e.numpy(), [[1, 2], [2, 0], [3, 0], [0, 1], [1, 0]])
    assert ex.recursive_sequence_lengths() == [[2, 3]]
    assert rs.recursive_sequence_lengths() == [[4, 6]]
    np.testing.assert_allclose(sl.numpy(), xv[[1, 3]])
    np.testing.assert_allclose(np.asarray(sc), [[1, 2, 3, 1], [1, 2, 1, 4]])
