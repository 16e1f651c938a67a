"""locality_aware_nms against a list-based loop written from Paddle's CPU kernel."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op
from tests.ops.detection.box_reference import iou

rng = np.random.RandomState(64)


def reference(boxes, scores, attrs):
    rows, lod = [], [0]
    norm = attrs["normalized"]
    for n in range(boxes.shape[0]):
        bx = [list(b) for b in boxes[n]]  # merged into across classes, as Paddle does
        sc = [list(s) for s in scores[n]]
        picked = {}
        for c in range(len(sc)):
            if c == attrs["background_label"]:
                continue
            s = sc[c]
            survivors, cur = [], None
            for i in range(len(s)):
                if cur is not None and iou(bx[i], bx[cur], norm) > attrs["nms_threshold"]:
                    bx[cur] = [(a * s[i] + b * s[cur]) / (s[i] + s[cur])
                               for a, b in zip(bx[i], bx[cur], strict=True)]
                    s[cur] += s[i]
                else:
                    if cur is not None:
                        survivors.append(cur)
                    cur = i
            if cur is not None:
                survivors.append(cur)
            cand = sorted((i for i in sorted(survivors) if s[i] > attrs["score_threshold"]),
                          key=lambda i: -np.float32(s[i]))
            if attrs["nms_top_k"] > -1:
                cand = cand[:attrs["nms_top_k"]]
            kept, thr = [], attrs["nms_threshold"]
            for i in cand:
                if all(iou(bx[i], bx[k], norm) <= thr for k in kept):
                    kept.append(i)
                    if attrs["nms_eta"] < 1 and thr > 0.5:
                        thr *= attrs["nms_eta"]
            picked[c] = kept
        if attrs["keep_top_k"] > -1 and sum(map(len, picked.values())) > attrs["keep_top_k"]:
            flat = sorted(((c, i) for c in sorted(picked) for i in picked[c]),
                          key=lambda t: -np.float32(sc[t[0]][t[1]]))[:attrs["keep_top_k"]]
            picked = {}
            for c, i in flat:
                picked.setdefault(c, []).append(i)
        image = [[c, sc[c][i], *bx[i]] for c in sorted(picked) for i in picked[c]]
        rows += image
        lod.append(len(rows))
    return np.array(rows).reshape(-1, 6), lod


def make(n=2, m=14, classes=3, dtype=np.float64):
    # boxes along a row, neighbours overlapping, as EAST's per-pixel quads come
    x = np.cumsum(rng.uniform(1, 6, size=(n, m)), axis=1)
    y = rng.uniform(0, 3, size=(n, m))
    boxes = np.stack([x, y, x + rng.uniform(6, 10, size=(n, m)),
                      y + rng.uniform(6, 10, size=(n, m))], axis=2)
    return boxes.astype(dtype), rng.uniform(0, 1, size=(n, classes, m)).astype(dtype)


ATTRS = {"background_label": -1, "score_threshold": 0.2, "nms_top_k": -1,
         "nms_threshold": 0.3, "nms_eta": 1.0, "keep_top_k": -1, "normalized": False}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("change", [{}, {"background_label": 0, "keep_top_k": 3},
                                    {"nms_top_k": 2, "normalized": True, "nms_threshold": 0.2},
                                    {"nms_eta": 0.5, "nms_threshold": 0.8,
                                     "score_threshold": 0.5}])
def test_against_reference(dtype, change):
    boxes, scores = make(dtype=dtype)
    attrs = dict(ATTRS, **change)
    got = check_op("locality_aware_nms", {"BBoxes": boxes, "Scores": scores}, attrs)["Out"][0]
    want, lod = reference(boxes.astype(np.float64), scores.astype(np.float64), attrs)
    assert got.offsets[-1].tolist() == lod
    tol = 1e-5 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)
    assert want.shape[0] >= 2


def test_merging_happens_and_nothing_kept():
    boxes, scores = make(n=1)
    got = check_op("locality_aware_nms", {"BBoxes": boxes, "Scores": scores}, ATTRS)["Out"][0]
    assert (got.numpy()[:, 1] > 1).any()  # some merged score is a sum of scores
    empty = check_op("locality_aware_nms", {"BBoxes": boxes, "Scores": scores * 0},
                     ATTRS)["Out"][0]
    np.testing.assert_array_equal(empty.numpy(), [[-1]])
    assert empty.offsets[-1].tolist() == [0, 1]


def test_errors():
    boxes, scores = make()
    with pytest.raises(ProgramError, match="BBoxes with 8 coordinates .polygons. are not "
                                           "supported yet"):
        check_op("locality_aware_nms", {"BBoxes": np.concatenate([boxes, boxes], axis=2),
                                        "Scores": scores}, ATTRS)
    with pytest.raises(ProgramError, match="must agree on M"):
        check_op("locality_aware_nms", {"BBoxes": boxes[:, :5], "Scores": scores}, ATTRS)
    with pytest.raises(ProgramError, match="last dimension must be 4"):
        check_op("locality_aware_nms", {"BBoxes": boxes[:, :, :3], "Scores": scores}, ATTRS)
