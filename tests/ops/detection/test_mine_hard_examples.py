"""mine_hard_examples against a per-prior loop written from Paddle 1.8's kernel."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op

rng = np.random.RandomState(91)


def reference(cls, loc, match, dist, mining, ratio=1.0, threshold=0.5, sample_size=0):
    """(NegIndices rows, LoD offsets, UpdatedMatchIndices), prior by prior."""
    updated = match.copy()
    rows, offsets = [], [0]
    for n in range(match.shape[0]):
        cand = []
        for m in range(match.shape[1]):
            if mining == "hard_example" or (match[n, m] == -1 and dist[n, m] < threshold):
                loss = cls[n, m] + (loc[n, m] if mining == "hard_example" and loc is not None
                                    else 0)
                cand.append((loss, m))
        if mining == "max_negative":
            num_pos = sum(1 for m in range(match.shape[1]) if match[n, m] != -1)
            keep = min(int(num_pos * ratio), len(cand))
        else:
            keep = min(sample_size, len(cand))
        # distinct losses in these tests: any correct ranking agrees
        picked = {m for _, m in sorted(cand, key=lambda c: -c[0])[:keep]}
        if mining == "max_negative":
            negs = sorted(picked)
        else:
            negs = []
            for m in range(match.shape[1]):
                if match[n, m] > -1 and m not in picked:
                    updated[n, m] = -1
                elif match[n, m] <= -1 and m in picked:
                    negs.append(m)
        rows += negs
        offsets.append(offsets[-1] + len(negs))
    return np.array(rows, np.int32).reshape(-1, 1), offsets, updated


def inputs(n=3, priors=12, dtype=np.float32):
    match = rng.randint(-1, 3, size=(n, priors)).astype(np.int32)
    match[rng.rand(n, priors) < 0.4] = -1
    return {"ClsLoss": rng.rand(n, priors).astype(dtype),
            "LocLoss": rng.rand(n, priors).astype(dtype),
            "MatchIndices": match,
            "MatchDist": rng.rand(n, priors).astype(dtype)}


def run(feed, attrs):
    got = check_op("mine_hard_examples", feed, attrs)
    neg = got["NegIndices"][0]
    return neg.numpy(), [int(v) for v in neg.offsets[-1]], got["UpdatedMatchIndices"][0].numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ratio,threshold", [(1.0, 0.5), (0.5, 0.9), (3.0, 0.3)])
def test_max_negative(dtype, ratio, threshold):
    feed = inputs(dtype=dtype)
    attrs = {"mining_type": "max_negative", "neg_pos_ratio": ratio,
             "neg_dist_threshold": threshold}
    neg, offsets, updated = run(feed, attrs)
    want_neg, want_off, want_upd = reference(feed["ClsLoss"], feed["LocLoss"],
                                             feed["MatchIndices"], feed["MatchDist"],
                                             "max_negative", ratio, threshold)
    np.testing.assert_array_equal(neg, want_neg)
    assert offsets == want_off
    np.testing.assert_array_equal(updated, feed["MatchIndices"])  # untouched in this mode
    assert want_neg.size  # the draw selects something


@pytest.mark.parametrize("with_loc", [True, False])
@pytest.mark.parametrize("sample_size", [1, 5, 40])
def test_hard_example(with_loc, sample_size):
    feed = inputs()
    if not with_loc:
        del feed["LocLoss"]
    neg, offsets, updated = run(feed, {"mining_type": "hard_example",
                                       "sample_size": sample_size})
    want_neg, want_off, want_upd = reference(feed["ClsLoss"], feed.get("LocLoss"),
                                             feed["MatchIndices"], feed["MatchDist"],
                                             "hard_example", sample_size=sample_size)
    np.testing.assert_array_equal(neg, want_neg)
    assert offsets == want_off
    np.testing.assert_array_equal(updated, want_upd)


def test_paddle_unit_cases():
    # Paddle's own test_mine_hard_examples_op.py: its inputs and expected outputs
    feed = {"ClsLoss": np.array([[0.1, 0.1, 0.3], [0.3, 0.1, 0.1]]),
            "LocLoss": np.array([[0.1, 0.2, 0.3], [0.3, 0.4, 0.1]]),
            "MatchIndices": np.array([[0, -1, -1], [-1, 0, -1]], np.int32),
            "MatchDist": np.array([[0.2, 0.4, 0.8], [0.1, 0.9, 0.3]])}
    neg, offsets, updated = run(feed, {"mining_type": "max_negative",
                                       "neg_pos_ratio": 1.0, "neg_dist_threshold": 0.5})
    np.testing.assert_array_equal(neg, [[1], [0]])
    assert offsets == [0, 1, 2]
    np.testing.assert_array_equal(updated, feed["MatchIndices"])
    feed["ClsLoss"] = np.array([[0.5, 0.1, 0.3], [0.3, 0.1, 0.1]])
    feed["LocLoss"] = np.array([[0.2, 0.2, 0.3], [0.3, 0.1, 0.2]])
    neg, offsets, updated = run(feed, {"mining_type": "hard_example", "sample_size": 2})
    np.testing.assert_array_equal(neg, [[2], [0], [2]])
    assert offsets == [0, 1, 3]
    np.testing.assert_array_equal(updated, [[0, -1, -1], [-1, -1, -1]])


def test_no_positives_selects_nothing():
    feed = inputs(n=2, priors=5)
    feed["MatchIndices"][:] = -1
    neg, offsets, _ = run(feed, {"mining_type": "max_negative"})
    assert neg.shape == (0, 1) and offsets == [0, 0, 0]


def test_errors():
    feed = inputs(n=2, priors=4)
    with pytest.raises(ProgramError, match="mining_type must be one of"):
        check_op("mine_hard_examples", feed, {"mining_type": "random"})
    with pytest.raises(ProgramError, match="sample_size must be > 0 in hard_example"):
        check_op("mine_hard_examples", feed, {"mining_type": "hard_example"})
    with pytest.raises(ProgramError, match=r"neg_dist_threshold must lie in \(0, 1\)"):
        check_op("mine_hard_examples", feed, {"neg_dist_threshold": 1.5})
    with pytest.raises(ProgramError, match="neg_pos_ratio must be > 0"):
        check_op("mine_hard_examples", feed, {"neg_pos_ratio": 0.0})
    bad = dict(feed, MatchIndices=feed["MatchIndices"].astype(np.int64))
    with pytest.raises(ProgramError, match="MatchIndices must be int32"):
        check_op("mine_hard_examples", bad)
    bad = dict(feed, MatchDist=feed["MatchDist"][:, :3])
    with pytest.raises(ProgramError, match=r"MatchDist \[2, 3\] must have ClsLoss' shape"):
        check_op("mine_hard_examples", bad)
    bad = dict(feed, LocLoss=feed["LocLoss"].astype(np.float64))
    with pytest.raises(ProgramError, match="LocLoss must have ClsLoss' dtype"):
        check_op("mine_hard_examples", bad)
