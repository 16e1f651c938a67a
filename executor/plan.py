"""Compiling a block into a cached execution plan, and running it.

The first run of a block for a given feed signature interprets it op by op,
in the order DESIGN.md fixes: resolve the op's variables, run its InferVarType
and InferShape on the actual values, select a kernel by (storage types of the
key inputs, dtype, place), run it, and check its outputs against what
inference declared. Every decision made there (variable slots, kernel, LoD
sharing, output classes) is frozen into one small closure per op, so that a
later run with the same signature pays for the kernels and little else.

The run loop knows no op by name: everything op-specific comes from the
registry.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from paddle_ir.core.attrs import ATTR_KINDS, check_attr_value, from_attr_proto
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.dtypes import dtype_name, to_numpy_dtype
from paddle_ir.core.errors import (
    InvalidProgramError,
    KernelError,
    KernelNotFoundError,
    MissingVariableError,
    NanInfError,
    OpLocation,
    PaddleIRError,
)
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.core.storage import storage_type
from paddle_ir.core.tensor_array import LoDTensorArray
from paddle_ir.executor.runtime_context import (
    CLASS_OF_VAR_TYPE,
    CONTAINER_CLASSES,
    SPARSE_CLASSES,
    RuntimeContext,
    var_type_of,
)
from paddle_ir.ops import registry as op_registry
from paddle_ir.ops.context import (
    CSR,
    LOD_TENSOR,
    SELECTED_ROWS,
    VAR_TYPE_NAMES,
    default_infer_var_type,
)
from paddle_ir.ops.registry import DENSE, TENSOR_ARRAY, KernelKey
from paddle_ir.proto import framework_pb2 as pb

_ZEROS = bytes(16)  # the one element every shape-only stand-in repeats
ABSENT = 0  # frame slot 0 is always None: where absent dispensable inputs point
RUN_CONTEXT = 1  # frame slot 1 holds the run's executor.control.RunContext
_EMPTY = ()
# How a fallback turns a dense kernel's result back into a declared sparse output.
_FROM_DENSE = {SELECTED_ROWS: SelectedRows.from_dense, CSR: CSRTensor.from_dense}
# paddle-ir's packages sit side by side; a warning points at the first frame outside them.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_OWN_DIRS = tuple(os.path.join(_ROOT, package) + os.sep
                  for package in ("executor", "ops", "paddle_ir"))


class StorageFallbackWarning(UserWarning):
    """An op had no kernel for the storage types of its inputs and ran densified."""


def storage_of(value) -> str:
    """'dense', 'selected_rows', 'csr' or 'tensor_array': the storage a value selects
    kernels by (a tensor array is a key input of `sum`, accumulating array gradients)."""
    if value.__class__ is LoDTensorArray:
        return TENSOR_ARRAY
    return storage_type(value)


def slot_storage(values) -> str:
    """The storage type a key slot selects kernels by.

    A one-variable slot has its value's. A duplicable slot has the storage its
    values share; a mixed list selects the dense kernel, which then receives
    the sparse members as they are (`sum` scatter-adds them into its result).
    """
    kinds = {storage_of(v) for v in values}
    return kinds.pop() if len(kinds) == 1 else DENSE


@dataclass
class KernelChoice:
    """What the executor chose for one op: observable by tests and `--profile`."""

    op_idx: int
    op_type: str
    key: KernelKey
    kernel: str
    fallback: bool = False


@dataclass
class Plan:
    names: list[str]
    index: dict[str, int]
    # Slots read before any op writes them: bound from the feed or the scope each run.
    external: list[tuple[int, str]]
    # The class and LoD level each external value had when the plan was made.
    external_kinds: list[tuple[type, int]]
    # Slots written by the block whose values must outlive the run: persistables, and
    # in a sub-block the variables its ancestors declare (loop-carried values).
    escaping_outputs: list[tuple[int, str]]
    steps: list[Callable]
    op_types: list[str]
    choices: list[KernelChoice] = field(default_factory=list)
    locations: list[Callable] = field(default_factory=list)
    compile_ms: float = 0.0
    # Every slot the block writes: what a step scope keeps for the backward pass.
    written: list[tuple[int, str]] = field(default_factory=list)


def parse_attrs(op: pb.OpDesc, opdef, location: OpLocation) -> dict:
    """Attributes of a parsed op, checked against its spec, with defaults filled."""
    attrs = {}
    for a in op.attrs:
        spec = opdef.attr_spec(a.name)
        if spec is None:
            raise InvalidProgramError(f"{op.type} has no attribute {a.name!r}", op=location)
        try:
            value = from_attr_proto(a)
        except KeyError:
            raise InvalidProgramError(
                f"attribute {a.name!r} has unknown AttrType {a.type}", op=location) from None
        problem = check_attr_value(spec.kind, value)
        expected_type = ATTR_KINDS[spec.kind][0]
        if problem or a.type != expected_type:
            raise InvalidProgramError(
                f"attribute {a.name!r} of {op.type} must be {spec.kind} "
                f"(AttrType {pb.AttrType.Name(expected_type)}), but the program stores "
                f"{pb.AttrType.Name(a.type) if a.type in pb.AttrType.values() else a.type}",
                op=location)
        attrs[a.name] = value
    for spec in opdef.attrs:
        if spec.name not in attrs:
            if spec.required:
                raise InvalidProgramError(
                    f"attribute {spec.name!r} of {op.type} is required", op=location)
            attrs[spec.name] = spec.default
    return attrs


def _slot_map(vars_) -> dict[str, list[str]]:
    return {v.parameter: list(v.arguments) for v in vars_}


def _check_slots(op: pb.OpDesc, opdef, ins, outs, location) -> None:
    for kind, given, slots in (("input", ins, opdef.inputs), ("output", outs, opdef.outputs)):
        known = {s.name: s for s in slots}
        for slot, names in given.items():
            if slot not in known:
                raise InvalidProgramError(
                    f"{op.type} has no {kind} slot {slot!r}; its {kind}s are {list(known)}",
                    op=location)
            if len(names) > 1 and not known[slot].duplicable:
                raise InvalidProgramError(
                    f"{kind} {slot} of {op.type} takes one variable, got {names}", op=location)
        for s in slots:
            if not s.dispensable and not given.get(s.name):
                raise InvalidProgramError(
                    f"{kind} {s.name} of {op.type} is required but was not given", op=location)


# --- kernel selection ------------------------------------------------------------------------


def requested_key(opdef, attrs, ctx: RuntimeContext, env, index) -> KernelKey:
    """The key an op's inputs ask for: the storage of each key slot, and the dtype."""
    storages = tuple(slot_storage([env[index[n]] for n in ctx.input_names(slot)])
                     for slot in opdef.key_inputs)
    return KernelKey(storages, _kernel_dtype(opdef, attrs, ctx, env, index))


