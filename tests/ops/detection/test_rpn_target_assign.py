"""rpn_target_assign against a per-anchor loop written from Paddle's CPU kernel."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.detection.reservoir_sampling import reservoir_sample
from tests.op_test import check_op

rng = np.random.RandomState(27)


def iou(a, b):
    w = max(min(a[2], b[2]) - max(a[0], b[0]) + 1, 0)
    h = max(min(a[3], b[3]) - max(a[1], b[1]) + 1, 0)
    inter = w * h
    if inter == 0:
        return 0.0
    return inter / ((a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1)
                    * (b[3] - b[1] + 1) - inter)


def delta(a, g):
    aw, ah, gw, gh = a[2] - a[0] + 1, a[3] - a[1] + 1, g[2] - g[0] + 1, g[3] - g[1] + 1
    return [(g[0] + gw / 2 - a[0] - aw / 2) / aw, (g[1] + gh / 2 - a[1] - ah / 2) / ah,
            math.log(gw / aw), math.log(gh / ah)]


def reference(anchors, gts, offsets, crowd, info, attrs, seed):
    out = {k: [] for k in ("loc", "score", "bbox", "label", "weight")}
    lods = {"loc": [0], "score": [0]}
    t = attrs["rpn_straddle_thresh"]
    for i in range(len(offsets) - 1):
        h, w, s = info[i]
        inside = [a for a in range(len(anchors)) if t < 0 or (
            anchors[a][0] >= -t and anchors[a][1] >= -t and anchors[a][2] < w + t
            and anchors[a][3] < h + t)]
        boxes = [gts[g] * s for g in range(offsets[i], offsets[i + 1]) if crowd[g] == 0]
        ov = [[float(iou(anchors[a], b)) for b in boxes] for a in inside]
        col_max = [max(ov[r][c] for r in range(len(inside))) for c in range(len(boxes))]
        fg = [r for r in range(len(inside))
              if any(abs(ov[r][c] - col_max[c]) < 1e-5 for c in range(len(boxes)))
              or (boxes and max(ov[r]) >= attrs["rpn_positive_overlap"])]
        bg = [r for r in range(len(inside))
              if not boxes or max(ov[r]) < attrs["rpn_negative_overlap"]]
        batch = attrs["rpn_batch_size_per_im"]
        fg = reservoir_sample(fg, int(attrs["rpn_fg_fraction"] * batch), seed)
        bg = reservoir_sample(bg, batch - len(fg), seed)
        label = {r: 1 for r in fg}
        loc, weight = [], []
        for r in bg:
            if label.get(r) == 1:
                loc.append(fg[0])
                weight.append(0)
            label[r] = 0
        fgs = sorted(r for r, v in label.items() if v == 1)
        bgs = sorted(r for r, v in label.items() if v == 0)
        loc += fgs
        weight += [1] * len(fgs)
        base = i * len(anchors)
        for r in loc:
            best = int(np.argmax(ov[r]))
            out["bbox"].append(delta(anchors[inside[r]], boxes[best]))
        out["loc"] += [inside[r] + base for r in loc]
        out["weight"] += [[v] * 4 for v in weight]
        out["score"] += [inside[r] + base for r in fgs + bgs]
        out["label"] += [1] * len(fgs) + [0] * len(bgs)
        lods["loc"].append(len(out["loc"]))
        lods["score"].append(len(out["score"]))
    return out, lods


def make_case(n_images=2, n_anchors=40, dtype=np.float64):
    xy = rng.uniform(-20, 90, size=(n_anchors, 2))
    wh = rng.uniform(8, 40, size=(n_anchors, 2))
    anchors = np.concatenate([xy, xy + wh], axis=1).astype(dtype)
    counts = rng.randint(1, 4, size=n_images)
    offsets = np.concatenate([[0], np.cumsum(counts)]).tolist()
    # ground truths near some anchors so that IoUs span the thresholds
    picks = rng.choice(n_anchors, offsets[-1])
    gts = (anchors[picks] + rng.uniform(-4, 4, size=(offsets[-1], 4))).astype(dtype)
    gts[:, 2:] = np.maximum(gts[:, 2:], gts[:, :2] + 2)
    crowd = (rng.rand(offsets[-1]) < 0.2).astype(np.int32)
    crowd[offsets[:-1]] = 0
    info = np.array([[100, 110, 1.0]] * n_images, dtype)
    return anchors, gts, offsets, crowd, info


def run(case, attrs):
    anchors, gts, offsets, crowd, info = case
    return check_op("rpn_target_assign", {
        "Anchor": anchors, "GtBoxes": LoDTensor(gts, [offsets]),
        "IsCrowd": LoDTensor(crowd.reshape(-1, 1), [offsets]), "ImInfo": info}, attrs)


ATTRS = {"rpn_batch_size_per_im": 12, "rpn_straddle_thresh": 0.0,
         "rpn_positive_overlap": 0.5, "rpn_negative_overlap": 0.3, "rpn_fg_fraction": 0.5}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("use_random,seed", [(False, None), (True, 7), (True, 2**31 + 5)])
@pytest.mark.parametrize("straddle", [0.0, -1.0])
def test_against_reference(dtype, use_random, seed, straddle):
    case = make_case(dtype=dtype)
    attrs = dict(ATTRS, use_random=use_random, fix_seed=seed is not None,
                 seed=0 if seed is None else seed - 2**32 * (seed >= 2**31),
                 rpn_straddle_thresh=straddle)
    anchors, gts, offsets, crowd, info = case
    want, lods = reference(anchors.astype(np.float64), gts.astype(np.float64), offsets,
                           crowd, info.astype(np.float64), attrs,
                           seed if use_random else None)
    got = run(case, attrs)
    loc, score = got["LocationIndex"][0], got["ScoreIndex"][0]
    np.testing.assert_array_equal(loc.numpy(), want["loc"])
    np.testing.assert_array_equal(score.numpy(), want["score"])
    assert loc.offsets[-1].tolist() == lods["loc"] and score.offsets[-1].tolist() == lods["score"]
    np.testing.assert_array_equal(got["TargetLabel"][0].numpy().reshape(-1), want["label"])
    np.testing.assert_allclose(got["TargetBBox"][0].numpy(),
                               np.array(want["bbox"]).reshape(-1, 4), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got["BBoxInsideWeight"][0].numpy(),
                                  np.array(want["weight"]).reshape(-1, 4))
    assert len(want["loc"]) and len(want["score"]) > len(want["loc"])


def test_fixed_seed_repeats_and_seeds_differ():
    case = make_case(n_anchors=80)
    attrs = dict(ATTRS, rpn_batch_size_per_im=6, rpn_negative_overlap=0.6, fix_seed=True)
    first = run(case, dict(attrs, seed=1))["ScoreIndex"][0].numpy()
    assert np.array_equal(first, run(case, dict(attrs, seed=1))["ScoreIndex"][0].numpy())
    others = [run(case, dict(attrs, seed=s))["ScoreIndex"][0].numpy() for s in (2, 3, 4)]
    assert any(not np.array_equal(first, o) for o in others)


def test_errors():
    anchors, gts, offsets, crowd, info = make_case()
    feed = {"Anchor": anchors, "GtBoxes": LoDTensor(gts, [offsets]),
            "IsCrowd": LoDTensor(crowd.reshape(-1, 1), [offsets]), "ImInfo": info}
    with pytest.raises(ProgramError, match="GtBoxes' LoD has 2 images, but ImInfo has 3"):
        check_op("rpn_target_assign", dict(feed, ImInfo=np.concatenate([info, info[:1]])))
    with pytest.raises(ProgramError, match="IsCrowd's LoD"):
        other = [0, offsets[-1], offsets[-1]]
        check_op("rpn_target_assign", dict(feed, IsCrowd=LoDTensor(crowd.reshape(-1, 1),
                                                                   [other])))
    with pytest.raises(ProgramError, match="IsCrowd must be int32"):
        check_op("rpn_target_assign", dict(feed, IsCrowd=LoDTensor(
            crowd.reshape(-1, 1).astype(np.int64), [offsets])))
    with pytest.raises(ProgramError, match="GtBoxes must have 1 LoD level"):
        check_op("rpn_target_assign", dict(feed, GtBoxes=gts))
    with pytest.raises(ProgramError, match=r"Anchor must be \[\*, 4\]"):
        check_op("rpn_target_assign", dict(feed, Anchor=anchors[:, :3]))
