"""spp (ops/nn/spp.py) against pyramid pooling written with loops here, with gradients."""

import math

import numpy as np
import pytest

from tests.op_test import check_grad, check_op


def _reference(x, height, ptype):
    n, c, h, w = x.shape
    parts = []
    for p in range(height):
        bins = 2 ** p
        kh, kw = math.ceil(h / bins), math.ceil(w / bins)
        ph, pw = (kh * bins - h + 1) // 2, (kw * bins - w + 1) // 2
        oh, ow = (h + 2 * ph - kh) // kh + 1, (w + 2 * pw - kw) // kw + 1
        level = np.zeros((n, c, oh, ow))
        for i in range(oh):
            for j in range(ow):
                r0, c0 = max(i * kh - ph, 0), max(j * kw - pw, 0)
                r1, c1 = min(i * kh - ph + kh, h), min(j * kw - pw + kw, w)
                win = x[:, :, r0:r1, c0:c1]
                level[:, :, i, j] = win.max((2, 3)) if ptype == "max" else win.mean((2, 3))
        parts.append(level.reshape(n, -1))
    return np.concatenate(parts, 1)


@pytest.mark.parametrize("hw,height,ptype", [((4, 4), 3, "max"), ((5, 7), 2, "avg"),
                                             ((6, 5), 2, "max"), ((8, 6), 3, "avg")])
def test_spp_matches_the_loops_with_its_gradient(hw, height, ptype):
    x = np.random.RandomState(sum(hw)).permutation(2 * 3 * hw[0] * hw[1]).reshape(
        (2, 3) + hw).astype(np.float64) / 10
    attrs = {"pyramid_height": height, "pooling_type": ptype}
    want = _reference(x, height, ptype)
    assert want.shape == (2, 3 * sum(4 ** p for p in range(height)))
    check_op("spp", {"X": x}, attrs, {"Out": want})
    check_grad("spp", {"X": x}, attrs)


def test_a_window_wholly_in_the_padding_gives_paddle_s_values():
    x = np.random.RandomState(0).rand(1, 1, 5, 8)  # H = 5 at 4 bins: the first row of windows
    got_max = np.asarray(check_op("spp", {"X": x}, {"pyramid_height": 3})["Out"][0])
    got_avg = np.asarray(check_op("spp", {"X": x}, {"pyramid_height": 3,
                                                    "pooling_type": "avg"})["Out"][0])
    level2 = slice(1 + 4, 1 + 4 + 16)
    assert (got_max[0, level2][:4] == np.finfo(np.float32).min).all()
    assert np.isnan(got_avg[0, level2][:4]).all() and np.isfinite(got_avg[0, level2][4:]).all()