def select_kernel(opdef, attrs, ctx: RuntimeContext, env, index, allow_fallback: bool):
    """(kernel, key, fell_back) by exact key; else the op's densify fallback; else an error.

    The fallback runs the dense kernel for the same dtype: the step densifies every
    sparse input and converts outputs declared sparse back from the dense results.
    An op with a fallback also falls back when its key inputs are dense but another
    input is sparse (a grad op reading a SelectedRows X): dense kernels take ndarrays.
    """
    key = requested_key(opdef, attrs, ctx, env, index)
    storages, dtype = key.storage, key.dtype
    dense_key = KernelKey((DENSE,) * len(storages), dtype)
    sparse_elsewhere = (opdef.fallback and key == dense_key
                        and bool(sparse_inputs(opdef, ctx, env, index)))
    kernel = opdef.find_kernel(key)
    if kernel is not None and not sparse_elsewhere:
        return kernel, key, False
    dense = opdef.find_kernel(dense_key) if key != dense_key or sparse_elsewhere else None
    if dense is not None and opdef.fallback:
        if not allow_fallback:
            what = (f"its dense kernel cannot take the sparse inputs "
                    f"{', '.join(sparse_inputs(opdef, ctx, env, index))}" if sparse_elsewhere
                    else f"it has no kernel for key {key}")
            raise KernelNotFoundError(
                f"{opdef.type}: {what}, and storage fallback is turned off "
                f"(Executor(storage_fallback='error')); the kernels of {opdef.type} are: "
                f"{opdef.kernel_list()}", op=ctx.location(),
                hint="cast_storage the sparse inputs to dense where that is intended, or "
                     "run with storage_fallback='warn'")
        return dense, dense_key, True
    sparse = any(s != DENSE for s in storages)
    raise KernelNotFoundError(
        f"no kernel of {opdef.type} for key {key}; available kernels: {opdef.kernel_list()}",
        op=ctx.location(),
        hint=(f"{opdef.type} has no densify fallback for sparse inputs; cast_storage them to "
              f"dense first" if sparse and dense is not None else None))


