"""multiclass_nms, multiclass_nms2 and multiclass_nms3 against a brute-force NMS written
here box by box, and against Paddle's own runs (tests/fixtures/paddle/nms_ops: outputs,
their order and LoD; the `detection` model fixture runs multiclass_nms3 in a model)."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import build_one_op, check_op
from tests.ops.detection.box_reference import candidates, detections, iou
from tests.paddle_helpers import nms_cases

rng = np.random.RandomState(71)


def _reference(boxes, scores, a):
    rows, index, counts = [], [], []
    n, m = boxes.shape[:2]
    for b in range(n):
        dets = []
        for c in range(scores.shape[1]):
            if c == a["background_label"]:
                continue
            cand = candidates(scores[b, c], a)
            kept, thr = [], a["nms_threshold"]
            for i in cand:
                if all(iou(boxes[b, i], boxes[b, k], a["normalized"]) <= thr for k in kept):
                    kept.append(i)
                    if a["nms_eta"] < 1 and thr > 0.5:
                        thr *= a["nms_eta"]
            dets += [(c, i) for i in kept]
        if a["keep_top_k"] > -1 and len(dets) > a["keep_top_k"]:
            best = sorted(dets, key=lambda d: -scores[b, d[0], d[1]])[:a["keep_top_k"]]
            dets = [d for d in dets if d in best]
        for c, i in dets:
            rows.append([c, scores[b, c, i], *boxes[b, i]])
            index.append([b * m + i])
        counts.append(len(dets))
    offsets = np.concatenate([[0], np.cumsum(counts)]).tolist()
    return (LoDTensor(np.array(rows, boxes.dtype).reshape(-1, 6), [offsets]),
            LoDTensor(np.array(index, np.int32).reshape(-1, 1), [offsets]),
            np.array(counts, np.int32))


def _inputs(n=2, m=15, c=3):
    return detections(rng, n, m, c)


@pytest.mark.parametrize("attrs", [
    {"background_label": 0, "score_threshold": 0.3, "nms_top_k": 8, "nms_threshold": 0.3,
     "keep_top_k": 5, "normalized": False, "nms_eta": 1.0},
    {"background_label": -1, "score_threshold": 0.1, "nms_top_k": -1, "nms_threshold": 0.8,
     "keep_top_k": -1, "normalized": True, "nms_eta": 0.7},
])
def test_multiclass_nms3(attrs):
    boxes, scores = _inputs()
    out, index, counts = _reference(boxes, scores, attrs)
    assert out.numpy().shape[0] > 0
    check_op("multiclass_nms3", {"BBoxes": boxes, "Scores": scores}, attrs,
             {"Out": out, "Index": index, "NmsRoisNum": counts},
             outputs={"Out": 1, "Index": 1, "NmsRoisNum": 1})


def test_nothing_above_the_threshold_gives_empty_outputs():
    boxes, scores = _inputs()
    empty = [0, 0, 0]
    check_op("multiclass_nms3", {"BBoxes": boxes, "Scores": scores},
             {"score_threshold": 2.0},
             {"Out": LoDTensor(np.zeros((0, 6), np.float32), [empty]),
              "Index": LoDTensor(np.zeros((0, 1), np.int32), [empty]),
              "NmsRoisNum": np.zeros(2, np.int32)},
             outputs={"Out": 1, "Index": 1, "NmsRoisNum": 1})


def test_multiclass_nms_and_nms2_give_the_same_detections_as_nms3():
    attrs = {"background_label": 0, "score_threshold": 0.3, "nms_top_k": 8,
             "nms_threshold": 0.3, "keep_top_k": 5, "normalized": False, "nms_eta": 1.0}
    boxes, scores = _inputs()
    out, index, _ = _reference(boxes, scores, attrs)
    check_op("multiclass_nms", {"BBoxes": boxes, "Scores": scores}, attrs, {"Out": out})
    check_op("multiclass_nms2", {"BBoxes": boxes, "Scores": scores}, attrs,
             {"Out": out, "Index": index}, outputs={"Out": 1, "Index": 1})


def test_multiclass_nms_with_nothing_kept_gives_pads_minus_one():
    """Paddle's v1 answer when no image keeps a box: [[-1]] with LoD [[0, 1]]."""
    boxes, scores = _inputs()
    check_op("multiclass_nms", {"BBoxes": boxes, "Scores": scores}, {"score_threshold": 2.0},
             {"Out": LoDTensor(np.array([[-1.0]], np.float32), [[0, 1]])})


