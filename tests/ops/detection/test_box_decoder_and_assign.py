"""box_decoder_and_assign against the decoding written per prior and class."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op

rng = np.random.RandomState(94)


def test_box_decoder_and_assign():
    n, c = 4, 3
    low = rng.uniform(0, 50, (n, 2))
    prior = np.hstack([low, low + rng.uniform(5, 30, (n, 2))]).astype(np.float32)
    var = np.float32([0.1, 0.1, 0.2, 0.2])
    target = (rng.randn(n, 4 * c) * 2).astype(np.float32)
    target[0, 2] = 40  # past box_clip
    score = rng.uniform(0, 1, (n, c)).astype(np.float32)
    clip = math.log(1000 / 16)
    decoded = np.zeros((n, 4 * c), np.float32)
    assigned = prior.copy()
    for i in range(n):
        pw, ph = prior[i, 2] - prior[i, 0] + 1, prior[i, 3] - prior[i, 1] + 1
        pcx, pcy = prior[i, 0] + pw / 2, prior[i, 1] + ph / 2
        for j in range(c):
            t = target[i, 4 * j:4 * j + 4]
            cx, cy = var[0] * t[0] * pw + pcx, var[1] * t[1] * ph + pcy
            w = math.exp(min(var[2] * t[2], clip)) * pw
            h = math.exp(min(var[3] * t[3], clip)) * ph
            decoded[i, 4 * j:4 * j + 4] = [cx - w / 2, cy - h / 2, cx + w / 2 - 1, cy + h / 2 - 1]
        best = 1 + int(np.argmax(score[i, 1:]))
        assigned[i] = decoded[i, 4 * best:4 * best + 4]
    check_op("box_decoder_and_assign", {"PriorBox": prior, "PriorBoxVar": var,
                                        "TargetBox": target, "BoxScore": score},
             {"box_clip": clip}, {"DecodeBox": decoded, "OutputAssignBox": assigned},
             rtol=1e-5, atol=1e-3)


def test_errors():
    with pytest.raises(ProgramError, match=r"TargetBox must be \[N, 4 C\]"):
        check_op("box_decoder_and_assign",
                 {"PriorBox": np.ones((2, 4), np.float32), "PriorBoxVar": np.ones(4, np.float32),
                  "TargetBox": np.ones((2, 8), np.float32),
                  "BoxScore": np.ones((2, 3), np.float32)})
