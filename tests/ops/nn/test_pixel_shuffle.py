"""pixel_shuffle, pixel_unshuffle, channel_shuffle, shuffle_channel, space_to_depth
(ops/nn/pixel_shuffle.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError, ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(19)


def _darknet_reorg(x, b):
    """Paddle's space_to_depth, element by element as its kernel indexes: input element
    (n, k, j, i) goes to flat position w2 + W b (h2 + H b (c2 + C/b^2 n)) of Out."""
    n_, c_, h_, w_ = x.shape
    out_c = c_ // (b * b)
    flat = np.empty(x.size)
    for n in range(n_):
        for k in range(c_):
            for j in range(h_):
                for i in range(w_):
                    c2, offset = k % out_c, k // out_c
                    w2, h2 = i * b + offset % b, j * b + offset // b
                    flat[w2 + w_ * b * (h2 + h_ * b * (c2 + out_c * n))] = x[n, k, j, i]
    return flat.reshape(n_, c_ * b * b, h_ // b, w_ // b)


@pytest.mark.parametrize("shape, b", [((2, 8, 4, 6), 2), ((1, 9, 3, 6), 3), ((1, 4, 2, 2), 1)])
def test_space_to_depth_in_darknet_reorg_order(shape, b):
    # Failed before the fix: paddle-ir used TensorFlow's block order, Paddle darknet's reorg.
    x = rng.uniform(-1, 1, shape)
    check_op("space_to_depth", {"X": x}, {"blocksize": b}, {"Out": _darknet_reorg(x, b)})
    check_grad("space_to_depth", {"X": x}, {"blocksize": b})


def test_pixel_shuffle_shuffle_channel():
    y = rng.uniform(-1, 1, (1, 8, 2, 3))
    r = 2
    want = np.zeros((1, 2, 4, 6))
    for c in range(8):
        oc, rem = divmod(c, r * r)
        for i in range(2):
            for j in range(3):
                want[0, oc, i * r + rem // r, j * r + rem % r] = y[0, c, i, j]
    check_op("pixel_shuffle", {"X": y}, {"upscale_factor": r}, {"Out": want})
    check_grad("pixel_shuffle", {"X": y}, {"upscale_factor": r})

    z = rng.uniform(-1, 1, (1, 6, 2, 2))
    g = 2
    # output channel o = c * g + j takes input channel j * (C / g) + c
    want = np.stack([z[0, (o % g) * (6 // g) + o // g] for o in range(6)])[None]
    check_op("shuffle_channel", {"X": z}, {"group": g}, {"Out": want})
    check_grad("shuffle_channel", {"X": z}, {"group": g})


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_channel_shuffle_and_pixel_unshuffle(fmt):
    x = rng.uniform(-1, 1, (1, 6, 4, 2))
    xc = x if fmt == "NCHW" else x.transpose(0, 2, 3, 1)
    # ShuffleNet: out channel k is in channel (k % g) * (C / g) + k // g, g = 2, C = 6.
    shuffled = np.stack([x[:, (k % 2) * 3 + k // 2] for k in range(6)], axis=1)
    check_op("channel_shuffle", {"X": xc}, {"groups": 2, "data_format": fmt},
             {"Out": shuffled if fmt == "NCHW" else shuffled.transpose(0, 2, 3, 1)})
    un = np.zeros((1, 24, 2, 1))
    for c in range(6):
        for i in range(2):
            for j in range(2):
                un[0, c * 4 + i * 2 + j] = x[0, c, i::2, j::2]
    check_op("pixel_unshuffle", {"X": xc}, {"downscale_factor": 2, "data_format": fmt},
             {"Out": un if fmt == "NCHW" else un.transpose(0, 2, 3, 1)})
    with pytest.raises(ProgramError, match="must be multiples of downscale_factor = 3"):
        check_op("pixel_unshuffle", {"X": x}, {"downscale_factor": 3})


ERROR_CASES = [
    ("space_to_depth", {"X": np.ones((1, 4, 3, 4))}, {"blocksize": 2},
     "H and W must be multiples of blocksize 2"),
    ("space_to_depth", {"X": np.ones((1, 2, 4, 4))}, {"blocksize": 2},
     r"C must be a multiple of blocksize\^2 = 4"),
    ("pixel_shuffle", {"X": np.ones((1, 3, 2, 2))}, {"upscale_factor": 2},
     "C must be a multiple of upscale_factor"),
    ("shuffle_channel", {"X": np.ones((1, 3, 2, 2))}, {"group": 2},
     "C must be a multiple of group 2"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)
