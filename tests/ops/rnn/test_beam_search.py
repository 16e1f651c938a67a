"""beam_search, beam_search_decode and gather_tree (ops/rnn/beam_search.py)."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import PaddleIRError, ShapeInferenceError
from tests.op_test import append_declared_op, check_op

END = 3


def lod2(values, sources, children, dtype):
    return pir.create_lod_tensor(np.asarray(values, dtype=dtype).reshape(-1, 1),
                                 [sources, children])


def test_one_step_keeps_the_best_per_source_grouped_by_parent():
    # Source 0 has prefix rows 0, 1; source 1 has row 2 (finished: its last id is END).
    pre_ids = lod2([5, 6, END], [2, 1], [1, 1, 1], np.int64)
    pre_scores = lod2([-1.0, -2.0, -0.5], [2, 1], [1, 1, 1], np.float32)
    ids = np.array([[7, 8], [9, 4], [1, 2]], dtype=np.int64)
    scores = pir.create_lod_tensor(np.array([[-1.5, -3.0], [-2.2, -2.1], [-9, -9]],
                                            dtype=np.float32), [[2, 1], [1, 1, 1]])
    # Source 0: candidates -1.5 (row 0, id 7), -3.0, -2.2 (row 1, id 9), -2.1 (row 1, id 4);
    # best 2: -1.5 (row 0) and -2.1 (row 1). Source 1: finished, carries (END, -0.5) and,
    # all of its kept candidates being END after END, is pruned.
    got = check_op("beam_search", {"pre_ids": pre_ids, "pre_scores": pre_scores, "ids": ids,
                                   "scores": scores},
                   {"beam_size": 2, "end_id": END},
                   {"selected_ids": lod2([7, 4], [2, 1], [1, 1, 0], np.int64),
                    "selected_scores": lod2([-1.5, -2.1], [2, 1], [1, 1, 0], np.float32),
                    "parent_idx": np.array([0, 1], dtype=np.int32)},
                   outputs={"selected_ids": 1, "selected_scores": 1, "parent_idx": 1})
    assert got["selected_ids"][0].lod() == [[0, 2, 3], [0, 1, 2, 2]]


def reference_step(pre_ids, pre_scores, ids, scores, src_rows, beam, end, accumulated):
    """Per source: list the candidates, sort them as Paddle does, keep `beam`, prune."""
    out = []
    for lo, hi in zip(src_rows, src_rows[1:], strict=False):
        cands = []
        for r in range(lo, hi):
            if pre_ids[r] == end:
                cands.append((pre_scores[r], r, 0, end))
                continue
            for k in range(scores.shape[1]):
                s = scores[r, k] if accumulated else pre_scores[r] + np.log(scores[r, k])
                cands.append((s, r, k, ids[r, k]))
        cands.sort(key=lambda c: (-c[0], -c[1], c[2]))
        kept = cands[:beam]
        if all(c[3] == end and pre_ids[c[1]] == end for c in kept):
            kept = []
        out += sorted(kept, key=lambda c: (c[1], -c[0], c[2]))
    return out


@pytest.mark.parametrize("accumulated", [True, False])
def test_random_steps_match_the_reference(accumulated):
    rng = np.random.RandomState(4)
    for _ in range(5):
        sources = list(rng.randint(1, 4, 3))
        rows = sum(sources)
        pre = rng.randint(0, 5, rows)
        pre[rng.rand(rows) < 0.3] = END
        pre_scores = rng.uniform(-3, 0, rows).astype(np.float32)
        ids = rng.randint(0, 6, (rows, 3)).astype(np.int64)
        scores = rng.uniform(0.05, 1, (rows, 3)).astype(np.float32)
        if accumulated:
            scores = np.log(scores) + pre_scores[:, None]
        src_rows = np.concatenate([[0], np.cumsum(sources)])
        want = reference_step(pre, pre_scores, ids, scores, src_rows, 2, END, accumulated)
        children = np.bincount([c[1] for c in want], minlength=rows).astype(int).tolist()
        lod = [sources, [1] * rows]
        got = check_op("beam_search",
                       {"pre_ids": pir.create_lod_tensor(pre.reshape(-1, 1), lod),
                        "pre_scores": pir.create_lod_tensor(pre_scores.reshape(-1, 1), lod),
                        "ids": ids, "scores": pir.create_lod_tensor(scores, lod)},
                       {"beam_size": 2, "end_id": END, "is_accumulated": accumulated},
                       {"selected_ids": lod2([c[3] for c in want], sources, children,
                                             np.int64)})
        np.testing.assert_allclose(got["selected_scores"][0].numpy().reshape(-1),
                                   [c[0] for c in want], rtol=1e-6)


def test_beam_search_needs_the_source_level():
    prog = pir.Program()
    b = prog.global_block()
    args = {n: b.create_var(name=n, shape=[-1, 1], dtype=d, lod_level=1)
            for n, d in (("pre_ids", "int64"), ("pre_scores", "float32"),
                         ("scores", "float32"))}
    outs = {n: b.create_var(name=n + "_o", dtype="float32")
            for n in ("selected_ids", "selected_scores")}
    b.append_op("beam_search", inputs=args, outputs=outs,
                attrs={"beam_size": 2, "end_id": 1, "level": 0})
    with pytest.raises(ShapeInferenceError, match="needs a LoD level 1"):
        b.append_op("beam_search", inputs=args, outputs=outs,
                    attrs={"beam_size": 2, "end_id": 1, "level": 1})


rng = np.random.RandomState(41)


def test_gather_tree():
    ids = rng.randint(0, 9, (4, 2, 3)).astype(np.int64)
    parents = rng.randint(0, 3, (4, 2, 3)).astype(np.int64)
    want = np.zeros_like(ids)
    for b in range(2):
        for k in range(3):
            beam = k
            for t in range(3, -1, -1):
                want[t, b, k] = ids[t, b, beam]
                beam = parents[t, b, beam]
    check_op("gather_tree", {"Ids": ids, "Parents": parents}, {}, {"Out": want})


ERROR_CASES = [
    ("gather_tree", {"Ids": np.ones((2, 1, 2), np.int64), "Parents": np.ones((2, 1, 3),
                                                                              np.int64)}, {},
     "Ids and Parents must be"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)


F, I64 = "float32", "int64"

BUILD_ERRORS = [
    ("beam_search", {"pre_ids": ([-1, 1], I64, 2), "pre_scores": ([-1, 1], F, 2),
                     "scores": ([-1], F, 2)}, ["selected_ids", "selected_scores"],
     {"beam_size": 2, "end_id": 1}, "Input\\(scores\\) must be \\[M, K\\]"),
    ("beam_search", {"pre_ids": ([-1, 1], I64, 2), "pre_scores": ([-1, 1], F, 2),
                     "scores": ([-1, 3], F, 2)}, ["selected_ids", "selected_scores"],
     {"beam_size": 0, "end_id": 1}, "beam_size must be > 0"),
]


@pytest.mark.parametrize("op_type,inputs,outputs,attrs,message", BUILD_ERRORS)
def test_build_time_errors(op_type, inputs, outputs, attrs, message):
    with pytest.raises(ShapeInferenceError, match=message):
        append_declared_op(op_type, inputs, outputs, attrs)


def test_decode_needs_two_level_steps():
    from paddle_ir.core.tensor_array import LoDTensorArray
    from paddle_ir.ops.rnn.beam_search import beam_search_decode_kernel

    one_level = pir.create_lod_tensor(np.zeros((1, 1), np.int64), [[1]])
    arr = LoDTensorArray([one_level], np.int64)
    with pytest.raises(PaddleIRError, match="step 0 of Ids has 1 LoD levels"):
        beam_search_decode_kernel({"beam_size": 1, "end_id": 1}, arr, arr)
