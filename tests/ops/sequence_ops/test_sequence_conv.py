"""sequence_conv (ops/sequence_ops/sequence_conv.py): windows, gradients, errors."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import ShapeInferenceError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(3)


def reference_conv(x, lengths, w, start, length):
    """Pad each sequence alone with zeros, slide the window, multiply."""
    out, pos = [], 0
    width = x.shape[1]
    for n in lengths:
        seq = x[pos:pos + n].astype(np.float64)
        before, after = max(0, -start), max(0, start + length - 1)
        padded = np.concatenate([np.zeros((before, width)), seq, np.zeros((after, width))])
        for t in range(n):
            lo = t + start + before
            out.append(padded[lo:lo + length].reshape(-1) @ w)
        pos += n
    return np.asarray(out).reshape(len(x), w.shape[1]).astype(x.dtype)


@pytest.mark.parametrize("start,length", [(-1, 3), (0, 3), (-2, 2), (1, 2), (-3, 1), (2, 3)])
def test_windows_stay_inside_each_sequence(start, length):
    lengths = [3, 1, 0, 5, 2]
    x = rng.uniform(-1, 1, (sum(lengths), 4)).astype(np.float32)
    w = rng.uniform(-1, 1, (length * 4, 3)).astype(np.float32)
    want = reference_conv(x, lengths, w.astype(np.float64), start, length)
    check_op("sequence_conv", {"X": pir.create_lod_tensor(x, [lengths]), "Filter": w},
             {"contextStart": start, "contextLength": length},
             {"Out": pir.create_lod_tensor(want, [lengths])}, atol=1e-5)


def test_paddle_doc_example_rows():
    # Fluid docs: lod [[0, 3, 4]], start -1, length 3: windows [0 a b], [a b c], [b c 0], [0 d 0]
    x = np.array([[1, 1], [2, 2], [3, 3], [4, 4]], dtype=np.float64)
    w = np.eye(6)
    got = check_op("sequence_conv", {"X": pir.create_lod_tensor(x, [[3, 1]]), "Filter": w},
                   {"contextStart": -1, "contextLength": 3})["Out"][0]
    np.testing.assert_array_equal(got.numpy(), [[0, 0, 1, 1, 2, 2], [1, 1, 2, 2, 3, 3],
                                                [2, 2, 3, 3, 0, 0], [0, 0, 4, 4, 0, 0]])


@pytest.mark.parametrize("start,length", [(-1, 3), (1, 2)])
def test_gradients_match_finite_differences(start, length):
    lengths = [2, 4, 1]
    x = pir.create_lod_tensor(rng.uniform(-1, 1, (7, 3)), [lengths])
    w = rng.uniform(-1, 1, (length * 3, 2))
    check_grad("sequence_conv", {"X": x, "Filter": w},
               {"contextStart": start, "contextLength": length}, wrt=("X", "Filter"))


def test_two_level_input_convolves_the_last_level():
    x = rng.uniform(-1, 1, (6, 2)).astype(np.float32)
    w = rng.uniform(-1, 1, (6, 2)).astype(np.float32)
    want = reference_conv(x, [2, 1, 3], w.astype(np.float64), -1, 3)
    check_op("sequence_conv", {"X": pir.create_lod_tensor(x, [[2, 1], [2, 1, 3]]), "Filter": w},
             {"contextStart": -1, "contextLength": 3},
             {"Out": pir.create_lod_tensor(want, [[2, 1], [2, 1, 3]])}, atol=1e-5)


def _build_errors(shape, lod_level, filter_rows, **attrs):
    prog = pir.Program()
    with pir.program_guard(prog, pir.Program()):
        block = prog.global_block()
        x = block.create_var(name="x", shape=shape, dtype="float32", lod_level=lod_level)
        w = block.create_var(name="w", shape=[filter_rows, 2], dtype="float32")
        out = block.create_var(name="out", dtype="float32")
        block.append_op("sequence_conv", inputs={"X": x, "Filter": w}, outputs={"Out": out},
                        attrs={"contextLength": 3, **attrs})


def test_build_time_errors_name_the_problem():
    with pytest.raises(ShapeInferenceError, match="LoD level Input\\(X\\) of sequence_conv"):
        _build_errors([-1, 4], 0, 12)
    with pytest.raises(ShapeInferenceError, match="contextLength \\* X's width = 3 \\* 4"):
        _build_errors([-1, 4], 1, 10)
    with pytest.raises(ShapeInferenceError, match="only supports contextStride=1"):
        _build_errors([-1, 4], 1, 12, contextStride=2)
    with pytest.raises(ShapeInferenceError, match="paddingTrainable=False"):
        _build_errors([-1, 4], 1, 12, paddingTrainable=True)
