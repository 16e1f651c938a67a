"""generate_proposal_labels against a per-box loop written from Paddle's CPU kernel."""

import math

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import build_one_op, check_op
from tests.ops.detection.box_reference import iou

rng = np.random.RandomState(45)


def draws(seed, count):
    """minstd_rand from `seed`, each step as libstdc++'s uniform float."""
    state, out = seed % (2**31 - 1) or 1, []
    for _ in range(count):
        state = state * 48271 % (2**31 - 1)
        out.append(np.float32(state - 1) / np.float32(2**31))
    return out


def reference(rois, roi_off, gts, gt_off, classes, crowd, info, attrs, seed, overlaps=None):
    out = {k: [] for k in ("rois", "labels", "targets", "weights", "max")}
    lod = [0]
    width = 4 * attrs["class_nums"]
    for i in range(len(roi_off) - 1):
        if roi_off[i] == roi_off[i + 1]:
            lod.append(lod[-1])
            continue
        scale = info[i][2]
        g = [gts[k] for k in range(gt_off[i], gt_off[i + 1])]
        r = [rois[k] / scale for k in range(roi_off[i], roi_off[i + 1])]
        if attrs["is_cascade_rcnn"]:
            r = [b for b, m in zip(r, overlaps[roi_off[i]:roi_off[i + 1]], strict=True)
                 if b[2] - b[0] + 1 > 0 and b[3] - b[1] + 1 > 0 and m < 1] or [np.zeros(4)]
        boxes = g + r
        fg, fg_gt, bg, row_max = [], [], [], []
        for n, b in enumerate(boxes):
            ov = [iou(b, t, False) for t in g]
            m = max(ov)
            row_max.append(m)
            if n < len(g) and crowd[gt_off[i] + n]:
                m = -1
            if m >= attrs["fg_thresh"]:
                j = next(j for j, v in enumerate(ov) if abs(m - v) < 1e-5)
                fg.append(n)
                fg_gt.append(j)
            elif attrs["bg_thresh_lo"] <= m < attrs["bg_thresh_hi"]:
                bg.append(n)
        if not attrs["is_cascade_rcnn"]:
            batch = attrs["batch_size_per_im"]
            nf = min(math.floor(batch * attrs["fg_fraction"]), len(fg))
            nb = min(batch - nf, len(bg))
            u = iter(draws(seed, 10000)) if seed is not None else None
            if u is not None:
                for k in range(nf, len(fg)):
                    p = math.floor(next(u) * np.float32(k))
                    if p < nf:
                        fg[p], fg[k] = fg[k], fg[p]
                        fg_gt[p], fg_gt[k] = fg_gt[k], fg_gt[p]
                for k in range(nb, len(bg)):
                    p = math.floor(next(u) * np.float32(k))
                    if p < nf:
                        bg[p], bg[k] = bg[k], bg[p]
            fg, fg_gt, bg = fg[:nf], fg_gt[:nf], bg[:nb]
        for n, j in zip(fg, fg_gt, strict=True):
            label = int(classes[gt_off[i] + j])
            out["labels"].append(label)
            row, weight = [0.0] * width, [0.0] * width
            if label > 0:
                col = 1 if attrs["is_cls_agnostic"] else label
                a, t = boxes[n], g[j]
                aw, ah, tw, th = a[2] - a[0] + 1, a[3] - a[1] + 1, t[2] - t[0] + 1, t[3] - t[1] + 1
                d = [(t[0] + tw / 2 - a[0] - aw / 2) / aw, (t[1] + th / 2 - a[1] - ah / 2) / ah,
                     math.log(tw / aw), math.log(th / ah)]
                for k in range(4):
                    row[4 * col + k] = d[k] / attrs["bbox_reg_weights"][k]
                    weight[4 * col + k] = 1.0
            out["targets"].append(row)
            out["weights"].append(weight)
        for _ in bg:
            out["labels"].append(0)
            out["targets"].append([0.0] * width)
            out["weights"].append([0.0] * width)
        for n in fg + bg:
            out["rois"].append(boxes[n] * scale)
            out["max"].append(row_max[n])
        lod.append(lod[-1] + len(fg) + len(bg))
    return out, lod


