"""Compiling a block into a cached execution plan, and running it.

The first run of a block for a given feed signature interprets it op by op,
in the order DESIGN.md fixes: resolve the op's variables, run its InferVarType
and InferShape on the actual values, select a kernel (dispatch.py), run it,
and check its outputs against what inference declared. Every decision made
there is frozen into one step per op (steps.py), so that a later run with the
same signature pays for the kernels and little else.

A plan is cached per feed signature (classes, dtypes, ranks, LoD depths), not
per shape, so the shape facts InferShape checked on the first run would not
be checked again. They are guarded instead: a plan keeps the shapes of its
external inputs (with the sequence counts of their LoD) for which every op's
inference has passed; a run whose shapes are not among them runs each op's
inference before its step (`run_steps(..., checked=True)`), failing with the
error a fresh plan gives, and on success adds the shapes to the verified set.
The steady state costs one tuple lookup per run.

The run loop knows no op by name: everything op-specific comes from the
registry.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from paddle_ir.core import limits
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.dtypes import dtype_name
from paddle_ir.core.errors import (
    InvalidProgramError,
    KernelError,
    MissingVariableError,
    NanInfError,
    OpLocation,
    PaddleIRError,
)
from paddle_ir.core.kinds import CONTAINER_CLASSES, LOD_TENSOR, var_type_of
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.executor.budget import check_inferred_sizes
from paddle_ir.executor.dispatch import select_kernel, warn_fallback
from paddle_ir.executor.runtime_context import RuntimeContext
from paddle_ir.executor.steps import (
    EMPTY,
    FROM_DENSE,
    RUN_CONTEXT,
    check_declared_kinds,
    freeing,
    kernel_failure,
    last_reads,
    make_step,
)
from paddle_ir.ops import registry as op_registry
from paddle_ir.ops.registry import KernelKey
from paddle_ir.proto import framework_pb2 as pb

# How many shape signatures a plan remembers as verified (a training loop has one or
# two: the batch and the last, partial one); past that it starts over.
_MAX_VERIFIED = 16


@dataclass
class KernelChoice:
    """What the executor chose for one op: observable by tests and `--profile`."""

    op_idx: int
    op_type: str
    key: KernelKey
    kernel: str
    fallback: bool


# Slotted: a field is set only if declared, and the fields compile_and_run (or the runner)
# set after the plan is laid out have no default (field(init=False)), so a plan read before
# they are set raises AttributeError instead of showing a made-up value.
@dataclass(slots=True)
class Plan:
    """A block compiled for one feed signature: slots, steps and what to free when."""

    names: list[str]
    index: dict[str, int]
    # Slots read before any op writes them: bound from the feed or the scope each run.
    external: list[tuple[int, str]]
    # The class and LoD level each external value had when the plan was made.
    external_kinds: list[tuple[type, int]] = field(init=False)
    # Slots written by the block whose values must outlive the run: persistables, and
    # in a sub-block the variables its ancestors declare (loop-carried values).
    escaping_outputs: list[tuple[int, str]] = field(init=False)
    steps: list[Callable] = field(default_factory=list)
    op_types: list[str] = field(default_factory=list)
    choices: list[KernelChoice] = field(default_factory=list)
    locations: list[Callable] = field(default_factory=list)
    compile_ms: float = field(init=False)
    # Of compile_ms, the time inside the steps (the kernels' first run): the rest is what
    # compiling itself costs (inference, checks, kernel selection, building the steps).
    kernel_ms: float = field(init=False)
    # Every slot the block writes: what a step scope keeps for the backward pass.
    written: list[tuple[int, str]] = field(init=False)
    # The guards: each op's inference over the running frame (None: the op has none),
    # and the external shape signatures (`shape_signature`) every op's inference passed.
    checks: list[Callable | None] = field(default_factory=list)
    verified: set[tuple] = field(default_factory=set)
    # The memory budget the verified signatures were checked under (executor/budget.py).
    budget: int = field(init=False)
    # External slots holding persistables the program declares as dense tensors:
    # (slot, name, declared dims, declared dtype), checked by `check_declared_values`
    # (set by the runner, which knows the program's declarations).
    declared_values: list[tuple[int, str, tuple, np.dtype]] = field(init=False)

    def new_frame(self, run_context) -> tuple[list, list]:
        """An empty frame for one run: values and LoD offsets by slot."""
        env = [None] * len(self.names)
        env[RUN_CONTEXT] = run_context
        return env, [EMPTY] * len(self.names)

    def shape_signature(self, env, lods) -> tuple:
        """The shapes of the bound external values, each followed by its LoD's level
        lengths if it has a LoD (the runner's binding builds the same tuple)."""
        shapes = []
        for i, _ in self.external:
            shapes.append(shape_of(env[i]))
            shapes.append(getattr(env[i], "dtype", None))
            if lods[i]:
                shapes.append(tuple(map(len, lods[i])))
        return tuple(shapes)

    def verify(self, signature: tuple) -> None:
        if len(self.verified) >= _MAX_VERIFIED:
            self.verified.clear()
        self.verified.add(signature)


def shape_of(value):
    """A value's shape for the guards; None for values without one (step scopes)."""
    return getattr(value, "shape", None)


def check_declared_values(plan: Plan, env) -> None:
    """Each persistable the plan reads must have the dtype and known dims the program
    declares: a scope shared with another program (or given other values) would
    otherwise be computed with silently, wherever the ops' inference accepts the shapes.
    Run when a plan compiles and whenever its guards re-check new shapes or dtypes."""
    for i, name, dims, dtype in plan.declared_values:
        value = env[i]
        if value.__class__ is not np.ndarray:
            continue  # not bound (the op that reads it says so), or not a dense tensor
        if value.dtype != dtype or value.ndim != len(dims) or any(
                d >= 0 and d != s for d, s in zip(dims, value.shape, strict=True)):
            raise InvalidProgramError(
                f"persistable variable {name!r} holds {dtype_name(value.dtype)} "
                f"{list(value.shape)} in the scope, but the program declares "
                f"{dtype_name(dtype)} {list(dims)}: the scope holds values another program "
                f"(or another model) put there",
                hint="run the program's startup program (or load its parameters) in a scope "
                     "of its own")


def _slot_map(vars_) -> dict[str, list[str]]:
    return {v.parameter: list(v.arguments) for v in vars_}


def checked_attrs(op: pb.OpDesc, opdef, ins, outs, location_fn: Callable) -> dict:
    """The op's attributes with defaults filled, after the spec's check (the first problem
    is raised: OpDef.problems is the one statement of the rules). `location_fn()` makes
    the error's OpLocation, only when there is an error."""
    attrs, problems = opdef.decode_attrs(op.attrs)
    problems += opdef.problems(ins, outs, attrs)
    if problems:
        raise InvalidProgramError(problems[0], op=location_fn())
    return opdef.with_defaults(attrs)


@dataclass
class CompiledOp:
    """One op as the compiler leaves it: its step, and what the plan records about it."""

    step: Callable
    choice: KernelChoice
    location: Callable
    check: Callable | None  # the op's inference over a frame: the plan's shape guard
    inferred: RuntimeContext  # what inference declared about the outputs
    kernel: op_registry.Kernel


class BlockCompiler:
    """Interprets one block with full inference, recording a Plan as it goes.

    `new_plan` lays out the frame; the caller binds the external inputs into a new
    frame; `compile_and_run` then runs every op once and records its step.
    """

    def __init__(self, block: pb.BlockDesc, escaping: set[str], options,
                 declared: dict[str, int]):
        self.block = block
        self.declared = declared  # VarType by name, this block's and its ancestors'
        self.escaping = escaping
        self.options = options
        self.names: list[str] = ["<absent>", "<run-context>"]
        self.index: dict[str, int] = {}
        # Each op's (inputs, outputs) as slot -> names, read from the messages once: the
        # walks below (external reads, slots, liveness, compiling) all need them.
        self._op_slots = [(_slot_map(op.inputs), _slot_map(op.outputs)) for op in block.ops]

    def slot(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = self.index[name] = len(self.names)
            self.names.append(name)
        return i

    def external_slots(self, fetch_names) -> list[str]:
        """Names read before any op of the block writes them, in first-read order."""
        # external: an ordered set (a dict keeps a key where it was first put)
        written, external = set(), {}
        for op, (ins, outs) in zip(self.block.ops, self._op_slots, strict=True):
            opdef = op_registry.get_op_def(op.type)
            # an output the op may leave unwritten keeps the value it had: read it too
            kept = opdef.may_skip_outputs if opdef is not None else ()
            reads = list(ins.values()) + [names for slot, names in outs.items()
                                          if slot in kept]
            for names in reads:
                external.update(dict.fromkeys(n for n in names if n not in written))
            for names in outs.values():
                written.update(names)
        external.update(dict.fromkeys(n for n in fetch_names if n not in written))
        return list(external)

    def new_plan(self, fetch_names, keep_locals: bool = False) -> Plan:
        """The plan's frame layout (slots, external inputs) and each op's frees (`_dead`,
        `_hollow`: per op, the names it reads last, as compiling needs them)."""
        self._dead, self._hollow = last_reads(self.block, set(fetch_names) | self.escaping,
                                              keep_locals, self._op_slots)
        external = [(self.slot(n), n) for n in self.external_slots(fetch_names)]
        # (every fetch name has a slot now: external if no op writes it, else below)
        for ins, outs in self._op_slots:
            for names in (*ins.values(), *outs.values()):
                for n in names:
                    self.slot(n)
        return Plan(self.names, self.index, external)

    def compile_and_run(self, plan: Plan, env, lods) -> None:
        """Run every op once on the bound frame, with full inference, recording its step."""
        started = time.perf_counter()
        check_declared_values(plan, env)
        plan.external_kinds = [(type(env[i]), len(lods[i])) for i, _ in plan.external]
        plan.budget = limits.memory_budget()
        signature = plan.shape_signature(env, lods)
        written = {}
        clock, in_steps = time.perf_counter, 0.0
        for op_idx, op in enumerate(self.block.ops):
            compiled = self._compile_op(op_idx, op, env, lods)
            try:  # the first run reports a kernel's failure as later runs do
                t0 = clock()
                compiled.step(env, lods)
                in_steps += clock() - t0
            except PaddleIRError as exc:
                _locate(exc, compiled.location)
                raise
            except Exception as exc:
                raise kernel_failure(exc, compiled.location, env, self.index) from exc
            plan.steps.append(compiled.step)
            plan.op_types.append(op.type)
            plan.choices.append(compiled.choice)
            plan.locations.append(compiled.location)
            plan.checks.append(compiled.check)
            outs = self._op_slots[op_idx][1]
            if not compiled.kernel.control:  # control ops write through their scope
                self._check_outputs(outs, compiled, env, lods)
            else:
                check_declared_kinds(op.type, outs, env, self.index, self.declared,
                                     compiled.location)
            for names in outs.values():
                for n in names:
                    written[n] = self.index[n]
        plan.written = [(i, n) for n, i in written.items()]
        plan.escaping_outputs = [(i, n) for n, i in written.items() if n in self.escaping]
        plan.verify(signature)
        plan.compile_ms = (time.perf_counter() - started) * 1e3
        plan.kernel_ms = in_steps * 1e3

    def _location_fn(self, op_idx, op, ins, outs):
        """The op's OpLocation, made when an error needs it (from the op's slot maps,
        copied: an error's location may be edited)."""
        def location(shapes=None):
            return OpLocation(
                op_type=op.type, block_idx=self.block.idx, op_idx=op_idx,
                inputs={k: list(v) for k, v in ins.items()},
                outputs={k: list(v) for k, v in outs.items()},
                creation_site=op.creation_site if op.HasField("creation_site") else None,
                shapes=shapes or {})
        return location

    def _compile_op(self, op_idx, op, env, lods) -> CompiledOp:
        ins, outs = self._op_slots[op_idx]
        location_fn = self._location_fn(op_idx, op, ins, outs)
        opdef = op_registry.get_op_def(op.type)
        if opdef is None:
            raise InvalidProgramError(
                f"unknown op type {op.type!r}: no operator of that name is registered",
                op=location_fn(), hint="`paddle-ir ops` lists the registered op types")
        attrs = checked_attrs(op, opdef, ins, outs, location_fn)
        unset_ok = {s.name for s in opdef.inputs if s.may_be_unset}
        for slot, names in ins.items():
            for n in names:
                if env[self.index[n]] is None and slot not in unset_ok:
                    raise MissingVariableError(
                        f"input {slot} reads {n!r}, which has no value in the scope",
                        op=location_fn(self._shapes(env, ins)),
                        hint="did you run the startup program? Parameters get their values "
                             "there; data variables must be fed")
        ctx = RuntimeContext(op.type, attrs, ins, outs, self.index, env, lods, location_fn)
        opdef.infer(ctx)
        check_inferred_sizes(opdef, attrs, ctx)  # before the kernel allocates them
        kernel, key, fell_back = select_kernel(opdef, attrs, ctx, env, self.index,
                                               self.options.allow_fallback)
        if fell_back:
            converted = [n for names in outs.values() for n in names
                         if n in ctx.inferred and ctx.inferred[n].var_type in FROM_DENSE]
            warn_fallback(opdef, ctx, env, self.index, converted,
                          self.options.warned_fallbacks, location_fn())
        written = {n for names in outs.values() for n in names}
        dead = tuple(dict.fromkeys(self.index[n] for n in self._dead[op_idx]
                                   if n not in written))
        hollow = tuple(dict.fromkeys(self.index[n] for n in self._hollow[op_idx]
                                     if n not in written))
        step = freeing(make_step(op.type, opdef, kernel, attrs, ins, outs, ctx, self.index,
                                 lods, fell_back, dead), (), hollow)
        return CompiledOp(step, KernelChoice(op_idx, op.type, key, kernel.name, fell_back),
                          location_fn, _inference_check(opdef, attrs, ins, outs, self.index,
                                                        location_fn),
                          ctx, kernel)

    def _shapes(self, env, slots):
        return {n: env[self.index[n]].shape for names in slots.values() for n in names
                if env[self.index[n]] is not None}

    def _check_outputs(self, outs, compiled: CompiledOp, env, lods) -> None:
        """The kernel's results must agree with what inference declared (`outs`: the op's
        output slots -> names)."""
        inferred, kernel, location_fn = compiled.inferred.inferred, compiled.kernel, \
            compiled.location
        for names in outs.values():
            for n in names:
                i = self.index[n]
                value = env[i]
                declared = inferred.get(n)
                if declared is None:
                    continue
                # The step has already checked the value's class against the declared var
                # type (make_step's out_classes, one class per var type), so neither None
                # nor a value of another type reaches here. Arrays and rank tables have
                # nothing more to check.
                got_type = var_type_of(value)
                problems = []
                tensor = value.__class__ not in CONTAINER_CLASSES
                if tensor:
                    if declared.shape is not None and (
                        len(declared.shape) != len(value.shape)
                        or any(d >= 0 and d != g for d, g in zip(declared.shape, value.shape,
                                                                strict=True))):
                        problems.append(f"shape {list(value.shape)} (declared "
                                        f"{list(declared.shape)})")
                    if declared.dtype is not None and value.dtype != declared.dtype:
                        problems.append(f"dtype {dtype_name(value.dtype)} (declared "
                                        f"{dtype_name(declared.dtype)})")
                    if got_type == LOD_TENSOR and len(lods[i]) != declared.lod_level:
                        problems.append(f"{len(lods[i])} LoD levels (declared "
                                        f"lod_level {declared.lod_level})")
                if problems:
                    raise KernelError(
                        f"kernel {kernel.name} wrote {n!r} with " + "; ".join(problems)
                        + ": it disagrees with the op's InferShape", op=location_fn())
                if tensor and self.options.check_nan_inf:
                    check_finite(compiled.choice.op_type, n, value, location_fn)


def _inference_check(opdef, attrs, ins, outs, index, location_fn) -> Callable | None:
    """The op's inference over a running frame, as compiling ran it: the shape guard a
    cached plan runs before the op's step when the external shapes are new to it."""
    if opdef.infer_shape_fn is None:
        return None

    def check(env, lods):
        ctx = RuntimeContext(opdef.type, attrs, ins, outs, index, env, lods, location_fn)
        opdef.infer(ctx)
        check_inferred_sizes(opdef, attrs, ctx)  # new shapes may size outputs anew

    return check


def check_finite(op_type, name, value, location_fn) -> None:
    if isinstance(value, SelectedRows):
        data = value.value
    elif isinstance(value, CSRTensor):
        data = value.data
    else:
        data = value
    if data.dtype.kind in "fc" and data.size and not np.isfinite(data).all():
        kind = "NaN" if np.isnan(data).any() else "Inf"
        raise NanInfError(f"output {name!r} of {op_type} contains {kind}",
                          op=location_fn({name: value.shape}),
                          hint="the first op that produced a non-finite value is shown")


def run_steps(plan: Plan, env, lods, profile=None,
              checked: bool = False) -> None:
    """Run a compiled plan; on failure, explain it in terms of the op that failed.

    `checked`: run each op's inference (its shape guard) before its step. `profile`: None,
    a dict {op_type: [calls, seconds]}, or an executor.profile.OpTimes.
    """
    steps = plan.steps
    try:  # (each loop sets i, the failing op's index, before anything in it can raise)
        if checked:
            checks = plan.checks
            for i, step in enumerate(steps):
                if checks[i] is not None:
                    checks[i](env, lods)
                step(env, lods)
        elif profile is None:
            for i, step in enumerate(steps):  # noqa: B007 - i names the failing op
                step(env, lods)
        elif isinstance(profile, dict):  # {op_type: [calls, seconds]} (`--profile`)
            clock = time.perf_counter
            for i, step in enumerate(steps):  # noqa: B007
                t0 = clock()
                step(env, lods)
                entry = profile.setdefault(plan.op_types[i], [0, 0.0])
                entry[0] += 1
                entry[1] += clock() - t0
        else:  # an executor.profile.OpTimes (fluid.profiler): each run, for its timeline
            clock, record, op_types = time.perf_counter, profile.record, plan.op_types
            for i, step in enumerate(steps):  # noqa: B007
                t0 = clock()
                step(env, lods)
                record(op_types[i], t0, clock() - t0)
    except PaddleIRError as exc:  # (compile_and_run appends a location with each step)
        _locate(exc, plan.locations[i])
        raise
    except Exception as exc:  # a kernel raised: report it against its op
        raise kernel_failure(exc, plan.locations[i], env, plan.index) from exc



def _locate(exc: PaddleIRError, location_fn) -> None:
    """Point an error raised inside a step (which knows at most its op type) at the op."""
    if exc.op is None or exc.op.op_idx is None:
        exc.op = location_fn()
        exc.args = (exc._render(),)
