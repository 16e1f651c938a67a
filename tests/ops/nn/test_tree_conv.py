"""tree_conv (+ grad) against a recursive patch reference on trees, and central differences.

The reference finds each node's patch by recursion over its children (for a
tree, the same nodes, positions and depths as Paddle's depth-first walk) and
applies the eta weights of Paddle 1.8's tree2col.h; the op builds a patch
weight matrix per item. Paddle 3.3.1 no longer has tree_conv.
"""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError, ShapeInferenceError
from tests.op_test import check_grad, check_op


def ref_tree_conv(x, edges, w, max_depth):
    b, n, f = x.shape
    out = np.zeros((b, n) + w.shape[2:])
    for i in range(b):
        kids = {}
        for u, v in edges[i]:
            if u == 0 or v == 0:
                break
            kids.setdefault(int(u), []).append(int(v))
        node_count = int(sum(1 for u, v in edges[i] if u and v)) + 1

        def walk(node, j, c, depth, acc, feats=x[i], kids=kids):
            eta_t = (max_depth - depth) / max_depth
            eta_l = (1 - eta_t) * (0.5 if c == 1 else (j - 1) / (c - 1))
            eta_r = (1 - eta_t) * (1 - eta_l)
            acc += np.stack([eta_l * feats[node - 1], eta_r * feats[node - 1],
                             eta_t * feats[node - 1]], axis=1)  # [F, 3]
            if depth + 1 < max_depth:
                children = kids.get(node, [])
                for pos, child in enumerate(children):
                    walk(child, pos + 1, len(children), depth + 1, acc, feats, kids)

        for u in range(1, node_count + 1):
            patch = np.zeros((f, 3))
            walk(u, 1, 1, 0, patch)
            out[i, u - 1] = np.einsum("fk,fkos->os", patch, w)
    return out


# item 0: 1 -> 2, 3, 4; 2 -> 5; 3 -> 6, 7 (7 nodes of 8 rows); item 1: a chain 1 -> 2 -> 3,
# padded, with an edge after the padding: not followed, but counted, so node 4 exists alone
# (Paddle's rule).
EDGES = np.array([[[1, 2], [1, 3], [1, 4], [2, 5], [3, 6], [3, 7]],
                  [[1, 2], [2, 3], [0, 0], [3, 1], [0, 0], [0, 0]]], np.int32)


def make_inputs(f=3, out=2, filters=2, dtype=np.float64, seed=0):
    rng = np.random.RandomState(seed)
    return {"NodesVector": rng.uniform(-1, 1, (2, 8, f)).astype(dtype), "EdgeSet": EDGES,
            "Filter": rng.uniform(-1, 1, (f, 3, out, filters)).astype(dtype)}


@pytest.mark.parametrize("max_depth", [1, 2, 3, 4])
def test_matches_the_reference(max_depth):
    inputs = make_inputs()
    want = ref_tree_conv(inputs["NodesVector"], EDGES, inputs["Filter"], max_depth)
    assert np.abs(want[0, 7]).max() == 0 and np.abs(want[1, 4:]).max() == 0
    assert np.abs(want[1, 3]).max() > 0
    check_op("tree_conv", inputs, {"max_depth": max_depth}, {"Out": want})


def test_float32_and_a_single_output():
    inputs = make_inputs(f=2, out=1, filters=1, dtype=np.float32, seed=2)
    want = ref_tree_conv(inputs["NodesVector"].astype(np.float64), EDGES,
                         inputs["Filter"].astype(np.float64), 2)
    check_op("tree_conv", inputs, {"max_depth": 2}, {"Out": want.astype(np.float32)}, atol=1e-5)


@pytest.mark.parametrize("max_depth", [2, 3])
def test_gradient(max_depth):
    check_grad("tree_conv", make_inputs(seed=4), {"max_depth": max_depth},
               wrt=("NodesVector", "Filter"), out_slot="Out")


def test_rejects_bad_trees_and_shapes():
    inputs = make_inputs()
    inputs["EdgeSet"] = EDGES.copy()
    inputs["EdgeSet"][0, 0] = [1, 9]
    with pytest.raises(KernelError, match=r"EdgeSet\[0\] holds edge \(1, 9\); node ids must be "
                                          r"in \[1, 7\]"):
        check_op("tree_conv", inputs, {"max_depth": 2})
    inputs = make_inputs()
    inputs["NodesVector"] = inputs["NodesVector"][:, :5]
    with pytest.raises(KernelError, match=r"EdgeSet\[0\] makes 7 nodes, more than "
                                          r"NodesVector's 5 rows"):
        check_op("tree_conv", inputs, {"max_depth": 2})
    inputs = make_inputs()
    inputs["Filter"] = inputs["Filter"][:2]
    with pytest.raises(ShapeInferenceError, match=r"Filter must be \[F, 3, output_size, "
                                                  r"num_filters\] with F = .* = 3"):
        check_op("tree_conv", inputs, {"max_depth": 2})
    with pytest.raises(ShapeInferenceError, match=r"max_depth must be >= 1, got 0"):
        check_op("tree_conv", make_inputs(), {"max_depth": 0})
