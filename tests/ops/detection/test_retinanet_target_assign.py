"""retinanet_target_assign against the anchor-by-anchor reference (no sampling)."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op
from tests.ops.detection.anchor_target_reference import make_case, reference

rng = np.random.RandomState(33)


def feed_of(case, labels):
    anchors, gts, offsets, crowd, info = case
    return {"Anchor": anchors, "GtBoxes": LoDTensor(gts, [offsets]),
            "GtLabels": LoDTensor(labels.reshape(-1, 1), [offsets]),
            "IsCrowd": LoDTensor(crowd.reshape(-1, 1), [offsets]), "ImInfo": info}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("positive,negative", [(0.5, 0.4), (0.6, 0.2)])
def test_against_reference(dtype, positive, negative):
    case = make_case(rng, n_images=3, dtype=dtype)
    anchors, gts, offsets, crowd, info = case
    labels = rng.randint(1, 9, size=gts.shape[0]).astype(np.int32)
    got = check_op("retinanet_target_assign", feed_of(case, labels),
                   {"positive_overlap": positive, "negative_overlap": negative})
    want, lods = reference(anchors.astype(np.float64), gts.astype(np.float64), offsets,
                           crowd, info.astype(np.float64), -1.0, positive, negative, -1, -1.0,
                           None, labels)
    loc, score = got["LocationIndex"][0], got["ScoreIndex"][0]
    np.testing.assert_array_equal(loc.numpy(), want["loc"])
    np.testing.assert_array_equal(score.numpy(), want["score"])
    assert loc.offsets[-1].tolist() == lods["loc"] and score.offsets[-1].tolist() == lods["score"]
    np.testing.assert_array_equal(got["TargetLabel"][0].numpy().reshape(-1), want["label"])
    np.testing.assert_allclose(got["TargetBBox"][0].numpy(),
                               np.array(want["bbox"]).reshape(-1, 4), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got["BBoxInsideWeight"][0].numpy(),
                                  np.array(want["weight"]).reshape(-1, 4))
    fg_number = got["ForegroundNumber"][0]
    np.testing.assert_array_equal(fg_number.numpy().reshape(-1), want["fg_number"])
    assert fg_number.offsets[-1].tolist() == [0, 1, 2, 3]
    assert set(want["label"]) - {0}  # some foreground carries a class


def test_errors():
    case = make_case(rng)
    labels = np.ones(case[1].shape[0], np.int32)
    feed = feed_of(case, labels)
    with pytest.raises(ProgramError, match="GtLabels must be int32"):
        check_op("retinanet_target_assign", dict(feed, GtLabels=LoDTensor(
            labels.reshape(-1, 1).astype(np.int64), [case[2]])))
    with pytest.raises(ProgramError, match="GtLabels's LoD"):
        n = labels.size
        check_op("retinanet_target_assign", dict(feed, GtLabels=LoDTensor(
            labels.reshape(-1, 1), [[0, n, n]])))
    with pytest.raises(ProgramError, match="GtLabels must have 1 LoD level"):
        check_op("retinanet_target_assign", dict(feed, GtLabels=labels.reshape(-1, 1)))