def _rois_reference(boxes, scores, rois_num, a):
    """The 2-D form: image i is the next rois_num[i] rows; class c's boxes are
    boxes[:, c]; each class lists its detections by box index; Index = row * C + c."""
    rows, index, counts, start = [], [], [], 0
    classes = scores.shape[1]
    for n in rois_num:
        b, s = boxes[start:start + n], scores[start:start + n]
        dets = []
        for c in range(classes):
            if c == a["background_label"]:
                continue
            cand = candidates(s[:, c], a)
            kept = []
            for i in cand:
                if all(iou(b[i, c], b[k, c], a["normalized"]) <= a["nms_threshold"]
                       for k in kept):
                    kept.append(i)
            dets += [(c, i) for i in sorted(kept)]
        if a["keep_top_k"] > -1 and len(dets) > a["keep_top_k"]:
            best = sorted(dets, key=lambda d: -s[d[1], d[0]])[:a["keep_top_k"]]
            dets = [d for d in dets if d in best]
        rows += [[c, s[i, c], *b[i, c]] for c, i in dets]
        index += [[(start + i) * classes + c] for c, i in dets]
        counts.append(len(dets))
        start += n
    offsets = np.concatenate([[0], np.cumsum(counts)]).tolist()
    return (LoDTensor(np.array(rows, boxes.dtype).reshape(-1, 6), [offsets]),
            LoDTensor(np.array(index, np.int32).reshape(-1, 1), [offsets]),
            np.array(counts, np.int32))


def test_multiclass_nms3_two_d_form_with_rois_num():
    attrs = {"background_label": 0, "score_threshold": 0.2, "nms_top_k": 4,
             "nms_threshold": 0.4, "keep_top_k": 3, "normalized": False, "nms_eta": 1.0}
    low = rng.uniform(0, 20, (9, 3, 2))
    boxes = np.concatenate([low, low + rng.uniform(4, 12, (9, 3, 2))], -1).astype(np.float32)
    scores = rng.uniform(0, 1, (9, 3)).astype(np.float32)
    rois = np.array([4, 0, 5], np.int32)
    out, index, counts = _rois_reference(boxes, scores, rois, attrs)
    check_op("multiclass_nms3", {"BBoxes": boxes, "Scores": scores, "RoisNum": rois}, attrs,
             {"Out": out, "Index": index, "NmsRoisNum": counts},
             outputs={"Out": 1, "Index": 1, "NmsRoisNum": 1})


@pytest.mark.parametrize("name", sorted(n for n in nms_cases() if n.startswith("v")))
def test_gives_paddles_outputs(name):
    """multiclass_nms (v1) with Paddle's LoD; multiclass_nms3 (3-D, 2-D with RoisNum,
    unnormalized with nms_eta, nothing kept) as Paddle 3.3.1 computes it. Paddle 3's v3
    kernel sets no LoD; paddle-ir keeps Fluid's (the counts NmsRoisNum also gives)."""
    op_type, attrs, inputs, outputs, lods = nms_cases()[name]
    program, feed, out = build_one_op(op_type, inputs, attrs, {s: 1 for s in outputs})
    got = pir.Executor().run(program, feed=feed, fetch_list=[out[s][0] for s in outputs],
                             scope=pir.Scope(), return_numpy=False)
    counts = outputs.get("NmsRoisNum")
    for slot, value in zip(outputs, got, strict=True):
        array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
        assert array.shape == outputs[slot].shape and array.dtype == outputs[slot].dtype
        np.testing.assert_allclose(array, outputs[slot], atol=1e-6)
        if op_type == "multiclass_nms":
            assert str(value.lod()) == lods[slot]
        elif slot != "NmsRoisNum":
            assert value.lod() == [np.concatenate([[0], np.cumsum(counts)]).tolist()]


def test_errors():
    boxes, scores = _inputs()
    with pytest.raises(ProgramError, match=r"RoisNum \[15, 14\] must be counts that add up"):
        check_op("multiclass_nms3", {"BBoxes": boxes[0, :, None].repeat(3, 1),
                                     "Scores": scores[0].T.copy(),
                                     "RoisNum": np.array([15, 14], np.int32)})
    with pytest.raises(ProgramError, match=r"Scores must be \[M, C\] with RoisNum"):
        check_op("multiclass_nms3", {"BBoxes": boxes, "Scores": scores,
                                     "RoisNum": np.array([15, 15], np.int32)})
    with pytest.raises(ProgramError, match=r"or \[M, C\] with RoisNum, multiclass_nms3 only"):
        check_op("multiclass_nms", {"BBoxes": boxes, "Scores": scores[0]})
    with pytest.raises(ProgramError, match="must hold the same number of boxes M"):
        check_op("multiclass_nms3", {"BBoxes": boxes, "Scores": scores[:, :, :5]})
