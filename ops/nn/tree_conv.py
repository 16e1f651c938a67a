"""tree_conv (+ _grad): Paddle's tree-based convolution (TBCNN) over batches of trees.

Batch item b has node features NodesVector[b] [N, F] (node n at row n - 1) and
edges EdgeSet[b] [E, 2] (parent, child; ids from 1, read up to the first edge
holding a 0). The item has node_count = (edges without a 0 anywhere in
EdgeSet[b]) + 1 nodes. For every node u, its patch is u and its descendants
less than max_depth levels below it; a patch node at depth d (u at 0) that is
child number j (from 1) of a parent with c children weighs

    eta_t = (max_depth - d) / max_depth
    eta_l = (1 - eta_t) * (0.5 if c == 1 else (j - 1) / (c - 1))
    eta_r = (1 - eta_t) * (1 - eta_l)          (Paddle's formula: eta_l, not its ratio)

(the root: j = c = 1). With P[u, f, k] = sum over the patch of eta_k * x[node, f]
(k = l, r, t) and Filter [F, 3, output_size, num_filters]:

    Out[b, u - 1] = P[u].reshape(3F) @ Filter.reshape(3F, output_size * num_filters)

Out is [B, N, output_size, num_filters]; rows past node_count are 0. Patches
are found by Paddle's depth-first walk (each node once, so a graph with shared
children is walked as Paddle walks it).

Gradient: the true one of the formula above. Paddle 1.8's NodesVector gradient
multiplies its per-node (output, eta) matrix with the Filter's (eta, output)
layout, which differs from it whenever output_size * num_filters > 1; the
Filter gradient is the same as Paddle's.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.registry import FLOATS, INTS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import lod_error

tree_conv = register_op(
    "tree_conv",
    inputs=[In("NodesVector", "[B, N, F] node features, node n at row n - 1"),
            In("EdgeSet", "int32/int64 [B, E, 2] (parent, child) edges, ids from 1, 0 padded"),
            In("Filter", "[F, 3, output_size, num_filters]")],
    outputs=[Out("Out", "[B, N, output_size, num_filters]")],
    attrs=[Attr("max_depth", "int", 2, "patch depth: a node and its descendants above it")],
    key_inputs=["NodesVector"],
    doc=__doc__,
)


@tree_conv.infer_shape
def _(ctx):
    x, edges, w = (ctx.input_shape(s) for s in ("NodesVector", "EdgeSet", "Filter"))
    depth = ctx.attr("max_depth")
    ctx.enforce(depth >= 1, lambda: f"max_depth must be >= 1, got {depth}")
    ctx.enforce(len(x) == 3, lambda: f"NodesVector must be 3-D [B, N, F], got {shape_str(x)}")
    ctx.enforce(len(edges) == 3 and dims_match(edges[2], 2) and dims_match(edges[0], x[0]), lambda:
                f"EdgeSet must be [B, E, 2] with NodesVector's B = {x[0]}, got {shape_str(edges)}")
    ctx.enforce(ctx.input_dtype("EdgeSet") in INTS,
                lambda: f"EdgeSet must be int32 or int64, got {ctx.input_dtype('EdgeSet')}")
    ctx.enforce(len(w) == 4 and dims_match(w[0], x[2]) and dims_match(w[1], 3), lambda:
                f"Filter must be [F, 3, output_size, num_filters] with F = NodesVector.shape[2] "
                f"= {x[2]}, got {shape_str(w)}")
    ctx.enforce(ctx.input_dtype("Filter") == ctx.input_dtype("NodesVector"), lambda:
                f"Filter must have NodesVector's dtype {ctx.input_dtype('NodesVector')}, got "
                f"{ctx.input_dtype('Filter')}")
    ctx.set_output("Out", (x[0], x[1], w[2], w[3]), ctx.input_dtype("NodesVector"))


def _children(edges: np.ndarray, n_rows: int, item: int) -> list[list[int]]:
    """Paddle's construct_tree: adjacency from the edges before the first with a 0."""
    node_count = int(np.count_nonzero((edges[:, 0] != 0) & (edges[:, 1] != 0))) + 1
    if node_count > n_rows:
        raise lod_error("tree_conv", f"EdgeSet[{item}] makes {node_count} nodes, more than "
                                     f"NodesVector's {n_rows} rows")
    tree: list[list[int]] = [[] for _ in range(node_count + 1)]
    for u, v in edges.tolist():
        if u == 0 or v == 0:
            break
        if not (1 <= u <= node_count and 1 <= v <= node_count):
            raise lod_error("tree_conv", f"EdgeSet[{item}] holds edge ({u}, {v}); node ids "
                                         f"must be in [1, {node_count}] (edges without a 0 + 1)")
        tree[u].append(v)
    return tree


