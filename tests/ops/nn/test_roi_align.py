"""roi_align against bilinear sampling written point by point here (the Paddle fixture
`detection` checks it against Paddle itself), its gradient against central differences."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(83)


def _bilinear(fmap, y, x):
    _, h, w = fmap.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return np.zeros(fmap.shape[0])
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * fmap[:, y0, x0] + (1 - ly) * lx * fmap[:, y0, x1]
            + ly * (1 - lx) * fmap[:, y1, x0] + ly * lx * fmap[:, y1, x1])


def _reference(data, rois, batch, ph, pw, scale, ratio, aligned):
    out = np.zeros((len(rois), data.shape[1], ph, pw))
    off = 0.5 if aligned else 0.0
    for r, box in enumerate(rois):
        x1, y1, x2, y2 = (v * scale - off for v in box)
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        for i in range(ph):
            for j in range(pw):
                acc = np.zeros(data.shape[1])
                for iy in range(gh):
                    for ix in range(gw):
                        acc += _bilinear(data[batch[r]], y1 + i * bh + (iy + 0.5) * bh / gh,
                                         x1 + j * bw + (ix + 0.5) * bw / gw)
                out[r, :, i, j] = acc / max(gh * gw, 1)
    return out


def _rois(k):
    low = rng.uniform(-3, 20, (k, 2))
    return np.hstack([low, low + rng.uniform(0.5, 12, (k, 2))])


@pytest.mark.parametrize("aligned,ratio,scale", [(False, -1, 0.5), (True, 2, 0.25),
                                                 (False, 1, 1.0), (True, -1, 1.0)])
def test_roi_align(aligned, ratio, scale):
    data = rng.uniform(-1, 1, (2, 3, 7, 9))
    rois = _rois(5)
    attrs = {"pooled_height": 2, "pooled_width": 3, "spatial_scale": scale,
             "sampling_ratio": ratio, "aligned": aligned}
    want = _reference(data, rois, [0, 0, 1, 1, 1], 2, 3, scale, ratio, aligned)
    check_op("roi_align", {"X": data, "ROIs": rois, "RoisNum": np.array([2, 3], np.int32)},
             attrs, {"Out": want})
    check_op("roi_align", {"X": data, "ROIs": LoDTensor(rois, [[0, 2, 5]])}, attrs,
             {"Out": want})


@pytest.mark.parametrize("aligned,ratio,scale", [(False, -1, 0.5), (True, 2, 0.25),
                                                 (False, 1, 1.0)])
def test_roi_align_gradient(aligned, ratio, scale):
    # roi_align had no gradient (a Mask R-CNN head could not train). ROIs reach past the
    # map's edges, so clamped and dropped samples are covered; X is linear in Out, so the
    # central differences are exact.
    data = rng.uniform(-1, 1, (2, 2, 5, 6))
    rois = np.array([[-2.0, 1.0, 4.5, 3.0], [1.0, 0.5, 9.0, 7.5], [2.5, 2.0, 5.0, 6.5]])
    attrs = {"pooled_height": 2, "pooled_width": 2, "spatial_scale": scale,
             "sampling_ratio": ratio, "aligned": aligned}
    check_grad("roi_align", {"X": data, "ROIs": rois, "RoisNum": np.array([1, 2], np.int32)},
               attrs)
    check_grad("roi_align", {"X": data, "ROIs": LoDTensor(rois, [[0, 2, 3]])}, attrs)


def test_errors():
    data, rois = rng.uniform(-1, 1, (2, 3, 7, 9)), _rois(3)
    with pytest.raises(ProgramError, match="needs a LoD \\(ROIs per image\\) or RoisNum"):
        check_op("roi_align", {"X": data, "ROIs": rois})
    with pytest.raises(ProgramError, match="ROIs per image \\[1, 1\\] must cover the 3 ROIs"):
        check_op("roi_align", {"X": data, "ROIs": rois, "RoisNum": np.array([1, 1], np.int32)})
    with pytest.raises(ProgramError, match="pooled_height and pooled_width must be > 0"):
        check_op("roi_align", {"X": data, "ROIs": rois, "RoisNum": np.array([1, 2], np.int32)},
                 {"pooled_height": 0})
