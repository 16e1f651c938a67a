"""Running the blocks of one program: plan caching, binding and write-back.

A `ProgramRunner` belongs to one ProgramDesc (at one version). For each block
and input signature it keeps the Plan made on the first run (plan.py); later
runs bind the plan's external inputs from the feed and the scope, run its
steps, and write back the values that outlive the run:

- block 0: persistable variables, into the scope the run was given (the root
  scope holding parameters and optimizer state);
- a sub-block: the variables its ancestors declare (loop-carried values), to
  wherever the scope chain holds them (usually the parent block's frame);
  with `keep_locals`, also its own variables, into the scope it ran in (the
  step scope a backward pass reads).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from paddle_ir.core import limits
from paddle_ir.core.block_tree import check_block_tree
from paddle_ir.core.dtypes import to_numpy_dtype
from paddle_ir.core.kinds import SPARSE_CLASSES
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.executor.control import RunContext
from paddle_ir.executor.plan import (
    BlockCompiler,
    Plan,
    check_declared_values,
    run_steps,
    shape_of,
)
from paddle_ir.executor.scope import Scope
from paddle_ir.proto import framework_pb2 as pb

_MAX_CACHED_PLANS = 64


def feed_signature(feeds: dict) -> tuple:
    """What a plan depends on in its feeds: class, dtype, rank and LoD depth, not sizes."""
    return tuple((n, v.__class__, getattr(v, "dtype", None),
                  v.ndim if v.__class__ is np.ndarray else 0, len(off))
                 for n, (v, off) in feeds.items())


class ProgramRunner:
    def __init__(self, desc: pb.ProgramDesc, options, cache_plans: bool = True):
        self.desc = desc
        self.options = options
        self.cache_plans = cache_plans
        self._plans: OrderedDict = OrderedDict()
        self.profile = None  # a dict or an OpTimes: see executor.plan.run_steps
        self._persistables: dict[str, tuple[tuple, np.dtype]] | None = None

    # -- entry points -------------------------------------------------------------------------
    def run(self, block_idx: int, scope: Scope, feeds: dict | None = None,
            fetch_names=(), keep_locals: bool = False) -> tuple[Plan, list, list]:
        feeds = feeds or {}
        key = (block_idx, feed_signature(feeds), tuple(fetch_names), keep_locals)
        run_context = RunContext(scope, self.run_sub_block, self.options)
        cached = self._plans.get(key) if self.cache_plans else None
        plan = None
        if cached is not None:
            env, lods = cached.new_frame(run_context)
            signature = self._bind(cached, env, lods, feeds, scope, strict=True)
            if signature is not None:
                plan = cached
                budget = limits.memory_budget()
                if plan.budget != budget:  # sizes verified under another budget: re-check
                    plan.verified.clear()
                    plan.budget = budget
                if signature in plan.verified:
                    run_steps(plan, env, lods, self.profile)
                else:  # shapes this plan has not run with: each op's inference guards it
                    check_declared_values(plan, env)
                    run_steps(plan, env, lods, checked=True)
                    plan.verify(signature)
        if plan is None:  # first run, or a scope value changed kind since the plan was made
            if block_idx == 0:
                # A program built or changed in memory never went through a loader's
                # checks: its block tree is checked as a file's is, once per compiled plan
                # (cached runs skip it), before a bad index can recurse or overflow.
                check_block_tree(self.desc)
            compiler = BlockCompiler(self.desc.blocks[block_idx], self._escaping(block_idx),
                                     self.options, self._declared_types(block_idx))
            plan = compiler.new_plan(fetch_names, keep_locals)
            declared = self._declared_persistables()
            plan.declared_values = [(i, n) + declared[n] for i, n in plan.external
                                    if n in declared]
            env, lods = plan.new_frame(run_context)
            self._bind(plan, env, lods, feeds, scope, strict=False)
            compiler.compile_and_run(plan, env, lods)
            if self.cache_plans:
                self._plans[key] = plan
                if len(self._plans) > _MAX_CACHED_PLANS:
                    self._plans.popitem(last=False)
        self._write_back(plan, env, lods, scope, block_idx, keep_locals)
        return plan, env, lods

    def run_sub_block(self, block_idx: int, scope: Scope, keep_locals: bool = False) -> None:
        self.run(block_idx, scope, keep_locals=keep_locals)

    # -- compiling and binding -------------------------------------------------------------------
    def _escaping(self, block_idx: int) -> set[str]:
        block = self.desc.blocks[block_idx]
        if block_idx == 0:
            return {v.name for v in block.vars if v.persistable}
        local = {v.name for v in block.vars if not v.persistable}
        written = {n for op in block.ops for v in op.outputs for n in v.arguments}
        return written - local

    def _declared_persistables(self) -> dict[str, tuple[tuple, np.dtype]]:
        """(dims, dtype) of every persistable the program declares as a dense tensor."""
        if self._persistables is None:
            found = {}
            for block in self.desc.blocks:
                for v in block.vars:
                    tensor = v.lod_desc.tensor
                    if v.persistable and v.type == pb.VarDesc.LOD_TENSOR and \
                            tensor.HasField("data_type") and v.name not in found:
                        found[v.name] = (tuple(tensor.dims), to_numpy_dtype(tensor.data_type))
            self._persistables = found
        return self._persistables

    def _declared_types(self, block_idx: int) -> dict[str, int]:
        """VarType by name for a block: its own VarDescs over its ancestors'."""
        chain, idx = [], block_idx
        while 0 <= idx < len(self.desc.blocks) and len(chain) <= len(self.desc.blocks):
            chain.append(self.desc.blocks[idx])
            idx = self.desc.blocks[idx].parent_idx if idx else -1
        return {v.name: v.type for block in reversed(chain) for v in block.vars}

    @staticmethod
    def _bind(plan: Plan, env, lods, feeds, scope: Scope, strict: bool) -> tuple | None:
        """Put feeds and scope values into the frame; return their shape signature
        (Plan.shape_signature), or None if a kind changed since compile."""
        kinds = plan.external_kinds if strict else None  # (a plan compiling has none yet)
        shapes = []
        for k, (i, name) in enumerate(plan.external):
            fed = feeds.get(name)
            if fed is not None:
                value, offsets = fed
            else:
                holder = scope.find_var(name)
                stored = None if holder is None else holder.value
                if stored is None:
                    if strict:
                        return None
                    continue  # reported by the op that reads it, with the op's context
                if stored.__class__ is LoDTensor:
                    value, offsets = stored._array, stored._offsets
                else:
                    value, offsets = stored, ()
            if strict and (value.__class__ is not kinds[k][0] or len(offsets) != kinds[k][1]):
                return None
            env[i], lods[i] = value, offsets
            shapes.append(value.shape if value.__class__ is np.ndarray else shape_of(value))
            shapes.append(getattr(value, "dtype", None))  # a scope's value may change dtype
            if offsets:
                shapes.append(tuple(map(len, offsets)))
        return tuple(shapes)

    @staticmethod
    def _write_back(plan: Plan, env, lods, scope: Scope, block_idx: int,
                    keep_locals: bool) -> None:
        for i, name in plan.escaping_outputs:
            if env[i] is None:
                # Only a nested block wrote it (a conditional_block in a loop body), and that
                # write went straight to where the variable lives: nothing to copy, and
                # copying the empty slot would erase it.
                continue
            holder = scope.find_var(name)
            if holder is None:  # first write of an ancestor's variable: it lives above us
                holder = (scope.parent or scope).var(name) if block_idx else scope.var(name)
            _store(holder, env[i], lods[i])
        if keep_locals:
            escaping = {n for _, n in plan.escaping_outputs}
            for i, name in plan.written:
                if name not in escaping and env[i] is not None:
                    _store(scope.var(name), env[i], lods[i])


def _store(holder, value, offsets) -> None:
    if value.__class__ in SPARSE_CLASSES or value.__class__ is not np.ndarray:
        holder.value = value
        return
    current = holder.value
    if (current.__class__ is not LoDTensor or current._array is not value
            or current._offsets is not offsets):
        holder.value = LoDTensor.unchecked(value, offsets)
