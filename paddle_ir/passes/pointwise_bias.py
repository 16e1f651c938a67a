"""A load-time pass on inference programs: a convolution's bias moved into the 1x1 after it.

ShuffleNet's depthwise convolutions have a bias and no activation, and a 1x1
convolution reads each of them alone. A 1x1 unpadded convolution is linear
per pixel, and the bias reaches every pixel (padding included: it is added
after the product), so

    W2 (conv1(x) + b1) + b2 = W2 conv1(x) + (b2 + W2 b1)

`fold_pointwise_bias(program, scope, keep)` rewrites each `fused_conv2d` with a
Bias, no ResidualData and no activation, whose Output only a one-group 1x1
unpadded `fused_conv2d` with a Bias reads: the first loses its Bias (one pass
over its output fewer a run), the second reads `<its bias>.pointwise_folded`
= b2 + W2 b1, computed in float64 and stored in `scope`. Exact to float
rounding; the originals stay in `scope` (another op may read them). Returns a
rewritten copy, or `program` itself when nothing applies (or with no scope);
the result shows in `paddle-ir dump --optimized` only when a scope is given.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.framework import Program
from paddle_ir.passes.inference import _attrs, _declare_like, _Graph, _one, _value, is_inference
from paddle_ir.proto import framework_pb2 as pb


def fold_pointwise_bias(program: Program, scope, keep: Iterable[str] = ()) -> Program:
    """`program` with each bias that a 1x1 convolution can carry moved into it (module doc)."""
    if scope is None or not is_inference(program):
        return program
    if sum(op.type == "fused_conv2d" for op in program.desc.blocks[0].ops) < 2:
        return program
    desc = pb.ProgramDesc()
    desc.CopyFrom(program.desc)
    graph = _Graph(desc, keep)
    reader = {}
    for op in graph.block.ops:
        if op.type == "fused_conv2d":
            reader[_one(op.inputs, "Input")] = op
    changed = 0
    for op in graph.block.ops:
        out = _one(op.outputs, "Output")
        nxt = reader.get(out)
        if op.type != "fused_conv2d" or nxt is None or not _carries(graph, op, nxt, out):
            continue
        b1, b2, w2 = _one(op.inputs, "Bias"), _one(nxt.inputs, "Bias"), _one(nxt.inputs, "Filter")
        folded = graph.unique(f"{b2}.pointwise_folded")
        if not _fold_values(scope, b1, b2, w2, folded):
            continue
        _declare_like(graph, graph.vars[b2], folded)
        for v in nxt.inputs:
            if v.parameter == "Bias":
                v.arguments[0] = folded
        kept = [v for v in op.inputs if v.parameter != "Bias"]
        del op.inputs[:]
        op.inputs.extend(kept)
        graph.readers[b1] -= 1
        graph.readers[b2] -= 1
        graph.readers[folded] += 1
        changed += 1
    if not changed:
        return program
    result = Program.from_desc(desc)
    result.random_seed = program.random_seed
    return result


def _carries(graph: _Graph, op: pb.OpDesc, nxt: pb.OpDesc, out: str) -> bool:
    """Whether op's bias may move into nxt: op adds a persistable bias and nothing after
    it, nxt is a one-group 1x1 unpadded convolution with a persistable filter and bias,
    and nxt alone reads op's output."""
    first, second = _attrs(op), _attrs(nxt)
    if first.get("fuse_activation", "") or _one(op.inputs, "ResidualData"):
        return False
    if not all(graph.persistable(_one(o.inputs, s)) for o, s in
               ((op, "Bias"), (nxt, "Bias"), (nxt, "Filter"))):
        return False
    dims = list(graph.vars[_one(nxt.inputs, "Filter")].lod_desc.tensor.dims)
    unpadded = (second.get("padding_algorithm", "EXPLICIT") != "EXPLICIT"
                or not any(second.get("paddings", [0, 0])))
    return (len(dims) == 4 and dims[2:] == [1, 1] and second.get("groups", 1) == 1
            and unpadded and graph.private(out, 1))


def _fold_values(scope, b1_name: str, b2_name: str, w2_name: str, folded: str) -> bool:
    """Store b2 + W2 @ b1 (float64, then b2's dtype) as `folded`; False if unusable."""
    b1, b2, w2 = _value(scope, b1_name), _value(scope, b2_name), _value(scope, w2_name)
    if b1 is None or b2 is None or w2 is None or w2.ndim != 4:
        return False
    if b1.shape != (w2.shape[1],) or b2.shape != (w2.shape[0],):
        return False
    if not all(np.issubdtype(a.dtype, np.floating) for a in (b1, b2, w2)):
        return False
    value = b2.astype(np.float64) + w2[:, :, 0, 0].astype(np.float64) @ b1.astype(np.float64)
    scope.var(folded).value = LoDTensor(value.astype(b2.dtype))
    return True
