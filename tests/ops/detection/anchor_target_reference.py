"""Paddle's RPN / RetinaNet anchor targets anchor by anchor, from rpn_target_assign_op.cc:
what test_rpn_target_assign and test_retinanet_target_assign compare with."""

import math

import numpy as np

from paddle_ir.ops.detection.reservoir_sampling import reservoir_sample
from tests.ops.detection.box_reference import iou


def delta(a, g):
    aw, ah, gw, gh = a[2] - a[0] + 1, a[3] - a[1] + 1, g[2] - g[0] + 1, g[3] - g[1] + 1
    return [(g[0] + gw / 2 - a[0] - aw / 2) / aw, (g[1] + gh / 2 - a[1] - ah / 2) / ah,
            math.log(gw / aw), math.log(gh / ah)]


def reference(anchors, gts, offsets, crowd, info, straddle, positive, negative, batch,
              fraction, seed, labels=None):
    """Paddle's targets image by image; labels: TargetLabel is the best box's label."""
    out = {k: [] for k in ("loc", "score", "bbox", "label", "weight", "fg_number")}
    lods = {"loc": [0], "score": [0]}
    t = straddle
    for i in range(len(offsets) - 1):
        h, w, s = info[i]
        inside = [a for a in range(len(anchors)) if t < 0 or (
            anchors[a][0] >= -t and anchors[a][1] >= -t and anchors[a][2] < w + t
            and anchors[a][3] < h + t)]
        boxes = [gts[g] * s for g in range(offsets[i], offsets[i + 1]) if crowd[g] == 0]
        ov = [[float(iou(anchors[a], b, False)) for b in boxes] for a in inside]
        col_max = [max(ov[r][c] for r in range(len(inside))) for c in range(len(boxes))]
        fg = [r for r in range(len(inside))
              if any(abs(ov[r][c] - col_max[c]) < 1e-5 for c in range(len(boxes)))
              or (boxes and max(ov[r]) >= positive)]
        bg = [r for r in range(len(inside))
              if not boxes or max(ov[r]) < negative]
        if fraction > 0 and batch > 0:
            fg = reservoir_sample(fg, int(np.float32(fraction) * batch), seed)
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
        if labels is None:
            out["label"] += [1] * len(fgs) + [0] * len(bgs)
        else:
            kept = [g for g in range(offsets[i], offsets[i + 1]) if crowd[g] == 0]
            out["label"] += [int(labels[kept[int(np.argmax(ov[r]))]]) for r in fgs]
            out["label"] += [0] * len(bgs)
        out["fg_number"].append(len(loc) + 1)
        lods["loc"].append(len(out["loc"]))
        lods["score"].append(len(out["score"]))
    return out, lods


def make_case(rng, n_images=2, n_anchors=40, dtype=np.float64):
    """Anchors, GtBoxes near some of them, LoD offsets, IsCrowd, ImInfo."""
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