def _patch(root: int, max_depth: int, tree) -> list[tuple[int, int, int, int]]:
    """(node, child number from 1, siblings, depth) of Paddle's depth-first patch walk."""
    stack, patch, visited = [(root, 1, 1, 0)], [(root, 1, 1, 0)], {root}
    while stack:
        node, _, _, depth = stack[-1]
        grew = False
        children = tree[node]
        for i, v in enumerate(children):
            if v not in visited and depth + 1 < max_depth:
                visited.add(v)
                stack.append((v, i, len(children), depth + 1))
                patch.append((v, i + 1, len(children), depth + 1))
                grew = True
        if not grew:
            stack.pop()
    return patch


def _weights(edges: np.ndarray, n_rows: int, max_depth: int, dtype, item: int) -> np.ndarray:
    """A [N, N, 3]: A[u - 1, v - 1, k] = eta_k of node v in the patch of node u."""
    tree = _children(edges, n_rows, item)
    a = np.zeros((n_rows, n_rows, 3), dtype=np.float64)
    for u in range(1, len(tree)):
        for v, j, c, depth in _patch(u, max_depth, tree):
            eta_t = (max_depth - depth) / max_depth
            eta_l = (1.0 - eta_t) * (0.5 if c == 1 else (j - 1.0) / (c - 1.0))
            a[u - 1, v - 1] += (eta_l, (1.0 - eta_t) * (1.0 - eta_l), eta_t)
    return a.astype(dtype)


@tree_conv.kernel(dtypes=FLOATS)
def tree_conv_kernel(attrs, x, edges, w):
    b, n, f = x.shape
    w2 = w.reshape(3 * f, -1)
    out = np.zeros((b, n, w2.shape[1]), dtype=x.dtype)
    for i in range(b):
        a = _weights(np.asarray(edges[i]), n, attrs["max_depth"], x.dtype, i)
        patches = np.einsum("uvk,vf->ufk", a, x[i]).reshape(n, 3 * f)
        out[i] = patches @ w2
    return out.reshape(b, n, *w.shape[2:])


@tree_conv.grad_maker
def _(g):
    return [g.grad_op(
        "tree_conv_grad",
        inputs={"NodesVector": g.input("NodesVector"), "EdgeSet": g.input("EdgeSet"),
                "Filter": g.input("Filter"), "Out@GRAD": g.output_grad("Out")},
        outputs={"NodesVector@GRAD": g.input_grad("NodesVector"),
                 "Filter@GRAD": g.input_grad("Filter")},
        attrs={"max_depth": g.attr("max_depth")})]


tree_conv_grad = register_op(
    "tree_conv_grad",
    inputs=[In("NodesVector"), In("EdgeSet"), In("Filter"), In("Out@GRAD")],
    outputs=[Out("NodesVector@GRAD", dispensable=True), Out("Filter@GRAD", dispensable=True)],
    attrs=[Attr("max_depth", "int", 2)],
    key_inputs=["Out@GRAD"],
    doc="dFilter = sum_b P_b^T @ dOut_b; dNodesVector through the same patch weights.",
)


@tree_conv_grad.infer_shape
def _(ctx):
    for slot in ("NodesVector", "Filter"):
        ctx.set_output(slot + "@GRAD", ctx.input_shape(slot), ctx.input_dtype(slot))


@tree_conv_grad.kernel(dtypes=FLOATS)
def tree_conv_grad_kernel(attrs, x, edges, w, d_out):
    b, n, f = x.shape
    w2 = w.reshape(3 * f, -1)
    dout = np.asarray(d_out).reshape(b, n, w2.shape[1])
    dx, dw = np.zeros_like(x), np.zeros_like(w2)
    for i in range(b):
        a = _weights(np.asarray(edges[i]), n, attrs["max_depth"], x.dtype, i)
        patches = np.einsum("uvk,vf->ufk", a, x[i]).reshape(n, 3 * f)
        dw += patches.T @ dout[i]
        d_patches = (dout[i] @ w2.T).reshape(n, f, 3)
        dx[i] = np.einsum("uvk,ufk->vf", a, d_patches)
    return dx, dw.reshape(w.shape)
