"""unfold and im2sequence (ops/nn/im2col.py)."""

import itertools

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(41)


def lod(arr, lengths):
    t = LoDTensor(np.asarray(arr))
    t.set_recursive_sequence_lengths([lengths])
    return t


def _patches(x, kh, kw, sh, sw, pads, dh=1, dw=1):
    n, c, h, w = x.shape
    xp = np.pad(x, [(0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])])
    oh = (h + pads[0] + pads[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (w + pads[1] + pads[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, c * kh * kw, oh * ow))
    for i, j in itertools.product(range(oh), range(ow)):
        block = xp[:, :, i * sh:i * sh + dh * (kh - 1) + 1:dh, j * sw:j * sw + dw * (kw - 1) + 1:dw]
        out[:, :, i * ow + j] = block.reshape(n, -1)
    return out, oh, ow


def test_unfold():
    x = rng.uniform(-1, 1, (2, 2, 5, 4))
    attrs = {"kernel_sizes": [2, 3], "strides": [2, 1], "paddings": [1, 0, 0, 1],
             "dilations": [1, 1]}
    want, _, _ = _patches(x, 2, 3, 2, 1, [1, 0, 0, 1])
    check_op("unfold", {"X": x}, attrs, {"Y": want})
    check_grad("unfold", {"X": x}, attrs, out_slot="Y")
    dil = {"kernel_sizes": [2, 2], "strides": [1, 1], "paddings": [0, 0, 0, 0],
           "dilations": [2, 1]}
    check_op("unfold", {"X": x}, dil, {"Y": _patches(x, 2, 2, 1, 1, [0, 0, 0, 0], 2, 1)[0]})


def test_im2sequence():
    x = rng.uniform(-1, 1, (2, 3, 4, 4))
    attrs = {"kernels": [2, 2], "strides": [2, 2], "paddings": [0, 1, 0, 1]}
    cols, oh, ow = _patches(x, 2, 2, 2, 2, [0, 1, 0, 1])
    rows = cols.transpose(0, 2, 1).reshape(-1, 12)
    check_op("im2sequence", {"X": x}, attrs, {"Out": lod(rows, [oh * ow, oh * ow])})
    check_grad("im2sequence", {"X": x}, attrs)


F = np.ones((2, 3))


ERROR_CASES = [
    ("unfold", {"X": np.ones((1, 1, 2, 2))}, {"kernel_sizes": [3, 3]},
     "the kernel does not fit X"),
    ("im2sequence", {"X": F}, {}, r"X must be \[N, C, H, W\]"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
