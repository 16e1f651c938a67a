"""Precompute, at load, the ops of an inference program that read no feed.

An op of block 0 whose inputs are all parameters (persistables no op writes) or
outputs of ops already precomputed, and whose type is in PURE_OPS (deterministic,
no side effect, no sub-block), gives the same values on every run: a
`fill_constant` without tensor inputs, `assign_value`, the `shape` of a
parameter, a cast or scale of one, the scalars an LSTM's initial state is built
from. `precompute_constants` runs those ops once through an Executor and stores
what the rest of the program reads as new persistable values in the scope; the
ops go. Parameters nothing reads any more leave the program and the scope.

A precomputed value is memory the program keeps: only outputs whose declared
shape is fully known and at most MAX_ELEMENTS elements take part. Outputs that
are fetched or fed (`keep`), written by another op too (in any block), or not
dense tensors stay with their ops. Without a scope (`paddle-ir
dump --optimized`) the program is rewritten the same way, without values. If
running the ops fails, nothing changes: the executor reports the error at run
time, against the op as the user wrote it.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.proto import framework_pb2 as pb

MAX_ELEMENTS = 1 << 16
# Deterministic, side-effect free, no sub-block: their outputs follow from their inputs.
PURE_OPS = frozenset({
    "fill_constant", "assign_value", "assign", "shape", "cast", "scale", "slice",
    "strided_slice", "concat", "stack", "split", "unsqueeze2", "squeeze2", "reshape2",
    "transpose2", "flatten_contiguous_range", "range", "fill_any_like", "fill_zeros_like",
    "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
    "elementwise_max", "elementwise_min", "elementwise_pow", "sqrt", "rsqrt", "exp",
    "reduce_sum", "reduce_prod", "expand_v2", "tile", "gather", "increment",
})


def _names(slots) -> list[str]:
    return [a for v in slots for a in v.arguments]


def _small(var: pb.VarDesc) -> bool:
    dims = list(var.lod_desc.tensor.dims)
    return (var.type == pb.VarDesc.LOD_TENSOR and all(d >= 0 for d in dims)
            and int(np.prod(dims, dtype=np.int64)) <= MAX_ELEMENTS)


def _constant_ops(graph) -> tuple[list[int], set[str]]:
    """(indices of the ops to precompute, the names they write), in program order."""
    chosen: list[int] = []
    known: set[str] = set()
    for i, op in enumerate(graph.block.ops):
        if op.type not in PURE_OPS or any(a.type in (pb.BLOCK, pb.BLOCKS) for a in op.attrs):
            continue
        ins, outs = _names(op.inputs), _names(op.outputs)
        if not outs or not all(n in known or (graph.persistable(n) and n not in graph.keep)
                                for n in ins):
            continue
        if not all(n in graph.vars and not graph.vars[n].persistable and n not in graph.keep
                   and n not in ins and graph.writers[n] == 1 and _small(graph.vars[n])
                   for n in outs):
            continue
        chosen.append(i)
        known.update(outs)
    return chosen, known


def _values(graph, chosen: list[int], wanted: list[str], scope) -> dict | None:
    """The chosen ops run once in a scope below `scope`: {name: LoDTensor}, or None."""
    from paddle_ir.executor import Executor, Scope  # imported when a program has such ops
    from paddle_ir.framework import Program

    desc = pb.ProgramDesc()
    desc.CopyFrom(graph.desc)
    block = desc.blocks[0]
    ops = [block.ops[i] for i in chosen]
    del block.ops[:]
    block.ops.extend(ops)
    del desc.feed_target_names[:], desc.fetch_target_names[:]
    try:
        got = Executor().run(Program.from_desc(desc), feed={}, fetch_list=wanted,
                             scope=Scope(scope), return_numpy=False)
    except PaddleIRError:
        return None
    values = {}
    for name, value in zip(wanted, got, strict=True):
        if not isinstance(value, LoDTensor):
            return None
        if list(value.shape) != list(graph.vars[name].lod_desc.tensor.dims):
            return None  # the declared shape was wrong: leave the ops to the executor
        values[name] = value
    return values


def precompute_constants(graph, scope) -> int:
    """Replace the feed-independent ops by their values (module docstring); the count."""
    chosen, known = _constant_ops(graph)
    if not chosen:
        return 0
    taken = set(chosen)
    inputs = {n for i in chosen for n in _names(graph.block.ops[i].inputs)}
    read_by_rest = {n for i, op in enumerate(graph.block.ops) if i not in taken
                    for n in _names(op.inputs)}
    wanted = sorted(n for n in known if n in read_by_rest or n in graph.outside)
    if scope is not None:
        values = _values(graph, chosen, wanted, scope) if wanted else {}
        if values is None:
            return 0
        for name, value in values.items():
            scope.var(name).value = value
    ops = [op for i, op in enumerate(graph.block.ops) if i not in taken]
    del graph.block.ops[:]
    graph.block.ops.extend(ops)
    graph.refresh()
    # Written by the removed ops and read by nobody now, or parameters only they read.
    unused = {n for n in (known - set(wanted)) | inputs
              if graph.readers[n] == 0 and graph.writers[n] == 0 and n not in graph.keep
              and n not in graph.outside}
    kept = [v for v in graph.block.vars if v.name not in unused]
    del graph.block.vars[:]
    graph.block.vars.extend(kept)
    for var in graph.block.vars:
        if var.name in wanted:
            var.persistable = True
    if scope is not None:
        scope.erase(sorted(n for n in unused if scope.find_local_var(n) is not None))
    graph.refresh()
    return len(chosen)
