"""prroi_pool against Paddle's cell-by-cell integration written out (each pixel cell's
bilinear patch integrated over its part of the bin), its gradient against central
differences."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(75)


def _get(img, r, c):
    h, w = img.shape
    return 0.0 if r < 0 or c < 0 or r >= h or c >= w else img[r, c]


def _cell(img, sh, sw, y0, x0, y1, x1):
    a, b, la, lb = x0 - sw, y0 - sh, x1 - sw, y1 - sh
    fx0 = la - 0.5 * la * la - a + 0.5 * a * a
    fx1 = 0.5 * la * la - 0.5 * a * a
    fy0 = lb - 0.5 * lb * lb - b + 0.5 * b * b
    fy1 = 0.5 * lb * lb - 0.5 * b * b
    return (_get(img, sh, sw) * fx0 * fy0 + _get(img, sh, sw + 1) * fx1 * fy0
            + _get(img, sh + 1, sw) * fx0 * fy1 + _get(img, sh + 1, sw + 1) * fx1 * fy1)


def _reference(x, rois, batch, ph, pw, s):
    out = np.zeros((len(rois), x.shape[1], ph, pw))
    for r, box in enumerate(rois):
        x1, y1, x2, y2 = (v * s for v in box)
        bh, bw = max(y2 - y1, 0) / ph, max(x2 - x1, 0) / pw
        for c in range(x.shape[1]):
            img = x[batch[r], c]
            for i in range(ph):
                for j in range(pw):
                    hs, ws = y1 + bh * i, x1 + bw * j
                    he, we = hs + bh, ws + bw
                    if bh * bw == 0:
                        continue
                    total = 0.0
                    for wi in range(math.floor(ws), math.ceil(we)):
                        for hi in range(math.floor(hs), math.ceil(he)):
                            total += _cell(img, hi, wi, max(hs, hi), max(ws, wi),
                                           min(he, hi + 1), min(we, wi + 1))
                    out[r, c, i, j] = total / (bh * bw)
    return out


ROIS = np.array([[0.3, 0.2, 7.5, 5.1], [3.2, 1.6, 30.0, 20.0], [-9.0, -4.0, 2.0, 3.0],
                 [10.0, 10.0, 10.0, 12.0], [1.0, 1.0, 3.5, 2.5]])


@pytest.mark.parametrize("ph,pw,scale", [(2, 3, 0.5), (3, 2, 0.25), (1, 1, 1.0)])
def test_prroi_pool(ph, pw, scale):
    x = rng.uniform(-1, 1, (2, 3, 7, 9))
    attrs = {"pooled_height": ph, "pooled_width": pw, "spatial_scale": scale}
    want = _reference(x, ROIS, [0, 0, 1, 1, 1], ph, pw, scale)
    check_op("prroi_pool", {"X": x, "ROIs": ROIS, "BatchRoINums": np.array([2, 3], np.int32)},
             attrs, {"Out": want}, atol=1e-9)
    check_op("prroi_pool", {"X": x, "ROIs": LoDTensor(ROIS, [[0, 2, 5]])}, attrs,
             {"Out": want}, atol=1e-9)


def test_prroi_pool_gradient():
    x = rng.uniform(-1, 1, (2, 2, 6, 7))
    check_grad("prroi_pool", {"X": x, "ROIs": ROIS[[0, 2, 4]] * 0.7,
                              "BatchRoINums": np.array([1, 2], np.int32)},
               {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0})


def test_errors():
    with pytest.raises(ProgramError, match="prroi_pool: ROIs needs a LoD"):
        check_op("prroi_pool", {"X": np.ones((1, 1, 3, 3)), "ROIs": ROIS})