def make_case(n_images=2, n_rois=30, dtype=np.float64):
    counts = rng.randint(1, 4, size=n_images)
    gt_off = np.concatenate([[0], np.cumsum(counts)]).tolist()
    low = rng.uniform(0, 60, size=(gt_off[-1], 2))
    gts = np.concatenate([low, low + rng.uniform(10, 30, size=(gt_off[-1], 2))], axis=1)
    roi_off = [0]
    rois = []
    for i in range(n_images):
        near = gts[rng.randint(gt_off[i], gt_off[i + 1], size=n_rois)]
        rois.append(near + rng.uniform(-8, 8, size=(n_rois, 4)))
        roi_off.append(roi_off[-1] + n_rois)
    scale = rng.uniform(0.5, 2.0, size=n_images)
    rois = np.concatenate(rois) * np.repeat(scale, n_rois)[:, None]
    classes = rng.randint(1, 5, size=gt_off[-1]).astype(np.int32)
    crowd = (rng.rand(gt_off[-1]) < 0.25).astype(np.int32)
    info = np.stack([np.full(n_images, 100.0), np.full(n_images, 100.0), scale], axis=1)
    return [np.asarray(v, dtype) if v.dtype.kind == "f" else v
            for v in (rois, np.array(roi_off), gts, np.array(gt_off), classes, crowd, info)]


def feed_of(case):
    rois, roi_off, gts, gt_off, classes, crowd, info = case
    return {"RpnRois": LoDTensor(rois, [roi_off.tolist()]),
            "GtClasses": LoDTensor(classes.reshape(-1, 1), [gt_off.tolist()]),
            "IsCrowd": LoDTensor(crowd.reshape(-1, 1), [gt_off.tolist()]),
            "GtBoxes": LoDTensor(gts, [gt_off.tolist()]), "ImInfo": info}


ALL_OUTPUTS = {slot: 1 for slot in ("Rois", "LabelsInt32", "BboxTargets", "BboxInsideWeights",
                                    "BboxOutsideWeights", "MaxOverlapWithGT")}
ATTRS = {"batch_size_per_im": 16, "fg_fraction": 0.25, "fg_thresh": 0.5, "bg_thresh_hi": 0.5,
         "bg_thresh_lo": 0.0, "bbox_reg_weights": [0.1, 0.1, 0.2, 0.2], "class_nums": 5,
         "is_cls_agnostic": False, "is_cascade_rcnn": False}


