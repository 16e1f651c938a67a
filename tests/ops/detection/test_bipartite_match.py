"""bipartite_match against the greedy matching written with Python lists."""

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_op

rng = np.random.RandomState(83)


def _reference(dist, kind, threshold):
    rows, cols = dist.shape
    index, value = [-1] * cols, [0.0] * cols
    free_rows = list(range(rows))
    while free_rows:
        best = None
        for r in free_rows:
            for c in range(cols):
                if index[c] == -1 and dist[r, c] > 0 and (best is None or dist[r, c] > best[0]):
                    best = (dist[r, c], r, c)
        if best is None:
            break
        index[best[2]], value[best[2]] = best[1], best[0]
        free_rows.remove(best[1])
    if kind == "per_prediction" and rows:
        for c in range(cols):
            if index[c] == -1:
                r = int(np.argmax(dist[:, c]))
                if dist[r, c] >= threshold:
                    index[c], value[c] = r, dist[r, c]
    return index, value


@pytest.mark.parametrize("kind", ["bipartite", "per_prediction"])
def test_bipartite_match(kind):
    dist = rng.uniform(0, 1, (7, 6)).astype(np.float32)
    dist[dist < 0.3] = 0
    lengths = [3, 0, 4]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    parts = [_reference(dist[a:b], kind, 0.4)
             for a, b in zip(offsets[:-1], offsets[1:], strict=True)]
    check_op("bipartite_match", {"DistMat": LoDTensor(dist, [offsets.tolist()])},
             {"match_type": kind, "dist_threshold": 0.4},
             {"ColToRowMatchIndices": np.array([p[0] for p in parts], np.int32),
              "ColToRowMatchDist": np.array([p[1] for p in parts], np.float32)})


def test_without_lod_one_instance():
    dist = np.array([[0.9, 0.2], [0.95, 0.0], [0.1, 0.3]], np.float32)
    check_op("bipartite_match", {"DistMat": dist}, {},
             {"ColToRowMatchIndices": np.array([[1, 2]], np.int32),
              "ColToRowMatchDist": np.array([[0.95, 0.3]], np.float32)})


def test_errors():
    with pytest.raises(ProgramError, match="match_type must be bipartite or per_prediction"):
        check_op("bipartite_match", {"DistMat": np.ones((2, 2), np.float32)},
                 {"match_type": "greedy"})
    with pytest.raises(ProgramError, match=r"DistMat must be \[rows, columns\]"):
        check_op("bipartite_match", {"DistMat": np.ones(3, np.float32)})