def sparse_inputs(opdef, ctx: RuntimeContext, env, index) -> list[str]:
    """'slot=name (storage)' for every input of the op that holds a sparse value."""
    return [f"{slot.name}={n} ({storage_of(env[index[n]])})" for slot in opdef.inputs
            for n in ctx.input_names(slot.name) if env[index[n]].__class__ in SPARSE_CLASSES]


def fallback_message(op_type: str, storages: dict[str, tuple[list[str], str]],
                     converted: list[str], location: OpLocation) -> str:
    """The one warning an op type gets when it first runs densified."""
    inputs = ", ".join(f"{slot}={', '.join(names)} ({stype})"
                       for slot, (names, stype) in storages.items())
    text = (f"{location.headline()}: {op_type} has no kernel for the storage types of its "
            f"inputs ({inputs}); its sparse inputs are densified and the dense kernel runs")
    if converted:
        text += f", and {', '.join(converted)} converted back to sparse storage"
    if location.creation_site:
        text += f" (op created at {location.creation_site})"
    return text + (". Shown once per op type; Executor(storage_fallback='error') makes it "
                   "an error.")


def _user_stacklevel() -> int:
    """warnings.warn's stacklevel for the innermost frame outside paddle-ir (the caller)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_OWN_DIRS):
        frame, level = frame.f_back, level + 1
    return level


def _kernel_dtype(opdef, attrs, ctx, env, index) -> np.dtype:
    source = opdef.dtype_from
    if source is None:
        return np.dtype(np.float32)
    if source.startswith("attr:"):
        return to_numpy_dtype(attrs[source[5:]])
    names = ctx.input_names(source)
    if not names:
        return np.dtype(np.float32)
    return env[index[names[0]]].dtype


# --- steps --------------------------------------------------------------------------------------


def _bad_output(op_type: str, name: str, value, expected: type):
    """A kernel's output of an unexpected class: a numpy scalar becomes a 0-D array, else fail.

    numpy's ufuncs turn 0-D arrays into scalars (np.exp(np.array(1.0)) is a float64), so
    any elementwise kernel may return one for a 0-D input, such as the output of `mean`.
    """
    if expected is np.ndarray and isinstance(value, np.generic):
        return np.asarray(value)
    got = type(value).__name__
    raise KernelError(
        f"the kernel of {op_type} returned a {got} for {name!r}, but var-type inference "
        f"declared {expected.__name__}",
        op=OpLocation(op_type=op_type))


def _fast_step(fn, attrs, ins: list[int], out: int, cls: type, op_type: str, out_name: str,
               dead: tuple[int, ...] = ()):
    """A step for the common case: single-variable slots, one output, no LoD, no fallback.

    `dead`: input slots this op reads for the last time, cleared after it runs.
    """
    if len(ins) == 1 and not dead:
        (a,) = ins

        def step(env, lods):
            v = fn(attrs, env[a])
            if v.__class__ is not cls:
                v = _bad_output(op_type, out_name, v, cls)
            env[out] = v

    elif len(ins) == 1:
        (a,) = ins  # dead is (a,)

        def step(env, lods):
            v = fn(attrs, env[a])
            if v.__class__ is not cls:
                v = _bad_output(op_type, out_name, v, cls)
            env[out] = v
            env[a] = None

    elif len(ins) == 2 and not dead:
        a, b = ins

        def step(env, lods):
            v = fn(attrs, env[a], env[b])
            if v.__class__ is not cls:
                v = _bad_output(op_type, out_name, v, cls)
            env[out] = v

    elif len(ins) == 2:
        a, b = ins

        def step(env, lods):
            v = fn(attrs, env[a], env[b])
            if v.__class__ is not cls:
                v = _bad_output(op_type, out_name, v, cls)
            env[out] = v
            for d in dead:
                env[d] = None

    elif len(ins) == 3:
        a, b, c = ins

        def step(env, lods):
            v = fn(attrs, env[a], env[b], env[c])
            if v.__class__ is not cls:
                v = _bad_output(op_type, out_name, v, cls)
            env[out] = v
            for d in dead:
                env[d] = None

    else:

        def step(env, lods):
            v = fn(attrs, *[env[i] for i in ins])
            if v.__class__ is not cls:
                v = _bad_output(op_type, out_name, v, cls)
            env[out] = v
            for d in dead:
                env[d] = None

    return step


def shape_only(value):
    """A stand-in with value's shape and dtype and no data (a read-only zero-stride view).

    Later ops that read only the shape (no_need_buffer inputs) get it, so the data
    itself can go back to the allocator. Sparse values are kept whole.
    """
    if value.__class__ is not np.ndarray or not value.strides or not any(value.strides):
        return value
    dtype = value.dtype
    if dtype.itemsize > len(_ZEROS) or dtype.hasobject:
        return np.broadcast_to(np.zeros((), dtype=dtype), value.shape)
    # The constructor over immutable zero bytes: 10x cheaper than np.broadcast_to.
    return np.ndarray(value.shape, dtype, buffer=_ZEROS, strides=(0,) * value.ndim)


def _freeing(step, dead: tuple[int, ...], hollow: tuple[int, ...] = ()):
    """`step`, then clear the slots it read for the last time and hollow out the slots
    whose later readers need only their shape."""
    if not dead and not hollow:
        return step

    def freeing_step(env, lods):
        step(env, lods)
        for d in dead:
            env[d] = None
        for h in hollow:
            env[h] = shape_only(env[h])

    return freeing_step


def _control_step(fn, attrs, in_layout, index, ins, outs):
    """A step for a control-flow kernel: it gets the frame as a scope and runs blocks."""
    from paddle_ir.executor.control import ControlContext  # control builds on this module

    def step(env, lods):
        args = []
        for item in in_layout:
            if item is None:
                args.append(None)
            elif item.__class__ is int:
                args.append(env[item])
            else:
                args.append([env[i] for i in item])
        fn(ControlContext(env, lods, index, env[RUN_CONTEXT], ins, outs), attrs, *args)

    return step


def _general_step(fn, attrs, in_layout, out_layout, out_names, out_classes, lod_aware,
                  densify, to_sparse, shares, single_output, op_type):
    """A step for everything else: duplicable slots, LoD-aware kernels, fallbacks, LoD sharing."""

    def fetch(env, lods, i):
        v = env[i]
        if densify and v.__class__ in SPARSE_CLASSES:
            return v.to_dense()
        if lod_aware and v.__class__ is np.ndarray:
            return LoDTensor._make(v, lods[i])
        return v

    def step(env, lods):
        args = []
        for item in in_layout:
            if item is None:
                args.append(None)
            elif item.__class__ is int:
                args.append(fetch(env, lods, item))
            else:
                args.append([fetch(env, lods, i) for i in item])
        result = fn(attrs, *args)
        results = (result,) if single_output else result
        k = 0
        for item, value in zip(out_layout, results, strict=True):
            for i, v in ((item, value),) if item.__class__ is int else zip(item, value,
                                                                              strict=True):
                if v.__class__ is LoDTensor:
                    env[i], lods[i] = v._array, v._offsets
                else:
                    if to_sparse[k] is not None and v.__class__ is np.ndarray:
                        v = to_sparse[k](v)
                    env[i], lods[i] = v, _EMPTY
                if env[i].__class__ is not out_classes[k]:
                    env[i] = _bad_output(op_type, out_names[k], env[i], out_classes[k])
                k += 1
        for src, dst in shares:
            lods[dst] = lods[src]

    return step


# --- compiling ----------------------------------------------------------------------------------


class BlockCompiler:
    """Interprets one block with full inference, recording a Plan as it goes."""

    def __init__(self, block: pb.BlockDesc, escaping: set[str], options):
        self.block = block
        self.escaping = escaping
        self.options = options
        self.names: list[str] = ["<absent>", "<run-context>"]
        self.index: dict[str, int] = {}
        self._last_reads: list[list[str]] = [[] for _ in block.ops]
        self._last_data_reads: list[list[str]] = [[] for _ in block.ops]

    def slot(self, name: str) -> int:
        i = self.index.get(name)
        if i is None:
            i = self.index[name] = len(self.names)
            self.names.append(name)
        return i

    def external_slots(self, fetch_names) -> list[str]:
        """Names read before any op of the block writes them, in first-read order."""
        written, external, seen = set(), [], set()
        for op in self.block.ops:
            for v in op.inputs:
                for n in v.arguments:
                    if n not in written and n not in seen:
                        seen.add(n)
                        external.append(n)
            for v in op.outputs:
                written.update(v.arguments)
        for n in fetch_names:
            if n not in written and n not in seen:
                seen.add(n)
                external.append(n)
        return external

    def last_reads(self, fetch_names, keep_locals: bool) -> tuple[list[list[str]],
                                                                  list[list[str]]]:
        """Per op: the variables it reads for the last time, and those whose data it reads
        for the last time while later ops still read their shape (no_need_buffer slots).

        A step clears the first from the frame once its kernel has run, and replaces
        the second by a shape-only stand-in, so a temporary's memory goes back to the
        allocator (and the next kernel's output reuses it while it is still in cache)
        instead of living until the end of the run. Kept: fetch targets, values that
        outlive the run (escaping ones, and everything written when a step scope
        keeps the locals) and, in a block with control-flow ops, every value, since
        their sub-blocks read this frame by name.
        """
        ops = self.block.ops
        nothing = ([[] for _ in ops], [[] for _ in ops])
        last: dict[str, int] = {}
        last_data: dict[str, int] = {}
        for k, op in enumerate(ops):
            opdef = op_registry.get_op_def(op.type)
            if (opdef is None or any(kernel.control for kernel in opdef.kernels.values())
                    or any(a.type in (pb.BLOCK, pb.BLOCKS) for a in op.attrs)):
                return nothing
            shape_only_slots = {s.name for s in opdef.inputs if s.no_need_buffer}
            for v in op.inputs:
                for n in v.arguments:
                    last[n] = k
                    if v.parameter not in shape_only_slots:
                        last_data[n] = k
            for v in op.outputs:
                for n in v.arguments:
                    last.pop(n, None)  # read before this write: that value dies with it
                    last_data.pop(n, None)
        kept = set(fetch_names) | self.escaping
        if keep_locals:
            kept |= {n for op in ops for v in op.outputs for n in v.arguments}
        dead, hollow = nothing
        for n, k in last.items():
            if n not in kept:
                dead[k].append(n)
                data_k = last_data.get(n)
                if data_k is not None and data_k < k:
                    hollow[data_k].append(n)
        return dead, hollow

    def compile_and_run(self, bind: Callable, fetch_names, run_context,
                        keep_locals: bool = False) -> tuple[Plan, list, list]:
        """Bind inputs with `bind(plan, env, lods)`, then run and record every op."""
        started = time.perf_counter()
        self._last_reads, self._last_data_reads = self.last_reads(fetch_names, keep_locals)
        external_names = self.external_slots(fetch_names)
        external = [(self.slot(n), n) for n in external_names]
        for op in self.block.ops:
            for v in list(op.inputs) + list(op.outputs):
                for n in v.arguments:
                    self.slot(n)
        for n in fetch_names:
            self.slot(n)
        env = [None] * len(self.names)
        lods = [_EMPTY] * len(self.names)
        env[RUN_CONTEXT] = run_context
        plan = Plan(self.names, self.index, external, [], [], [], [])
        bind(plan, env, lods)
        plan.external_kinds = [(type(env[i]), len(lods[i])) for i, _ in external]
        written = {}
        for op_idx, op in enumerate(self.block.ops):
            step, choice, location_fn = self._compile_op(op_idx, op, env, lods)
            try:  # the first run reports a kernel's failure as later runs do
                step(env, lods)
            except PaddleIRError as exc:
                _locate(exc, location_fn)
                raise
            except Exception as exc:
                raise KernelError(f"{type(exc).__name__}: {exc}", op=location_fn()) from exc
            plan.steps.append(step)
            plan.op_types.append(op.type)
            plan.choices.append(choice)
            plan.locations.append(location_fn)
            if not self._pending[1].control:  # control ops write through their scope
                self._check_outputs(op, env, lods, location_fn)
            for v in op.outputs:
                for n in v.arguments:
                    written[n] = self.index[n]
        plan.written = [(i, n) for n, i in written.items()]
        plan.escaping_outputs = [(i, n) for n, i in written.items() if n in self.escaping]
        plan.compile_ms = (time.perf_counter() - started) * 1e3
        return plan, env, lods

    def _location_fn(self, op_idx, op):
        def location(shapes=None):
            return OpLocation(
                op_type=op.type, block_idx=self.block.idx, op_idx=op_idx,
                inputs=_slot_map(op.inputs), outputs=_slot_map(op.outputs),
                creation_site=op.creation_site if op.HasField("creation_site") else None,
                shapes=shapes or {})
        return location

    def _compile_op(self, op_idx, op, env, lods):
        location_fn = self._location_fn(op_idx, op)
        opdef = op_registry.get_op_def(op.type)
        if opdef is None:
            raise InvalidProgramError(
                f"unknown op type {op.type!r}: no operator of that name is registered",
                op=location_fn(), hint="`paddle-ir ops` lists the registered op types")
        ins, outs = _slot_map(op.inputs), _slot_map(op.outputs)
        _check_slots(op, opdef, ins, outs, location_fn())
        attrs = parse_attrs(op, opdef, location_fn())
        for slot, names in ins.items():
            for n in names:
                if env[self.index[n]] is None:
                    raise MissingVariableError(
                        f"input {slot} reads {n!r}, which has no value in the scope",
                        op=location_fn(self._shapes(env, ins)),
                        hint="did you run the startup program? Parameters get their values "
                             "there; data variables must be fed")
        ctx = RuntimeContext(op.type, attrs, ins, outs, self.index, env, lods, location_fn)
        (opdef.infer_var_type_fn or default_infer_var_type)(ctx)
        if opdef.infer_shape_fn is not None:
            opdef.infer_shape_fn(ctx)
        kernel, key, fell_back = select_kernel(opdef, attrs, ctx, env, self.index,
                                               self.options.allow_fallback)
        if fell_back and op.type not in self.options.warned_fallbacks:
            self.options.warned_fallbacks.add(op.type)
            storages = {s.name: (ins[s.name], slot_storage([env[self.index[n]]
                                                            for n in ins[s.name]]))
                        for s in opdef.inputs if s.name in ins}
            converted = [n for names in outs.values() for n in names
                         if n in ctx.inferred and ctx.inferred[n].var_type in _FROM_DENSE]
            warnings.warn(fallback_message(op.type, storages, converted, location_fn()),
                          StorageFallbackWarning, stacklevel=_user_stacklevel())
        self._pending = (ctx, kernel)
        written = {n for names in outs.values() for n in names}
        dead = tuple(dict.fromkeys(self.index[n] for n in self._last_reads[op_idx]
                                   if n not in written))
        hollow = tuple(dict.fromkeys(self.index[n] for n in self._last_data_reads[op_idx]
                                     if n not in written))
        step = _freeing(self._make_step(op, opdef, kernel, attrs, ins, outs, ctx, lods,
                                        fell_back, dead), (), hollow)
        choice = KernelChoice(op_idx, op.type, key, kernel.name, fell_back)
        return step, choice, location_fn

    def _shapes(self, env, slots):
        return {n: env[self.index[n]].shape for names in slots.values() for n in names
                if env[self.index[n]] is not None}

    def _make_step(self, op, opdef, kernel, attrs, ins, outs, ctx, lods, fell_back, dead):
        index = self.index
        in_layout = []
        for s in opdef.inputs:
            names = ins.get(s.name, [])
            if s.duplicable:
                in_layout.append([index[n] for n in names])
            else:
                in_layout.append(index[names[0]] if names else None)
        if kernel.control:
            return _control_step(kernel.fn, attrs, in_layout, index, ins, outs)
        out_layout, out_names, out_classes, to_sparse = [], [], [], []
        for s in opdef.outputs:
            names = outs.get(s.name, [])
            if s.duplicable:
                out_layout.append([index[n] for n in names])
            elif names:
                out_layout.append(index[names[0]])
            else:
                continue
            for n in names:
                vt = ctx.var_info(n).var_type if n in ctx.inferred else LOD_TENSOR
                out_names.append(n)
                out_classes.append(CLASS_OF_VAR_TYPE[vt])
                to_sparse.append(_FROM_DENSE.get(vt) if fell_back else None)
        # Sharing an empty LoD into an output without one changes nothing; LoD depths are
        # fixed per plan (the feed signature and the bound kinds hold them), so such
        # shares are dropped here, and most ops keep the fast step.
        shares = [(index[src], index[dst]) for src, dst in ctx.lod_shares
                  if lods[index[src]] or lods[index[dst]]]
        # Absent outputs of the spec are skipped by the kernel contract: kernels return
        # values for every declared output slot; unbound ones are dropped here.
        n_declared = len(opdef.outputs)
        bound = [s.name in outs for s in opdef.outputs]
        single_output = n_declared == 1
        if not all(bound):
            fn_inner = kernel.fn

            def fn(attrs_, *args):
                result = fn_inner(attrs_, *args)
                results = (result,) if single_output else result
                kept = tuple(r for r, b in zip(results, bound, strict=True) if b)
                return kept[0] if len(kept) == 1 else kept

            single = sum(bound) == 1
        else:
            fn, single = kernel.fn, single_output
        simple = (
            not kernel.lod and not fell_back and not shares and single and len(out_layout) == 1
            and all(isinstance(i, int) or i is None for i in in_layout)
            and isinstance(out_layout[0], int)
            and not lods[out_layout[0]]
        )
        if simple:
            ins_idx = [ABSENT if i is None else i for i in in_layout]
            return _fast_step(fn, attrs, ins_idx, out_layout[0], out_classes[0], op.type,
                              out_names[0], dead)
        return _freeing(_general_step(fn, attrs, in_layout, out_layout, out_names, out_classes,
                                      kernel.lod, fell_back, to_sparse, shares, single,
                                      op.type), dead)

    def _check_outputs(self, op, env, lods, location_fn) -> None:
        """The kernel's results must agree with what inference declared."""
        ctx, kernel = self._pending
        for v in op.outputs:
            for n in v.arguments:
                i = self.index[n]
                value = env[i]
                declared = ctx.inferred.get(n)
                if value is None:
                    raise KernelError(f"the kernel left output {n!r} without a value",
                                      op=location_fn())
                if declared is None:
                    continue
                got_type = var_type_of(value)
                problems = []
                if got_type != declared.var_type:
                    problems.append(f"type {VAR_TYPE_NAMES[got_type]} "
                                    f"(declared {VAR_TYPE_NAMES[declared.var_type]})")
                if value.__class__ in CONTAINER_CLASSES:  # arrays, rank tables: type only
                    if problems:
                        raise KernelError(
                            f"kernel {kernel.name} wrote {n!r} with " + "; ".join(problems)
                            + ": it disagrees with the op's InferShape", op=location_fn())
                    continue
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
                if self.options.check_nan_inf:
                    check_finite(op.type, n, value, location_fn)


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


def run_steps(plan: Plan, env, lods, profile: dict | None = None) -> None:
    """Run a compiled plan; on failure, explain it in terms of the op that failed."""
    steps = plan.steps
    i = 0
    try:
        if profile is None:
            for i, step in enumerate(steps):  # noqa: B007 - i names the failing op
                step(env, lods)
        else:
            clock = time.perf_counter
            for i, step in enumerate(steps):  # noqa: B007
                t0 = clock()
                step(env, lods)
                entry = profile.setdefault(plan.op_types[i], [0, 0.0])
                entry[0] += 1
                entry[1] += clock() - t0
    except PaddleIRError as exc:
        _locate(exc, plan.locations[i] if i < len(plan.locations) else None)
        raise
    except Exception as exc:  # a kernel raised: report it against its op
        location = plan.locations[i]() if i < len(plan.locations) else None
        raise KernelError(f"{type(exc).__name__}: {exc}", op=location) from exc


def _locate(exc: PaddleIRError, location_fn) -> None:
    """Point an error raised inside a step (which knows at most its op type) at the op."""
    if location_fn is not None and (exc.op is None or exc.op.op_idx is None):
        exc.op = location_fn()
        exc.args = (exc._render(),)