def compare(got, want, lod):
    rois = got["Rois"][0]
    assert rois.offsets[-1].tolist() == lod
    np.testing.assert_allclose(rois.numpy(), np.array(want["rois"]).reshape(-1, 4), rtol=1e-6)
    np.testing.assert_array_equal(got["LabelsInt32"][0].numpy().reshape(-1), want["labels"])
    np.testing.assert_allclose(got["BboxTargets"][0].numpy(), want["targets"], rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_array_equal(got["BboxInsideWeights"][0].numpy(), want["weights"])
    np.testing.assert_array_equal(got["BboxOutsideWeights"][0].numpy(), want["weights"])
    if "MaxOverlapWithGT" in got:  # Paddle 2's output; a 1.8 program has none
        np.testing.assert_allclose(got["MaxOverlapWithGT"][0].numpy(), want["max"], rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("seed", [None, 11, 90210])
@pytest.mark.parametrize("agnostic", [False, True])
def test_sampling_against_reference(dtype, seed, agnostic):
    case = make_case(dtype=dtype)
    attrs = dict(ATTRS, use_random=seed is not None, fix_seed=True, seed=seed or 0,
                 is_cls_agnostic=agnostic)
    got = check_op("generate_proposal_labels", feed_of(case), attrs, outputs=ALL_OUTPUTS)
    want, lod = reference(*[np.asarray(v, np.float64) if v.dtype.kind == "f" else v
                            for v in case], attrs, seed)
    compare(got, want, lod)
    assert 0 < want["labels"].count(0) < len(want["labels"])


def test_random_draws_change_the_sample():
    case = make_case(n_rois=60)
    attrs = dict(ATTRS, fix_seed=True)
    first = check_op("generate_proposal_labels", feed_of(case), dict(attrs, use_random=False))
    drawn = check_op("generate_proposal_labels", feed_of(case), dict(attrs, seed=5))
    assert not np.array_equal(first["Rois"][0].numpy(), drawn["Rois"][0].numpy())


def test_cascade_and_empty_image():
    rois, roi_off, gts, gt_off, classes, crowd, info = make_case(n_images=3)
    # image 1 has no RoIs: skipped, its LoD range empty
    keep = np.r_[0:roi_off[1], roi_off[2]:roi_off[3]]
    rois, roi_off = rois[keep], np.array([0, roi_off[1], roi_off[1], len(keep)])
    overlaps = rng.uniform(0.3, 1.2, size=len(keep))
    case = [rois, roi_off, gts, gt_off, classes, crowd, info]
    feed = dict(feed_of(case), MaxOverlap=LoDTensor(overlaps, [roi_off.tolist()]))
    attrs = dict(ATTRS, is_cascade_rcnn=True, use_random=False)
    got = check_op("generate_proposal_labels", feed, attrs, outputs=ALL_OUTPUTS)
    want, lod = reference(*case, attrs, None, overlaps)
    compare(got, want, lod)
    assert lod[1] == lod[2]


def test_errors():
    case = make_case()
    feed = feed_of(case)
    with pytest.raises(ProgramError, match="MaxOverlap must be given when is_cascade_rcnn"):
        check_op("generate_proposal_labels", feed, dict(ATTRS, is_cascade_rcnn=True))
    with pytest.raises(ProgramError, match="GtClasses holds class 4, but class_nums is 3"):
        classes = case[4].copy()
        classes[:] = 4
        check_op("generate_proposal_labels", dict(feed, GtClasses=LoDTensor(
            classes.reshape(-1, 1), [case[3].tolist()])), dict(ATTRS, class_nums=3))
    with pytest.raises(ProgramError, match="RpnRois' LoD has 1 images, but ImInfo has 2"):
        check_op("generate_proposal_labels", dict(feed, RpnRois=LoDTensor(
            case[0], [[0, len(case[0])]])))
    with pytest.raises(ProgramError, match="GtClasses must be int32"):
        check_op("generate_proposal_labels", dict(feed, GtClasses=LoDTensor(
            case[4].reshape(-1, 1).astype(np.int64), [case[3].tolist()])))
    with pytest.raises(ProgramError, match="bbox_reg_weights must hold 4 values"):
        check_op("generate_proposal_labels", feed, dict(ATTRS, bbox_reg_weights=[1.0]))


def test_unseeded_draws_sample_the_same_counts():
    # without fix_seed the seed is fresh each run (Paddle's random_device): the sample
    # may differ, its size and makeup rules may not
    case = make_case(n_rois=60)
    program, feed, out = build_one_op("generate_proposal_labels", feed_of(case),
                                      dict(ATTRS, use_random=True))
    fixed = check_op("generate_proposal_labels", feed_of(case), dict(ATTRS, use_random=False))
    exe = pir.Executor()
    for _ in range(3):
        rois, labels = exe.run(program, feed=feed, scope=pir.Scope(), return_numpy=False,
                               fetch_list=[out["Rois"][0], out["LabelsInt32"][0]])
        assert rois.offsets[-1].tolist() == fixed["Rois"][0].offsets[-1].tolist()
        np.testing.assert_array_equal(np.sort(labels.numpy() > 0, axis=None),
                                      np.sort(fixed["LabelsInt32"][0].numpy() > 0, axis=None))
