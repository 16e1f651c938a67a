"""sequence_pad, sequence_unpad and sequence_mask, and the pad -> unpad round trip."""

import numpy as np
import pytest

import paddle_ir as pir
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(5)


def reference_pad(x, lengths, maxlen, pad):
    out = np.empty((len(lengths), maxlen) + x.shape[1:], x.dtype)
    out[...] = pad
    start = 0
    for i, n in enumerate(lengths):
        out[i, :n] = x[start:start + n]
        start += n
    return out


def test_pad_paddles_case_1():
    # X.lod = [[0, 2, 5]], X = [a, b, c, d, e], PadValue = [0], padded_length = 4
    # -> Out = [[a, b, 0, 0], [c, d, e, 0]], Length = [2, 3]
    x = pir.create_lod_tensor(np.arange(1, 6, dtype=np.float32).reshape(5, 1), [[2, 3]])
    want = np.array([[1, 2, 0, 0], [3, 4, 5, 0]], np.float32).reshape(2, 4, 1)
    got = check_op("sequence_pad", {"X": x, "PadValue": np.zeros(1, np.float32)},
                   {"padded_length": 4},
                   {"Out": pir.LoDTensor(want), "Length": pir.LoDTensor(np.array([2, 3]))})
    assert got["Length"][0].dtype == np.int64


def test_pad_to_the_longest_with_a_per_step_pad_value():
    # Paddle's case 3: PadValue = [p1, p2] fills the padded steps.
    lengths = [2, 0, 3]
    x = pir.create_lod_tensor(rng.rand(5, 2).astype(np.float64), [lengths])
    pad = np.array([-1.0, -2.0])
    want = reference_pad(x.numpy(), lengths, 3, pad)
    check_op("sequence_pad", {"X": x, "PadValue": pad}, {},
             {"Out": pir.LoDTensor(want), "Length": pir.LoDTensor(np.array(lengths))})


def test_pad_shorter_than_the_longest_sequence_fails_at_run_time():
    x = pir.create_lod_tensor(np.ones((5, 1), np.float32), [[2, 3]])
    with pytest.raises(pir.ProgramError, match=r"(?s)sequence_pad \(X=x.*padded_length 2 is "
                                                r"shorter than the longest sequence of X \(3"):
        check_op("sequence_pad", {"X": x, "PadValue": np.zeros(1, np.float32)},
                 {"padded_length": 2}, {})


def test_pad_build_time_checks():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 3], lod_level=1)
        bad_pad = pir.layers.data("bad_pad", [2], append_batch_size=False)
        with pytest.raises(pir.ProgramError, match=r"PadValue must be a \[1\] scalar or have "
                                                    r"one step's shape \[3\], got \[2\]"):
            pir.layers.sequence_pad(x, bad_pad)
        flat = pir.layers.data("flat", [-1], lod_level=1)
        with pytest.raises(pir.ProgramError, match=r"rank >= 2"):
            pir.layers.sequence_pad(flat, 0.0)
        out, length = pir.layers.sequence_pad(x, 0.0, maxlen=7)
        assert out.shape == (-1, 7, 3) and out.lod_level == 0
        assert length.shape == (-1,) and length.dtype == np.int64


def test_pad_gradient():
    x = pir.create_lod_tensor(rng.rand(5, 2), [[1, 0, 4]])
    check_grad("sequence_pad", {"X": x, "PadValue": np.zeros(1)}, {"padded_length": 5},
               outputs={"Out": 1, "Length": 1})


def test_unpad_paddles_example():
    # X = [[1..5], [6..10], [11..15]], Length = [2, 3, 4]
    # -> Out = [1, 2, 6, 7, 8, 11, 12, 13, 14], Out.lod = [[0, 2, 5, 9]]
    x = np.arange(1, 16, dtype=np.float32).reshape(3, 5)
    want = np.array([1, 2, 6, 7, 8, 11, 12, 13, 14], np.float32).reshape(9, 1)
    got = check_op("sequence_unpad", {"X": x, "Length": np.array([2, 3, 4], np.int64)}, {},
                   {"Out": pir.create_lod_tensor(want, [[2, 3, 4]])})
    assert got["Out"][0].lod() == [[0, 2, 5, 9]]


def test_unpad_checks_lengths_at_run_time():
    x = np.zeros((2, 3, 1), np.float32)
    with pytest.raises(pir.ProgramError, match=r"every Length must lie in \[0, 3\].*\[1, 4\]"):
        check_op("sequence_unpad", {"X": x, "Length": np.array([1, 4], np.int64)}, {}, {})


def test_unpad_gradient():
    x = rng.rand(3, 4, 2)
    check_grad("sequence_unpad", {"X": x, "Length": np.array([4, 0, 2], np.int64)}, {})


@pytest.mark.parametrize("lengths, step", [([3, 1, 0, 5], (2,)), ([1], (1,)), ([4, 4], (2, 3))])
@pytest.mark.parametrize("maxlen", [None, 6])
def test_pad_then_unpad_round_trips(lengths, step, maxlen):
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, *step], lod_level=1)
        padded, length = pir.layers.sequence_pad(x, pir.layers.fill_constant([1], "float32", 9),
                                                 maxlen=maxlen)
        back = pir.layers.sequence_unpad(padded, length)
    assert back.lod_level == 1 and back.shape == (-1, *step)
    feed = pir.create_lod_tensor(rng.rand(sum(lengths), *step).astype(np.float32), [lengths])
    p, n, b = pir.Executor(check=True).run(main, feed={"x": feed},
                                           fetch_list=[padded, length, back],
                                           return_numpy=False)
    assert p.shape == (len(lengths), maxlen or max(lengths), *step) and p.lod() == []
    np.testing.assert_array_equal(p.numpy(), reference_pad(feed.numpy(), lengths,
                                                           p.shape[1], 9.0))
    assert n.numpy().tolist() == lengths
    assert b.lod() == feed.lod()
    np.testing.assert_array_equal(b.numpy(), feed.numpy())


# --- sequence_mask -------------------------------------------------------------------------------


def test_mask_paddles_example():
    x = np.array([3, 1, 1, 0], np.int64)
    want = np.array([[1, 1, 1, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]], np.int64)
    check_op("sequence_mask", {"X": x}, {"maxlen": 4}, {"Y": pir.LoDTensor(want)})


def test_mask_maxlen_from_the_data_and_other_dtypes():
    x = np.array([[2, 0], [1, 3]], np.int32)
    want = (np.arange(3) < x[..., None]).astype(np.float32)
    check_op("sequence_mask", {"X": x}, {"out_dtype": pir.DataType.FP32}, {"Y": want})


def test_mask_layer_with_a_maxlen_variable():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        lengths = pir.layers.data("lengths", [-1], dtype="int64")
        maxlen = pir.layers.fill_constant([1], "int64", 5)
        mask = pir.layers.sequence_mask(lengths, maxlen=maxlen, dtype="bool")
    assert mask.shape == (-1, -1) and mask.dtype == np.bool_
    (got,) = pir.Executor(check=True).run(main, feed={"lengths": np.array([2, 5, 0])},
                                          fetch_list=[mask])
    np.testing.assert_array_equal(got, np.arange(5) < np.array([2, 5, 0])[:, None])
