"""distribute_fpn_proposals and its inverse direction: each box's level written out, and the
restore index putting the levels' rows back in the original order."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op

rng = np.random.RandomState(86)
ATTRS = {"min_level": 2, "max_level": 4, "refer_level": 3, "refer_scale": 32,
         "pixel_offset": True}
OUTS = {"MultiFpnRois": 3, "RestoreIndex": 1, "MultiLevelRoIsNum": 3}


def _level(box):
    w, h = box[2] - box[0], box[3] - box[1]
    area = 0 if w < 0 or h < 0 else (w + 1) * (h + 1)
    lv = math.floor(math.log2(math.sqrt(area) / 32 + 1e-6) + 3) if area else 2
    return min(max(lv, 2), 4)


def test_levels_and_restore_index():
    low = rng.uniform(0, 50, (9, 2))
    rois = np.hstack([low, low + rng.uniform(1, 150, (9, 2))]).astype(np.float32)
    counts = [4, 0, 5]
    image = np.repeat(np.arange(3), counts)
    levels = [_level(b) for b in rois]
    want_outs, want_nums, order = [], [], []
    for lv in (2, 3, 4):
        rows = [k for k in range(9) if levels[k] == lv]
        order += rows
        per_image = [sum(1 for k in rows if image[k] == i) for i in range(3)]
        want_outs.append(LoDTensor(rois[rows].reshape(-1, 4),
                                   [np.concatenate([[0], np.cumsum(per_image)]).tolist()]))
        want_nums.append(np.array(per_image, np.int32))
    restore = np.empty(9, np.int32)
    restore[order] = np.arange(9)
    got = check_op("distribute_fpn_proposals",
                   {"FpnRois": rois, "RoisNum": np.array(counts, np.int32)}, ATTRS,
                   {"MultiFpnRois": want_outs, "RestoreIndex": restore.reshape(-1, 1),
                    "MultiLevelRoIsNum": want_nums}, outputs=OUTS)
    joined = np.concatenate([t.numpy() for t in got["MultiFpnRois"]])
    np.testing.assert_array_equal(joined[restore], rois)


def test_needs_images():
    with pytest.raises(ProgramError, match="FpnRois needs 1 LoD level"):
        check_op("distribute_fpn_proposals", {"FpnRois": np.ones((2, 4), np.float32)}, ATTRS,
                 outputs=OUTS)
    with pytest.raises(ProgramError, match="MultiFpnRois must name one output per level"):
        check_op("distribute_fpn_proposals",
                 {"FpnRois": LoDTensor(np.ones((2, 4), np.float32), [[0, 2]])}, ATTRS,
                 outputs={"MultiFpnRois": 2, "RestoreIndex": 1})
