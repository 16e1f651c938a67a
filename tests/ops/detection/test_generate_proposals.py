"""generate_proposals(_v2) against the RPN's steps written box by box (the fixture
`proposals` checks both against Paddle)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op

rng = np.random.RandomState(85)


def _iou(a, b, off):
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    w = min(a[2], b[2]) - max(a[0], b[0]) + off
    h = min(a[3], b[3]) - max(a[1], b[1]) + off
    area = lambda t: (t[2] - t[0] + off) * (t[3] - t[1] + off)  # noqa: E731
    return w * h / (area(a) + area(b) - w * h)


def _one_image(scores, deltas, anchors, variances, im, attrs, off, v1):
    order = sorted(range(len(scores)), key=lambda k: -scores[k])[:attrs["pre_nms_topN"]]
    height, width = float(im[0]), float(im[1])
    found = []
    for k in order:
        a, d, v = anchors[k], deltas[k], variances[k]
        aw, ah = a[2] - a[0] + off, a[3] - a[1] + off
        cx, cy = v[0] * d[0] * aw + a[0] + aw / 2, v[1] * d[1] * ah + a[1] + ah / 2
        w = math.exp(min(v[2] * d[2], math.log(1000 / 16))) * aw
        h = math.exp(min(v[3] * d[3], math.log(1000 / 16))) * ah
        box = [cx - w / 2, cy - h / 2, cx + w / 2 - off, cy + h / 2 - off]
        box = [min(max(box[i], 0), (width if i % 2 == 0 else height) - off) for i in range(4)]
        bw, bh = box[2] - box[0] + off, box[3] - box[1] + off
        ok = True
        if off:
            ok = box[0] + bw / 2 <= width and box[1] + bh / 2 <= height
            if v1:
                bw, bh = (box[2] - box[0]) / im[2] + 1, (box[3] - box[1]) / im[2] + 1
        if ok and bw >= max(attrs["min_size"], 1) and bh >= max(attrs["min_size"], 1):
            found.append((box, scores[k]))
    if not found:
        return [[0.0] * 4], [0.0]
    kept = []
    for box, score in found:
        if all(_iou(box, other, off) <= attrs["nms_thresh"] for other, _ in kept):
            kept.append((box, score))
    kept = kept[:attrs["post_nms_topN"]]
    return [b for b, _ in kept], [s for _, s in kept]


def _case(v1, pixel_offset=True):
    n, a, h, w = 2, 2, 4, 5
    scores = rng.randn(n, a, h, w).astype(np.float32)
    deltas = (rng.randn(n, 4 * a, h, w) * 0.4).astype(np.float32)
    centre = np.stack(np.meshgrid(np.arange(w) * 8 + 4, np.arange(h) * 8 + 4), -1)
    sizes = np.array([10.0, 20.0])
    anchors = np.concatenate([centre[:, :, None, :] - sizes[None, None, :, None] / 2,
                              centre[:, :, None, :] + sizes[None, None, :, None] / 2],
                             axis=-1).astype(np.float32)
    variances = np.broadcast_to(np.float32([0.1, 0.1, 0.2, 0.2]), anchors.shape).copy()
    image = (np.array([[32, 40, 1.0], [60, 70, 2.0]], np.float32) if v1
             else np.array([[32, 40], [30, 36]], np.float32))
    attrs = {"pre_nms_topN": 25, "post_nms_topN": 8, "nms_thresh": 0.5, "min_size": 3.0,
             "eta": 1.0}
    if not v1:
        attrs["pixel_offset"] = pixel_offset
    off = 1.0 if pixel_offset else 0.0
    rois, probs, counts = [], [], []
    for i in range(n):
        b, s = _one_image(scores[i].transpose(1, 2, 0).reshape(-1),
                          deltas[i].transpose(1, 2, 0).reshape(-1, 4),
                          anchors.reshape(-1, 4), variances.reshape(-1, 4), image[i], attrs,
                          off, v1)
        rois += b
        probs += s
        counts.append(len(s))
    offsets = np.concatenate([[0], np.cumsum(counts)]).tolist()
    inputs = {"Scores": scores, "BboxDeltas": deltas, "ImInfo" if v1 else "ImShape": image,
              "Anchors": anchors, "Variances": variances}
    want = {"RpnRois": LoDTensor(np.array(rois, np.float32), [offsets]),
            "RpnRoiProbs": LoDTensor(np.array(probs, np.float32).reshape(-1, 1), [offsets]),
            "RpnRoisNum": np.array(counts, np.int32)}
    return inputs, attrs, want


@pytest.mark.parametrize("v1,pixel_offset", [(True, True), (False, True), (False, False)])
def test_generate_proposals(v1, pixel_offset):
    inputs, attrs, want = _case(v1, pixel_offset)
    check_op("generate_proposals" if v1 else "generate_proposals_v2", inputs, attrs, want,
             atol=1e-4, outputs={"RpnRois": 1, "RpnRoiProbs": 1, "RpnRoisNum": 1})


def test_an_image_with_no_box_left_gives_one_zero_box():
    inputs, attrs, _ = _case(False)
    attrs["min_size"] = 1000.0
    got = check_op("generate_proposals_v2", inputs, attrs,
                   outputs={"RpnRois": 1, "RpnRoiProbs": 1, "RpnRoisNum": 1})
    np.testing.assert_array_equal(got["RpnRois"][0].numpy(), np.zeros((2, 4), np.float32))
    assert got["RpnRois"][0].lod() == [[0, 1, 2]]


def test_errors():
    inputs, attrs, _ = _case(False)
    inputs["BboxDeltas"] = inputs["BboxDeltas"][:, :6]
    with pytest.raises(ProgramError, match=r"BboxDeltas \[2, 6, 4, 5\] must be \[N, 4A, H, W\]"):
        check_op("generate_proposals_v2", inputs, attrs)
    inputs, attrs, _ = _case(False)
    inputs["Anchors"] = inputs["Anchors"][:3]
    inputs["Variances"] = inputs["Variances"][:3]
    with pytest.raises(ProgramError, match="must hold one box per score of an image"):
        check_op("generate_proposals_v2", inputs, attrs)
