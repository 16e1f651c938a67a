"""pixel_shuffle, pixel_unshuffle, channel_shuffle, shuffle_channel, space_to_depth
(ops/nn/pixel_shuffle.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError, ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(19)


def test_space_to_depth_pixel_shuffle_shuffle_channel():
    x = rng.uniform(-1, 1, (2, 3, 4, 6))
    b = 2
    want = np.zeros((2, 3 * b * b, 2, 3))
    for n in range(2):
        for c in range(3):
            for i in range(4):
                for j in range(6):
                    oc = ((i % b) * b + (j % b)) * 3 + c
                    want[n, oc, i // b, j // b] = x[n, c, i, j]
    check_op("space_to_depth", {"X": x}, {"blocksize": b}, {"Out": want})
    check_grad("space_to_depth", {"X": x}, {"blocksize": b})

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
    ("space_to_depth", {"X": np.ones((1, 1, 3, 4))}, {"blocksize": 2},
     "H and W must be multiples of blocksize 2"),
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
