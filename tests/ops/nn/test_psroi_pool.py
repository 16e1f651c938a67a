"""psroi_pool against the bin averages written per ROI and bin, its gradient against
central differences (the fixture `proposals` checks it against Paddle)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(73)


def _round(v):
    return math.copysign(math.floor(abs(v) + 0.5), v)


def _reference(x, rois, batch, oc, ph, pw, s):
    n, c, h, w = x.shape
    out = np.zeros((len(rois), oc, ph, pw), x.dtype)
    for k, b in enumerate(rois):
        x1, y1 = _round(b[0]) * s, _round(b[1]) * s
        x2, y2 = (_round(b[2]) + 1) * s, (_round(b[3]) + 1) * s
        bh, bw = max(y2 - y1, 0.1) / ph, max(x2 - x1, 0.1) / pw
        for co in range(oc):
            for i in range(ph):
                for j in range(pw):
                    hs = min(max(math.floor(bh * i + y1), 0), h)
                    he = min(max(math.ceil(bh * (i + 1) + y1), 0), h)
                    ws = min(max(math.floor(bw * j + x1), 0), w)
                    we = min(max(math.ceil(bw * (j + 1) + x1), 0), w)
                    if he > hs and we > ws:
                        ch = (co * ph + i) * pw + j
                        out[k, co, i, j] = x[batch[k], ch, hs:he, ws:we].mean()
    return out


ROIS = np.array([[0.0, 0.0, 7.0, 5.0], [3.2, 1.6, 30.0, 20.0], [-9.0, -4.0, 2.0, 3.0],
                 [10.0, 10.0, 10.4, 10.4], [40.0, 40.0, 50.0, 50.0]])


@pytest.mark.parametrize("ph,pw,scale", [(2, 3, 0.5), (3, 2, 0.25)])
def test_psroi_pool(ph, pw, scale):
    x = rng.uniform(-1, 1, (2, 2 * ph * pw, 7, 9))
    attrs = {"pooled_height": ph, "pooled_width": pw, "output_channels": 2,
             "spatial_scale": scale}
    want = _reference(x, ROIS, [0, 0, 1, 1, 1], 2, ph, pw, scale)
    check_op("psroi_pool", {"X": x, "ROIs": ROIS, "RoisNum": np.array([2, 3], np.int32)},
             attrs, {"Out": want})
    check_op("psroi_pool", {"X": x, "ROIs": LoDTensor(ROIS, [[0, 2, 5]])}, attrs,
             {"Out": want})


def test_psroi_pool_gradient():
    x = rng.uniform(-1, 1, (2, 8, 6, 7))
    check_grad("psroi_pool", {"X": x, "ROIs": ROIS[:4] * 0.5,
                              "RoisNum": np.array([1, 3], np.int32)},
               {"pooled_height": 2, "pooled_width": 2, "output_channels": 2,
                "spatial_scale": 1.0})


def test_errors():
    x = rng.uniform(-1, 1, (2, 7, 7, 9))
    with pytest.raises(ProgramError, match="X must have output_channels \\* pooled_height"):
        check_op("psroi_pool", {"X": x, "ROIs": ROIS, "RoisNum": np.array([2, 3], np.int32)},
                 {"pooled_height": 2, "pooled_width": 2, "output_channels": 2})
    with pytest.raises(ProgramError, match="psroi_pool: ROIs needs a LoD"):
        check_op("psroi_pool", {"X": x[:, :4], "ROIs": ROIS},
                 {"pooled_height": 2, "pooled_width": 2})
