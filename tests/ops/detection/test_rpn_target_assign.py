"""rpn_target_assign against a per-anchor loop written from Paddle's CPU kernel."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import build_one_op, check_op
from tests.ops.detection.anchor_target_reference import make_case, reference

rng = np.random.RandomState(27)


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
    case = make_case(rng, dtype=dtype)
    attrs = dict(ATTRS, use_random=use_random, fix_seed=seed is not None,
                 seed=0 if seed is None else seed - 2**32 * (seed >= 2**31),
                 rpn_straddle_thresh=straddle)
    anchors, gts, offsets, crowd, info = case
    want, lods = reference(anchors.astype(np.float64), gts.astype(np.float64), offsets,
                           crowd, info.astype(np.float64), straddle,
                           attrs["rpn_positive_overlap"], attrs["rpn_negative_overlap"],
                           attrs["rpn_batch_size_per_im"], attrs["rpn_fg_fraction"],
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
    case = make_case(rng, n_anchors=80)
    attrs = dict(ATTRS, rpn_batch_size_per_im=6, rpn_negative_overlap=0.6, fix_seed=True)
    first = run(case, dict(attrs, seed=1))["ScoreIndex"][0].numpy()
    assert np.array_equal(first, run(case, dict(attrs, seed=1))["ScoreIndex"][0].numpy())
    others = [run(case, dict(attrs, seed=s))["ScoreIndex"][0].numpy() for s in (2, 3, 4)]
    assert any(not np.array_equal(first, o) for o in others)


def test_errors():
    anchors, gts, offsets, crowd, info = make_case(rng)
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


def test_unseeded_draws_sample_the_same_counts():
    # without fix_seed the seed is fresh each run (Paddle's random_device): which anchors
    # are drawn may change, how many foreground locations each image gets may not
    anchors, gts, offsets, crowd, info = case = make_case(rng, n_anchors=80)
    attrs = dict(ATTRS, rpn_batch_size_per_im=6, rpn_negative_overlap=0.6)
    fixed = run(case, dict(attrs, use_random=False))["LocationIndex"][0].offsets[-1].tolist()
    program, feed, out = build_one_op("rpn_target_assign", {
        "Anchor": anchors, "GtBoxes": LoDTensor(gts, [offsets]),
        "IsCrowd": LoDTensor(crowd.reshape(-1, 1), [offsets]), "ImInfo": info}, attrs)
    exe = pir.Executor()
    for _ in range(3):
        loc, = exe.run(program, feed=feed, scope=pir.Scope(), return_numpy=False,
                       fetch_list=[out["LocationIndex"][0]])
        assert loc.offsets[-1].tolist() == fixed
