"""collect_fpn_proposals against ranking written with Python's sort."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op

rng = np.random.RandomState(87)


def test_best_boxes_regrouped_by_image():
    counts = [[3, 2], [1, 4]]  # level 0: 3 + 2 boxes, level 1: 1 + 4
    rois = [rng.uniform(0, 50, (sum(c), 4)).astype(np.float32) for c in counts]
    scores = [rng.uniform(0, 1, (sum(c), 1)).astype(np.float32) for c in counts]
    entries = []  # (score, level, row, image)
    for lv in range(2):
        image = np.repeat([0, 1], counts[lv])
        entries += [(scores[lv][r, 0], lv, r, image[r]) for r in range(sum(counts[lv]))]
    best = sorted(entries, key=lambda e: -e[0])[:6]
    best = sorted(best, key=lambda e: e[3])
    boxes = np.array([rois[e[1]][e[2]] for e in best], np.float32)
    per_image = [sum(1 for e in best if e[3] == i) for i in range(2)]
    check_op("collect_fpn_proposals",
             {"MultiLevelRois": [("r0", rois[0]), ("r1", rois[1])],
              "MultiLevelScores": [("s0", scores[0]), ("s1", scores[1])],
              "MultiLevelRoIsNum": [("n0", np.array(counts[0], np.int32)),
                                    ("n1", np.array(counts[1], np.int32))]},
             {"post_nms_topN": 6},
             {"FpnRois": LoDTensor(boxes, [[0, per_image[0], 6]]),
              "RoisNum": np.array(per_image, np.int32)}, outputs={"FpnRois": 1, "RoisNum": 1})


def test_errors():
    rois = LoDTensor(np.ones((3, 4), np.float32), [[0, 3]])
    with pytest.raises(ProgramError, match=r"MultiLevelScores\[0\] must be \[3, 1\]"):
        check_op("collect_fpn_proposals",
                 {"MultiLevelRois": [("r0", rois)],
                  "MultiLevelScores": [("s0", np.ones((2, 1), np.float32))]}, {})
    with pytest.raises(ProgramError, match="one tensor per level"):
        check_op("collect_fpn_proposals",
                 {"MultiLevelRois": [("r0", rois), ("r1", rois)],
                  "MultiLevelScores": [("s0", np.ones((3, 1), np.float32))]}, {})
