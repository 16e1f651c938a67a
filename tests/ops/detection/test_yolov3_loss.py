"""yolov3_loss against the loss written cell by cell and box by box, its gradient against
central differences (the fixture `yolo_loss` checks the loss against Paddle)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(91)
ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119]


def _sig(v):
    return 1 / (1 + math.exp(-v))


def _sce(x, t):
    return max(x, 0) - x * t + math.log(1 + math.exp(-abs(x)))


def _iou(a, b):
    def overlap(c1, w1, c2, w2):
        return min(c1 + w1 / 2, c2 + w2 / 2) - max(c1 - w1 / 2, c2 - w2 / 2)
    w, h = overlap(a[0], a[2], b[0], b[2]), overlap(a[1], a[3], b[1], b[3])
    inter = 0 if w < 0 or h < 0 else w * h
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def _reference(x, boxes, labels, scores, mask, classes, thresh, ratio, smooth, s):
    n, _, h, w = x.shape
    m = len(mask)
    t = x.reshape(n, m, 5 + classes, h, w)
    size = ratio * h
    anchors = np.array(ANCHORS, float).reshape(-1, 2)
    e = min(1 / classes, 1 / 40) if smooth else 0
    loss = np.zeros(n)
    obj = np.zeros((n, m, h, w))
    match = np.full(boxes.shape[:2], -1, np.int32)
    for i in range(n):
        real = [b for b in boxes[i] if b[2] >= 1e-6 and b[3] >= 1e-6]
        for j in range(m):
            aw, ah = anchors[mask[j]] / size
            for k in range(h):
                for col in range(w):
                    v = t[i, j, :, k, col]
                    pred = ((col + _sig(v[0]) * s - (s - 1) / 2) / h,
                            (k + _sig(v[1]) * s - (s - 1) / 2) / h,
                            math.exp(v[2]) * aw, math.exp(v[3]) * ah)
                    if real and max(_iou(pred, b) for b in real) > thresh:
                        obj[i, j, k, col] = -1
        for g, b in enumerate(boxes[i]):
            if b[2] < 1e-6 or b[3] < 1e-6:
                continue
            gi, gj = int(b[0] * w), int(b[1] * h)
            ious = [_iou((0, 0, b[2], b[3]), (0, 0, a[0] / size, a[1] / size)) for a in anchors]
            best = int(np.argmax(ious))
            if best not in mask:
                continue
            j = mask.index(best)
            match[i, g] = j
            v = t[i, j, :, gj, gi]
            q = (2 - b[2] * b[3]) * scores[i, g]
            loss[i] += q * (_sce(v[0], b[0] * h - gi) + _sce(v[1], b[1] * h - gj)
                            + abs(v[2] - math.log(b[2] * size / anchors[best, 0]))
                            + abs(v[3] - math.log(b[3] * size / anchors[best, 1])))
            loss[i] += scores[i, g] * sum(_sce(v[5 + c], 1 - e if c == labels[i, g] else e)
                                          for c in range(classes))
            obj[i, j, gj, gi] = scores[i, g]
        for j in range(m):
            for k in range(h):
                for col in range(w):
                    o, v = obj[i, j, k, col], t[i, j, 4, k, col]
                    if o > 1e-5:
                        loss[i] += _sce(v, 1) * o
                    elif o > -0.5:
                        loss[i] += _sce(v, 0)
    return loss, obj, match


def _case(mask, h=4, classes=3):
    x = rng.randn(2, len(mask) * (5 + classes), h, h) * 0.5
    boxes = np.concatenate([rng.uniform(0.05, 0.95, (2, 4, 2)),
                            rng.uniform(0.05, 0.9, (2, 4, 2))], -1)
    boxes[1, 3] = 0  # padding
    labels = rng.randint(0, classes, (2, 4)).astype(np.int32)
    scores = rng.uniform(0.4, 1, (2, 4))
    return x, boxes, labels, scores


@pytest.mark.parametrize("mask,smooth,s,with_score", [([3, 4, 5], True, 1.0, False),
                                                      ([0, 1, 2, 3], False, 1.1, True)])
def test_yolov3_loss(mask, smooth, s, with_score):
    x, boxes, labels, scores = _case(mask)
    if not with_score:
        scores = np.ones_like(scores)
    attrs = {"anchors": ANCHORS, "anchor_mask": mask, "class_num": 3, "ignore_thresh": 0.5,
             "downsample_ratio": 16, "use_label_smooth": smooth, "scale_x_y": s}
    loss, obj, match = _reference(x, boxes, labels, scores, mask, 3, 0.5, 16, smooth, s)
    inputs = {"X": x, "GTBox": boxes, "GTLabel": labels}
    if with_score:
        inputs["GTScore"] = scores
    check_op("yolov3_loss", inputs, attrs,
             {"Loss": loss, "ObjectnessMask": obj, "GTMatchMask": match}, rtol=1e-7)
    assert (match >= 0).any()


def test_yolov3_loss_gradient():
    mask = [0, 1, 2, 3, 4, 5]
    x, boxes, labels, scores = _case(mask, h=3, classes=2)
    attrs = {"anchors": ANCHORS, "anchor_mask": mask, "class_num": 2, "ignore_thresh": 0.999,
             "downsample_ratio": 32, "use_label_smooth": True, "scale_x_y": 1.0}
    check_grad("yolov3_loss", {"X": x, "GTBox": boxes, "GTLabel": labels, "GTScore": scores},
               attrs, out_slot="Loss", atol=1e-5,
               outputs={"Loss": 1, "ObjectnessMask": 1, "GTMatchMask": 1})


def test_errors():
    x, boxes, labels, _ = _case([0, 1, 2])
    attrs = {"anchors": ANCHORS, "anchor_mask": [0, 1, 2], "class_num": 3}
    with pytest.raises(ProgramError, match=r"X.shape\[1\] must be 24 for 3 masked anchors"):
        check_op("yolov3_loss", {"X": x[:, :20], "GTBox": boxes, "GTLabel": labels}, attrs)
    with pytest.raises(ProgramError, match="anchor_mask must index the 6 anchors"):
        check_op("yolov3_loss", {"X": x, "GTBox": boxes, "GTLabel": labels},
                 dict(attrs, anchor_mask=[0, 1, 9]))
    labels[0, 0] = 7
    with pytest.raises(ProgramError, match=r"GTLabel must lie in \[0, 3\), got 7"):
        check_op("yolov3_loss", {"X": x, "GTBox": boxes, "GTLabel": labels}, attrs)
