"""positive_negative_pair (ops/metrics/positive_negative_pair.py) against the pair loop of
Paddle's kernel written out here, with weights, accumulation and score ties."""

import numpy as np
import pytest

from tests.op_test import check_op


def _reference(score, label, query, weight, column):
    pos = neg = neu = 0.0
    s = score[:, column]
    for i in range(len(s)):
        for j in range(i + 1, len(s)):
            if query[i] != query[j] or label[i] == label[j]:
                continue
            w = (weight[i] + weight[j]) / 2
            if s[i] == s[j]:
                neu += w
            if (s[i] - s[j]) * (label[i] - label[j]) > 0:
                pos += w
            else:
                neg += w
    return pos, neg, neu


@pytest.mark.parametrize("weighted,column", [(False, 0), (True, -1)])
def test_pair_counts_match_the_loop(weighted, column):
    r = np.random.RandomState(14)
    n = 30
    score = np.round(r.rand(n, 2), 1)  # rounded: some ties
    label = r.randint(0, 3, (n, 1)).astype(np.float64)
    query = r.randint(0, 4, (n, 1)).astype(np.int64)
    weight = r.uniform(0.5, 2, (n, 1)) if weighted else np.ones((n, 1))
    inputs = {"Score": score, "Label": label, "QueryID": query}
    if weighted:
        inputs["Weight"] = weight
    pos, neg, neu = _reference(score, label[:, 0], query[:, 0], weight[:, 0], column)
    assert neu > 0
    check_op("positive_negative_pair", inputs, {"column": column},
             {"PositivePair": np.array([pos]), "NegativePair": np.array([neg]),
              "NeutralPair": np.array([neu])})
    acc = {"AccumulatePositivePair": np.array([1.0]), "AccumulateNegativePair": np.array([2.0]),
           "AccumulateNeutralPair": np.array([3.0])}
    check_op("positive_negative_pair", {**inputs, **acc}, {"column": column},
             {"PositivePair": np.array([pos + 1]), "NegativePair": np.array([neg + 2]),
              "NeutralPair": np.array([neu + 3])})
