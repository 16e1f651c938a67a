"""mean_iou (ops/metrics/mean_iou.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op


def test_mean_iou():
    pred = np.array([0, 1, 1, 2, 2, 2], dtype=np.int32)
    label = np.array([0, 1, 2, 2, 0, 2], dtype=np.int32)
    ious = []
    correct, wrong = [0] * 4, [0] * 4
    for p, lab in zip(pred, label, strict=True):
        if p == lab:
            correct[p] += 1
        else:
            wrong[p] += 1
            wrong[lab] += 1
    ious = [correct[c] / (correct[c] + wrong[c]) for c in range(4) if correct[c] + wrong[c]]
    check_op("mean_iou", {"Predictions": pred, "Labels": label}, {"num_classes": 4},
             {"OutMeanIou": np.array([np.mean(ious)], np.float32),
              "OutWrong": np.array(wrong, np.int32), "OutCorrect": np.array(correct, np.int32)})


ERROR_CASES = [
    ("mean_iou", {"Predictions": np.array([3], np.int32), "Labels": np.array([0], np.int32)},
     {"num_classes": 2}, r"mean_iou: classes must lie in \[0, 2\)"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)


def test_mean_iou_adds_the_counts_and_means_it_is_given():
    pred = np.array([0, 1, 1, 2, 2], np.int32)
    label = np.array([0, 1, 2, 2, 0], np.int32)
    in_wrong = np.array([1, 0, 2], np.int32)
    in_correct = np.array([3, 1, 0], np.int32)
    right = pred == label
    correct = np.bincount(pred[right], minlength=3) + in_correct
    wrong = (np.bincount(pred[~right], minlength=3) + np.bincount(label[~right], minlength=3)
             + in_wrong)
    iou = correct / (correct + wrong)
    check_op("mean_iou", {"Predictions": pred, "Labels": label,
                          "InWrongs": [("w0", in_wrong)], "InCorrects": [("c0", in_correct)],
                          "InMeanIou": [("m0", np.array([0.25], np.float32)),
                                        ("m1", np.array([0.5], np.float32))]},
             {"num_classes": 3},
             {"OutMeanIou": np.array([iou.mean() + 0.75], np.float32),
              "OutWrong": wrong.astype(np.int32), "OutCorrect": correct.astype(np.int32)})
