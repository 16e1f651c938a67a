"""multiclass_nms3 against a brute-force NMS written here box by box (the Paddle fixture
`detection` checks it against Paddle itself)."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op

rng = np.random.RandomState(71)


def _iou(a, b, normalized):
    e = 0 if normalized else 1
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    iw = min(a[2], b[2]) - max(a[0], b[0]) + e
    ih = min(a[3], b[3]) - max(a[1], b[1]) + e
    inter = iw * ih
    area = lambda t: (t[2] - t[0] + e) * (t[3] - t[1] + e)  # noqa: E731
    return inter / (area(a) + area(b) - inter)


def _reference(boxes, scores, a):
    rows, index, counts = [], [], []
    n, m = boxes.shape[:2]
    for b in range(n):
        dets = []
        for c in range(scores.shape[1]):
            if c == a["background_label"]:
                continue
            cand = sorted((i for i in range(m) if scores[b, c, i] > a["score_threshold"]),
                          key=lambda i: (-scores[b, c, i], i))
            if a["nms_top_k"] > -1:
                cand = cand[:a["nms_top_k"]]
            kept, thr = [], a["nms_threshold"]
            for i in cand:
                if all(_iou(boxes[b, i], boxes[b, k], a["normalized"]) <= thr for k in kept):
                    kept.append(i)
                    if a["nms_eta"] < 1 and thr > 0.5:
                        thr *= a["nms_eta"]
            dets += [(c, i) for i in kept]
        if a["keep_top_k"] > -1 and len(dets) > a["keep_top_k"]:
            best = sorted(dets, key=lambda d: -scores[b, d[0], d[1]])[:a["keep_top_k"]]
            dets = [d for d in dets if d in best]
        for c, i in dets:
            rows.append([c, scores[b, c, i], *boxes[b, i]])
            index.append([b * m + i])
        counts.append(len(dets))
    offsets = np.concatenate([[0], np.cumsum(counts)]).tolist()
    return (LoDTensor(np.array(rows, boxes.dtype).reshape(-1, 6), [offsets]),
            LoDTensor(np.array(index, np.int32).reshape(-1, 1), [offsets]),
            np.array(counts, np.int32))


def _inputs(n=2, m=15, c=3):
    low = rng.uniform(0, 20, (n, m, 2))
    boxes = np.concatenate([low, low + rng.uniform(4, 12, (n, m, 2))], axis=-1)
    return boxes.astype(np.float32), rng.uniform(0, 1, (n, c, m)).astype(np.float32)


@pytest.mark.parametrize("attrs", [
    {"background_label": 0, "score_threshold": 0.3, "nms_top_k": 8, "nms_threshold": 0.3,
     "keep_top_k": 5, "normalized": False, "nms_eta": 1.0},
    {"background_label": -1, "score_threshold": 0.1, "nms_top_k": -1, "nms_threshold": 0.8,
     "keep_top_k": -1, "normalized": True, "nms_eta": 0.7},
])
def test_multiclass_nms3(attrs):
    boxes, scores = _inputs()
    out, index, counts = _reference(boxes, scores, attrs)
    assert out.numpy().shape[0] > 0
    check_op("multiclass_nms3", {"BBoxes": boxes, "Scores": scores}, attrs,
             {"Out": out, "Index": index, "NmsRoisNum": counts},
             outputs={"Out": 1, "Index": 1, "NmsRoisNum": 1})


def test_nothing_above_the_threshold_gives_empty_outputs():
    boxes, scores = _inputs()
    empty = [0, 0, 0]
    check_op("multiclass_nms3", {"BBoxes": boxes, "Scores": scores},
             {"score_threshold": 2.0},
             {"Out": LoDTensor(np.zeros((0, 6), np.float32), [empty]),
              "Index": LoDTensor(np.zeros((0, 1), np.int32), [empty]),
              "NmsRoisNum": np.zeros(2, np.int32)},
             outputs={"Out": 1, "Index": 1, "NmsRoisNum": 1})


def test_errors():
    boxes, scores = _inputs()
    with pytest.raises(ProgramError, match="the 2-D form \\(RoisNum bound"):
        check_op("multiclass_nms3", {"BBoxes": boxes, "Scores": scores,
                                     "RoisNum": np.array([15, 15], np.int32)})
    with pytest.raises(ProgramError, match="must hold the same number of boxes M"):
        check_op("multiclass_nms3", {"BBoxes": boxes, "Scores": scores[:, :, :5]})
