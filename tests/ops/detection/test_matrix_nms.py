"""matrix_nms (ops/detection/matrix_nms.py) against a Matrix NMS written here pair by pair
from the SOLOv2 formula, and against Paddle's own runs (tests/fixtures/paddle/nms_ops)."""

import math

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import ProgramError
from tests.op_test import build_one_op, check_op
from tests.ops.detection.box_reference import candidates, detections, iou
from tests.paddle_helpers import nms_cases

rng = np.random.RandomState(5)


def _reference(boxes, scores, a):
    rows, index, counts = [], [], []
    n, m = boxes.shape[:2]
    for b in range(n):
        dets = []
        for c in range(scores.shape[1]):
            if c == a["background_label"]:
                continue
            cand = candidates(scores[b, c], a)
            overlap = [[iou(boxes[b, i], boxes[b, j], a["normalized"]) for j in cand]
                       for i in cand]
            max_iou = [max([overlap[i][k] for k in range(i)], default=0.0)
                       for i in range(len(cand))]
            for i, box in enumerate(cand):
                decay = 1.0
                for j in range(i):
                    if a["use_gaussian"]:
                        d = math.exp((max_iou[j] ** 2 - overlap[i][j] ** 2)
                                     * a["gaussian_sigma"])
                    else:
                        d = (1 - overlap[i][j]) / (1 - max_iou[j])
                    decay = min(decay, d)
                score = scores[b, c, box] * decay
                if score > a["post_threshold"]:
                    dets.append((score, c, box))
        dets.sort(key=lambda d: -d[0])
        if a["keep_top_k"] > -1:
            dets = dets[:a["keep_top_k"]]
        rows += [[c, s, *boxes[b, i]] for s, c, i in dets]
        index += [[b * m + i] for _, _, i in dets]
        counts.append(len(dets))
    return (np.array(rows, boxes.dtype).reshape(-1, 6), np.array(index, np.int32).reshape(-1, 1),
            np.array(counts, np.int32))


def _inputs(n=2, m=12, c=3):
    return detections(rng, n, m, c)


@pytest.mark.parametrize("attrs", [
    {"background_label": 0, "score_threshold": 0.2, "post_threshold": 0.15, "nms_top_k": 8,
     "keep_top_k": 6, "normalized": False, "use_gaussian": False, "gaussian_sigma": 2.0},
    {"background_label": -1, "score_threshold": 0.05, "post_threshold": 0.0, "nms_top_k": -1,
     "keep_top_k": -1, "normalized": True, "use_gaussian": True, "gaussian_sigma": 0.5},
])
def test_matrix_nms_against_the_formula(attrs):
    boxes, scores = _inputs()
    out, index, counts = _reference(boxes, scores, attrs)
    check_op("matrix_nms", {"BBoxes": boxes, "Scores": scores}, attrs,
             {"Out": out, "Index": index, "RoisNum": counts},
             outputs={"Out": 1, "Index": 1, "RoisNum": 1}, atol=1e-5)


@pytest.mark.parametrize("name", sorted(nms_cases("matrix")))
def test_matrix_nms_gives_paddles_outputs(name):
    """Outputs, their order and their (absent) LoD as Paddle 3.3.1 gives them."""
    op_type, attrs, inputs, outputs, lods = nms_cases("matrix")[name]
    program, feed, out = build_one_op(op_type, inputs, attrs, {s: 1 for s in outputs})
    got = pir.Executor().run(program, feed=feed, fetch_list=[out[s][0] for s in outputs],
                             scope=pir.Scope(), return_numpy=False)
    for slot, value in zip(outputs, got, strict=True):
        np.testing.assert_allclose(np.asarray(value.numpy()), outputs[slot], atol=1e-6)
        assert str(value.lod()) == lods[slot] == "[]"


def test_shapes_that_disagree_are_refused():
    boxes, scores = _inputs()
    with pytest.raises(ProgramError, match="must agree on the images N and boxes M"):
        check_op("matrix_nms", {"BBoxes": boxes, "Scores": scores[:, :, :5]})
    with pytest.raises(ProgramError, match=r"BBoxes must be \[N, M, 4\]"):
        check_op("matrix_nms", {"BBoxes": boxes[..., :3], "Scores": scores})
