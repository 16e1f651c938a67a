"""roi_pool against a loop over bins written from Paddle's definition, its gradient against
central differences, and its errors (the fixture `proposals` checks it against Paddle)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(71)


def _round(v):
    return int(math.copysign(math.floor(abs(v) + 0.5), v))


def _reference(x, rois, batch, ph, pw, scale):
    r, (_, c, h, w) = len(rois), x.shape
    out = np.zeros((r, c, ph, pw), x.dtype)
    arg = np.full((r, c, ph, pw), -1, np.int64)
    for k, box in enumerate(rois):
        x1, y1, x2, y2 = (_round(v * scale) for v in box)
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for ch in range(c):
            for i in range(ph):
                for j in range(pw):
                    hs = min(max(math.floor(i * rh / ph) + y1, 0), h)
                    he = min(max(math.ceil((i + 1) * rh / ph) + y1, 0), h)
                    ws = min(max(math.floor(j * rw / pw) + x1, 0), w)
                    we = min(max(math.ceil((j + 1) * rw / pw) + x1, 0), w)
                    best, where = -np.inf, -1
                    for yy in range(hs, he):
                        for xx in range(ws, we):
                            if x[batch[k], ch, yy, xx] > best:
                                best, where = x[batch[k], ch, yy, xx], yy * w + xx
                    if where >= 0:
                        out[k, ch, i, j], arg[k, ch, i, j] = best, where
    return out, arg


ROIS = np.array([[0.0, 0.0, 7.0, 5.0], [3.2, 1.6, 30.0, 20.0], [-9.0, -4.0, 2.0, 3.0],
                 [10.0, 10.0, 10.4, 10.4], [40.0, 40.0, 50.0, 50.0]])


@pytest.mark.parametrize("ph,pw,scale", [(2, 3, 0.5), (3, 2, 0.25), (1, 1, 1.0)])
def test_roi_pool(ph, pw, scale):
    x = rng.uniform(-1, 1, (2, 3, 7, 9))
    out, arg = _reference(x, ROIS, [0, 0, 1, 1, 1], ph, pw, scale)
    attrs = {"pooled_height": ph, "pooled_width": pw, "spatial_scale": scale}
    check_op("roi_pool", {"X": x, "ROIs": ROIS, "RoisNum": np.array([2, 3], np.int32)},
             attrs, {"Out": out, "Argmax": arg})
    check_op("roi_pool", {"X": x, "ROIs": LoDTensor(ROIS, [[0, 2, 5]])}, attrs,
             {"Out": out, "Argmax": arg})


def test_ties_take_the_first_position_in_row_major_order():
    x = np.zeros((1, 1, 4, 4))
    x[0, 0, 1, 3] = x[0, 0, 2, 0] = 5.0  # (1, 3) comes first in row-major order
    got = check_op("roi_pool", {"X": x, "ROIs": np.array([[0.0, 0.0, 3.0, 3.0]]),
                                "RoisNum": np.array([1], np.int32)}, {})
    assert np.asarray(got["Argmax"][0]).ravel().tolist() == [1 * 4 + 3]


def test_roi_pool_gradient():
    x = rng.permutation(2 * 2 * 6 * 7).reshape(2, 2, 6, 7) / 10.0  # no ties
    check_grad("roi_pool", {"X": x, "ROIs": ROIS[:4] * 0.5,
                            "RoisNum": np.array([1, 3], np.int32)},
               {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0})


def test_errors():
    x = rng.uniform(-1, 1, (2, 3, 7, 9))
    with pytest.raises(ProgramError, match="roi_pool: ROIs needs a LoD"):
        check_op("roi_pool", {"X": x, "ROIs": ROIS})
    with pytest.raises(ProgramError, match=r"ROIs per image \[4, 4\] must cover the 5 ROIs"):
        check_op("roi_pool", {"X": x, "ROIs": ROIS, "RoisNum": np.array([4, 4], np.int32)})
    with pytest.raises(ProgramError, match=r"ROIs must be \[R, 4\]"):
        check_op("roi_pool", {"X": x, "ROIs": ROIS[:, :3], "RoisNum": np.array([2, 3])})


@pytest.mark.parametrize("op_type,num", [("roi_pool", "RoisNum"), ("roi_align", "RoisNum"),
                                         ("psroi_pool", "RoisNum"),
                                         ("prroi_pool", "BatchRoINums")])
def test_roi_ops_refuse_non_finite_rois(op_type, num):
    rois = ROIS[:2].copy()
    rois[1, 2] = np.nan
    with pytest.raises(ProgramError, match=rf"{op_type}: ROIs must be finite, but ROI 1"):
        check_op(op_type, {"X": rng.uniform(-1, 1, (1, 4, 7, 9)), "ROIs": rois,
                           num: np.array([2], np.int32)},
                 {"output_channels": 4} if op_type == "psroi_pool" else {})
