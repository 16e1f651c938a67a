"""detection_map against a hand-worked case and a VOC-style loop written separately."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op

rng = np.random.RandomState(71)


def voc_ap(flags, scores, positives, ap_type):
    """AP of one class from its detections' hit flags, as the VOC scripts compute it."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    tp = np.cumsum([flags[i] for i in order])
    fp = np.cumsum([1 - flags[i] for i in order])
    precision, recall = tp / (tp + fp), tp / positives
    if ap_type == "11point":
        return sum(max([p for p, r in zip(precision, recall, strict=True) if r >= t / 10],
                       default=0.0) for t in range(11)) / 11
    ap, prev = 0.0, 0.0
    for p, r in zip(precision, recall, strict=True):
        ap += p * (r - prev)
        prev = r
    return ap


def box_iou(a, b):
    w = max(min(a[2], b[2]) - max(a[0], b[0]), 0)
    h = max(min(a[3], b[3]) - max(a[1], b[1]), 0)
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def reference_map(det, det_off, gt, gt_off, thr, ap_type, classes):
    flags, scores, positives = {}, {}, {}
    for n in range(len(gt_off) - 1):
        truth = [g for g in gt[gt_off[n]:gt_off[n + 1]]]
        for g in truth:
            positives[int(g[0])] = positives.get(int(g[0]), 0) + 1
        used = set()
        dets = sorted(det[det_off[n]:det_off[n + 1]].tolist(), key=lambda d: -d[1])
        for d in dets:
            c = int(d[0])
            cands = [(box_iou(np.clip(d[2:], 0, 1), g[1:]), k)
                     for k, g in enumerate(truth) if int(g[0]) == c]
            best = max(cands, default=(0.0, None), key=lambda t: t[0])
            hit = best[0] > thr and best[1] not in used
            if hit:
                used.add(best[1])
            flags.setdefault(c, []).append(int(hit))
            scores.setdefault(c, []).append(d[1])
    aps = [voc_ap(flags[c], scores[c], positives[c], ap_type) if c in flags else 0.0
           for c in sorted(positives) if c < classes]
    return np.mean(aps)


def random_case(images=3, classes=4):
    gts, dets, gt_off, det_off = [], [], [0], [0]
    for _ in range(images):
        k = rng.randint(1, 5)
        low = rng.uniform(0, 0.6, size=(k, 2))
        boxes = np.concatenate([low, low + rng.uniform(0.1, 0.4, size=(k, 2))], axis=1)
        labels = rng.randint(1, classes, size=k)
        gts += [[c, *b] for c, b in zip(labels, boxes, strict=True)]
        m = rng.randint(2, 7)
        src = rng.randint(0, k, size=m)
        jitter = boxes[src] + rng.uniform(-0.08, 0.08, size=(m, 4))
        dl = np.where(rng.rand(m) < 0.8, labels[src], rng.randint(1, classes, size=m))
        dets += [[c, s, *b] for c, s, b in zip(dl, rng.rand(m), jitter, strict=True)]
        gt_off.append(len(gts))
        det_off.append(len(dets))
    return np.array(dets), det_off, np.array(gts), gt_off


@pytest.mark.parametrize("ap_type", ["integral", "11point"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_against_voc_reference(ap_type, dtype):
    det, det_off, gt, gt_off = random_case()
    got = check_op("detection_map", {"DetectRes": LoDTensor(det.astype(dtype), [det_off]),
                                     "Label": LoDTensor(gt.astype(dtype), [gt_off])},
                   {"class_num": 4, "ap_type": ap_type, "overlap_threshold": 0.5,
                    "background_label": -1})
    want = reference_map(det, det_off, gt, gt_off, 0.5, ap_type, 4)
    np.testing.assert_allclose(got["MAP"][0].numpy(), [want], rtol=1e-5)
    counts = np.bincount(gt[:, 0].astype(int), minlength=4)
    np.testing.assert_array_equal(got["AccumPosCount"][0].numpy().reshape(-1), counts)


def test_hand_worked_with_difficult_and_state():
    # one image, class 1: two ground truths, the second difficult; three detections
    gt = np.array([[1, 0, 0.1, 0.1, 0.3, 0.3], [1, 1, 0.6, 0.6, 0.9, 0.9]])
    det = np.array([[1, 0.9, 0.1, 0.1, 0.3, 0.3],    # hits gt 0: TP
                    [1, 0.8, 0.1, 0.1, 0.3, 0.31],   # gt 0 again: FP
                    [1, 0.7, 0.6, 0.6, 0.9, 0.9]])   # difficult gt: ignored
    feed = {"DetectRes": LoDTensor(det, [[0, 3]]), "Label": LoDTensor(gt, [[0, 2]])}
    attrs = {"class_num": 3, "evaluate_difficult": False}
    got = check_op("detection_map", feed, attrs)
    # precision [1, 0.5], recall [1, 1] over 1 positive: AP = 1
    np.testing.assert_allclose(got["MAP"][0].numpy(), [1.0])
    np.testing.assert_array_equal(got["AccumPosCount"][0].numpy().reshape(-1), [0, 1, 0])
    tp = got["AccumTruePos"][0]
    np.testing.assert_array_equal(tp.numpy(), [[0.9, 1], [0.8, 0]])
    assert tp.offsets[-1].tolist() == [0, 0, 2, 2]
    # the same batch again on top of that state: 2 positives, TP at 0.9 twice
    state = dict(feed, HasState=np.array([1], np.int32),
                 PosCount=got["AccumPosCount"][0].numpy(),
                 TruePos=got["AccumTruePos"][0], FalsePos=got["AccumFalsePos"][0])
    again = check_op("detection_map", state, attrs)
    np.testing.assert_array_equal(again["AccumPosCount"][0].numpy().reshape(-1), [0, 2, 0])
    # sorted: 0.9 TP, 0.9 TP, 0.8 FP, 0.8 FP -> recall 0.5, 1; precision 1, 1: AP 1
    np.testing.assert_allclose(again["MAP"][0].numpy(), [1.0])
    assert again["AccumTruePos"][0].numpy().shape == (4, 2)


def test_errors():
    det, det_off, gt, gt_off = random_case()
    feed = {"DetectRes": LoDTensor(det, [det_off]), "Label": LoDTensor(gt, [gt_off])}
    with pytest.raises(ProgramError, match="ap_type must be one of"):
        check_op("detection_map", feed, {"class_num": 4, "ap_type": "voc"})
    with pytest.raises(ProgramError, match=r"Label must be \[G, 6\] or \[G, 5\]"):
        check_op("detection_map", dict(feed, Label=LoDTensor(gt[:, :4], [gt_off])),
                 {"class_num": 4})
    with pytest.raises(ProgramError, match="DetectRes' LoD has 1 images, Label's 3"):
        check_op("detection_map", dict(feed, DetectRes=LoDTensor(det, [[0, len(det)]])),
                 {"class_num": 4})
    with pytest.raises(ProgramError, match="TruePos and FalsePos must be given"):
        check_op("detection_map", dict(feed, PosCount=np.zeros((4, 1), np.int32)),
                 {"class_num": 4})
