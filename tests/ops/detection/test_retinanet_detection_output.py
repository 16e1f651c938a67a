"""retinanet_detection_output against a box-by-box loop written from Paddle's kernel."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op
from tests.ops.detection.box_reference import iou

rng = np.random.RandomState(58)


def c_round(x):
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def reference(levels, info, attrs):
    rows, lod = [], [0]
    for n in range(info.shape[0]):
        h, w, s = info[n]
        ih, iw = c_round(h / s), c_round(w / s)
        preds = {}
        for lvl, (boxes, scores, anchors) in enumerate(levels):
            c_num = scores.shape[2]
            thr = attrs["score_threshold"] if lvl < len(levels) - 1 else 0.0
            cand = [(scores[n].flat[k], k) for k in range(scores[n].size)
                    if scores[n].flat[k] > thr]
            cand.sort(key=lambda p: -np.float32(p[0]))
            if attrs["nms_top_k"] > -1:
                cand = cand[:attrs["nms_top_k"]]
            for score, k in cand:
                a, c = divmod(k, c_num)
                x1, y1, x2, y2 = anchors[a]
                d = boxes[n][a]
                aw, ah = x2 - x1 + 1, y2 - y1 + 1
                cx, cy = d[0] * aw + x1 + aw / 2, d[1] * ah + y1 + ah / 2
                tw, th = math.exp(d[2]) * aw, math.exp(d[3]) * ah
                box = [(cx - tw / 2) / s, (cy - th / 2) / s, (cx + tw / 2 - 1) / s,
                       (cy + th / 2 - 1) / s]
                lim = [iw - 1, ih - 1, iw - 1, ih - 1]
                box = [max(min(v, m), 0) for v, m in zip(box, lim, strict=True)]
                preds.setdefault(c, []).append(box + [score])
        kept = []
        for c in sorted(preds):
            dets = preds[c]
            order = sorted(range(len(dets)), key=lambda i: -np.float32(dets[i][4]))
            sel, thr = [], attrs["nms_threshold"]
            for i in order:
                if all(iou(dets[i], dets[j], False) <= thr for j in sel):
                    sel.append(i)
                    if attrs["nms_eta"] < 1 and thr > 0.5:
                        thr *= attrs["nms_eta"]
            kept += [(c, dets[i]) for i in sel]
        kept.sort(key=lambda t: -np.float32(t[1][4]))
        kept = kept[:attrs["keep_top_k"]]
        rows += [[c + 1, d[4], *d[:4]] for c, d in kept]
        lod.append(len(rows))
    return np.array(rows).reshape(-1, 6), lod


def make_levels(n=2, sizes=(12, 6), classes=3, dtype=np.float64):
    levels = []
    for m in sizes:
        low = rng.uniform(0, 50, size=(m, 2))
        anchors = np.concatenate([low, low + rng.uniform(8, 30, size=(m, 2))], axis=1)
        deltas = rng.uniform(-0.3, 0.3, size=(n, m, 4))
        scores = rng.uniform(0, 1, size=(n, m, classes))
        levels.append((deltas.astype(dtype), scores.astype(dtype), anchors.astype(dtype)))
    return levels


def feed_of(levels, info):
    return {"BBoxes": [(f"bboxes{i}", b) for i, (b, _, _) in enumerate(levels)],
            "Scores": [(f"scores{i}", s) for i, (_, s, _) in enumerate(levels)],
            "Anchors": [(f"anchors{i}", a) for i, (_, _, a) in enumerate(levels)],
            "ImInfo": info}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("attrs", [
    {"score_threshold": 0.3, "nms_top_k": 10, "nms_threshold": 0.3, "nms_eta": 1.0,
     "keep_top_k": 8},
    {"score_threshold": 0.05, "nms_top_k": -1, "nms_threshold": 0.7, "nms_eta": 0.8,
     "keep_top_k": 100}])
def test_against_reference(dtype, attrs):
    levels = make_levels(dtype=dtype)
    info = np.array([[60.0, 70.0, 1.0], [90.0, 80.0, 1.5]], dtype)
    got = check_op("retinanet_detection_output", feed_of(levels, info), attrs)["Out"][0]
    want, lod = reference([tuple(np.asarray(t, np.float64) for t in lv) for lv in levels],
                          info.astype(np.float64), attrs)
    assert got.offsets[-1].tolist() == lod
    tol = 1e-5 if dtype == np.float32 else 1e-9
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)
    assert want.shape[0] > 2


def test_nothing_detected():
    levels = make_levels(sizes=(4,))
    levels = [(b, np.zeros_like(s), a) for b, s, a in levels]
    info = np.array([[60.0, 70.0, 1.0]] * 2)
    got = check_op("retinanet_detection_output", feed_of(levels, info))["Out"][0]
    assert got.shape == (0, 6) and got.offsets[-1].tolist() == [0, 0, 0]


def test_errors():
    levels = make_levels()
    info = np.array([[60.0, 70.0, 1.0]] * 2)
    feed = feed_of(levels, info)
    with pytest.raises(ProgramError, match="Scores must hold one tensor per level"):
        check_op("retinanet_detection_output", dict(feed, Scores=feed["Scores"][:1]))
    with pytest.raises(ProgramError, match=r"Anchors\[1\] must be \[M, 4\]"):
        check_op("retinanet_detection_output",
                 dict(feed, Anchors=[feed["Anchors"][0], ("a1", levels[1][2][:, :3])]))
    with pytest.raises(ProgramError, match="level 0: BBoxes"):
        check_op("retinanet_detection_output",
                 dict(feed, Anchors=[("a0", levels[0][2][:5]), feed["Anchors"][1]]))
    with pytest.raises(ProgramError, match="keep_top_k must be >= 0"):
        check_op("retinanet_detection_output", feed, {"keep_top_k": -1})
    with pytest.raises(ProgramError, match="ImInfo has 1 rows for 2 images"):
        check_op("retinanet_detection_output", dict(feed, ImInfo=info[:1]))
