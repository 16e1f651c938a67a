"""box_clip against clipping written per box."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op

rng = np.random.RandomState(82)
INFO = np.array([[48.0, 64.0, 1.0], [81.0, 100.0, 2.0]], np.float32)


def _reference(boxes, owners, info):
    out = boxes.copy()
    for k, img in enumerate(owners):
        h = np.floor(info[img, 0] / info[img, 2] + 0.5)
        w = np.floor(info[img, 1] / info[img, 2] + 0.5)
        out[k, 0::2] = np.clip(boxes[k, 0::2], 0, w - 1)
        out[k, 1::2] = np.clip(boxes[k, 1::2], 0, h - 1)
    return out


def test_boxes_by_lod():
    boxes = rng.uniform(-20, 120, (7, 4)).astype(np.float32)
    want = _reference(boxes, [0, 0, 0, 1, 1, 1, 1], INFO)  # 81 / 2 rounds to 41 (away)
    check_op("box_clip", {"Input": LoDTensor(boxes, [[0, 3, 7]]), "ImInfo": INFO},
             {}, {"Output": LoDTensor(want, [[0, 3, 7]])})


def test_boxes_by_leading_dim():
    boxes = rng.uniform(-20, 120, (2, 5, 4)).astype(np.float32)
    want = np.stack([_reference(boxes[i], [i] * 5, INFO) for i in range(2)])
    check_op("box_clip", {"Input": boxes, "ImInfo": INFO}, {}, {"Output": want})


def test_errors():
    with pytest.raises(ProgramError, match="ImInfo has 2 images, but the 3 sequences"):
        check_op("box_clip", {"Input": LoDTensor(np.ones((3, 4), np.float32), [[0, 1, 2, 3]]),
                              "ImInfo": INFO})
    with pytest.raises(ProgramError, match=r"ImInfo's scales \(column 2\) must be > 0"):
        check_op("box_clip", {"Input": LoDTensor(np.ones((1, 4), np.float32), [[0, 1]]),
                              "ImInfo": np.array([[10, 10, 0]], np.float32)})
    with pytest.raises(ProgramError, match=r"ImInfo must be \[B, 3\]"):
        check_op("box_clip", {"Input": np.ones((2, 3, 4), np.float32),
                              "ImInfo": np.ones((2, 2), np.float32)})
