"""Steps: the closures a plan runs, one per op, and which values each may free.

A step reads its inputs from the run's frame (a list of values indexed by
slot, with the LoD offsets of each slot in a parallel list), calls its
kernel, and writes the outputs back. Everything decided while compiling
(slots, the kernel, LoD sharing, output classes, densify fallback) is frozen
into the closure, so a later run pays for the kernel and little else.

Liveness (`last_reads`) decides which slots a step clears after its kernel has
run, so a temporary's memory returns to the allocator early.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.errors import KernelError, OpLocation
from paddle_ir.core.kinds import CLASS_OF_VAR_TYPE, CSR, LOD_TENSOR, SELECTED_ROWS, SPARSE_CLASSES
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.executor.control import ControlContext
from paddle_ir.ops import registry as op_registry
from paddle_ir.proto import framework_pb2 as pb

ABSENT = 0  # frame slot 0 is always None: where absent dispensable inputs point
RUN_CONTEXT = 1  # frame slot 1 holds the run's executor.control.RunContext
EMPTY = ()
# How a fallback turns a dense kernel's result back into a declared sparse output.
FROM_DENSE = {SELECTED_ROWS: SelectedRows.from_dense, CSR: CSRTensor.from_dense}


def bad_output(op_type: str, name: str, value, expected: type):
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


def wrong_kind(name: str, value, declared_type: int | None) -> bool:
    """Whether a value cannot be what the program declares `name` to be.

    A gradient declared LOD_TENSOR may hold a SelectedRows or CSR value: a sparse gradient
    is a storage choice (a sparse lookup's gradient through while_grad keeps its rows),
    which the grad ops' var-type rules, declaring gradients like their forward values,
    cannot see. Anything else must be of its declared kind (an unlisted type: unchecked).
    """
    want = CLASS_OF_VAR_TYPE.get(declared_type)
    if want is None or value.__class__ is want:
        return False
    return not (declared_type == LOD_TENSOR and value.__class__ in SPARSE_CLASSES
                and "@GRAD" in name)


def check_declared_kinds(op_type: str, outputs: dict[str, list[str]], env, index,
                         declared: dict[str, int], location_fn) -> None:
    """A control-flow kernel writes its outputs through the frame as a scope, past the class
    check of a step: when its plan is compiled (and on every run with Executor(check=True))
    each output it wrote must be of the kind the program declares."""
    for names in outputs.values():
        for n in names:
            value = env[index[n]]
            if value is None or not wrong_kind(n, value, declared.get(n)):
                continue
            got = next((pb.VarDesc.VarType.Name(t) for t, c in CLASS_OF_VAR_TYPE.items()
                        if c is value.__class__), f"a {type(value).__name__}")
            raise KernelError(
                f"the kernel of {op_type} wrote {n!r} as {got}, but the program declares it "
                f"{pb.VarDesc.VarType.Name(declared[n])}", op=location_fn())


def kernel_failure(exc: Exception, location_fn, env, index) -> KernelError:
    """A kernel's own exception (numpy's ValueError, IndexError, ...) as the project's error:
    the op, its inputs' shapes, and the original text (the original stays as __cause__)."""
    location = location_fn()
    for names in location.inputs.values():
        for n in names:
            shape = getattr(env[index[n]], "shape", None)  # the plan slots every op name
            if shape is not None:
                location.shapes[n] = shape
    return KernelError(f"{type(exc).__name__}: {exc}", op=location)


def fast_step(fn, attrs, ins: list[int], out: int, cls: type, op_type: str, out_name: str,
              dead: tuple[int, ...] = ()):
    """A step for the common case: single-variable slots, one output, no LoD, no fallback.

    One rule: call the kernel, check the result's class, store it, and clear `dead`
    (the input slots this op reads for the last time). The first two dead slots are
    cleared by two plain stores, padded with ABSENT (slot 0, None for good), which
    costs less than a loop over them; the rest go through `freeing`. The kernel call is
    spelled out for one to three inputs because `fn(attrs, *args)` costs a fifth of
    a chained op's time.
    """
    d1, d2 = (tuple(dead) + (ABSENT, ABSENT))[:2]
    if len(ins) == 1:
        (a,) = ins

        def step(env, lods):
            v = fn(attrs, env[a])
            if v.__class__ is not cls:
                v = bad_output(op_type, out_name, v, cls)
            env[out] = v
            env[d1] = env[d2] = None

    elif len(ins) == 2:
        a, b = ins

        def step(env, lods):
            v = fn(attrs, env[a], env[b])
            if v.__class__ is not cls:
                v = bad_output(op_type, out_name, v, cls)
            env[out] = v
            env[d1] = env[d2] = None

    elif len(ins) == 3:
        a, b, c = ins

        def step(env, lods):
            v = fn(attrs, env[a], env[b], env[c])
            if v.__class__ is not cls:
                v = bad_output(op_type, out_name, v, cls)
            env[out] = v
            env[d1] = env[d2] = None

    else:

        def step(env, lods):
            v = fn(attrs, *[env[i] for i in ins])
            if v.__class__ is not cls:
                v = bad_output(op_type, out_name, v, cls)
            env[out] = v
            env[d1] = env[d2] = None

    return freeing(step, tuple(dead[2:]))


def direct_step(fn, attrs, direct, ins: list[int], out: int, cls: type, op_type: str,
                out_name: str, dead: tuple[int, ...] = ()):
    """A fast step that calls a numpy function itself instead of the kernel around it.

    A kernel may offer `fn.specialize(attrs, *inputs)`, asked once when its op compiles,
    with the inputs of that run: (func, consts, dtype) when, for these attributes, the
    kernel's result is exactly `func(*inputs, *consts)` (a ufunc, typically) while the
    first input has `dtype` (None: any dtype), else None. A chain of small ops then pays
    one Python call per op (B2). A later run whose first input has another dtype (a
    scope value that changed under the plan) calls the kernel as usual.
    """
    func, consts, dtype = direct
    d1, d2 = (tuple(dead) + (ABSENT, ABSENT))[:2]
    if len(ins) == 2 and not consts and dtype is None:
        a, b = ins

        def step(env, lods):
            v = func(env[a], env[b])
            if v.__class__ is not cls:
                v = bad_output(op_type, out_name, v, cls)
            env[out] = v
            env[d1] = env[d2] = None

        return step
    if len(ins) == 1 and len(consts) == 1:
        (a,), (c,) = ins, consts

        def step(env, lods):
            x = env[a]
            v = func(x, c) if dtype is None or x.dtype is dtype else fn(attrs, x)
            if v.__class__ is not cls:
                v = bad_output(op_type, out_name, v, cls)
            env[out] = v
            env[d1] = env[d2] = None

        return step
    return fast_step(fn, attrs, ins, out, cls, op_type, out_name, dead)


def shape_only(value):
    """A stand-in with value's shape and dtype and no data (a read-only zero-stride view).

    Later ops that read only the shape (no_need_buffer inputs) get it, so the data
    itself can go back to the allocator. Sparse values are kept whole.
    """
    if value.__class__ is not np.ndarray or not value.strides or not any(value.strides):
        return value
    dtype = value.dtype
    if dtype.hasobject:  # (an object array cannot be made over a bytes buffer)
        return np.broadcast_to(np.zeros((), dtype=dtype), value.shape)
    # The constructor over one element of immutable zero bytes: 10x cheaper than
    # np.broadcast_to.
    return np.ndarray(value.shape, dtype, buffer=bytes(dtype.itemsize),
                      strides=(0,) * value.ndim)


def freeing(step, dead: tuple[int, ...], hollow: tuple[int, ...] = ()):
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


def control_step(fn, attrs, in_layout, index, ins, outs):
    """A step for a control-flow kernel: it gets the frame as a scope and runs blocks."""

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


def _rows(value):
    shape = getattr(value, "shape", None)
    return None if shape is None else tuple(shape)[:1]


def general_step(fn, attrs, in_layout, out_layout, out_names, out_classes, lod_aware,
                 densify, to_sparse, shares, single_output, op_type):
    """A step for everything else: duplicable slots, LoD-aware kernels, fallbacks, LoD sharing."""

    def fetch(env, lods, i):
        v = env[i]
        if densify and v.__class__ in SPARSE_CLASSES:
            return v.to_dense()
        if lod_aware and v.__class__ is np.ndarray:
            return LoDTensor.unchecked(v, lods[i])
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
                    env[i], lods[i] = v, EMPTY
                if env[i].__class__ is not out_classes[k]:
                    env[i] = bad_output(op_type, out_names[k], env[i], out_classes[k])
                k += 1
        for src, dst in shares:
            # A LoD describes rows: a shape op's share holds while Out keeps X's rows,
            # which a cached plan's later shapes need not (squeeze of a one-row batch).
            if _rows(env[dst]) == _rows(env[src]):
                lods[dst] = lods[src]

    return step


def make_step(op_type: str, opdef, kernel, attrs, ins, outs, ctx, index, lods, fell_back,
              dead: tuple[int, ...]) -> Callable:
    """The step of one compiled op: the fast step where it applies, else the general one."""
    in_layout, in_first = [], []  # slots; each slot's first variable name (or None)
    for s in opdef.inputs:
        names = ins.get(s.name, [])
        if s.duplicable:
            in_layout.append([index[n] for n in names])
        else:
            in_layout.append(index[names[0]] if names else None)
        in_first.append(names[0] if names and not s.duplicable else None)
    if kernel.control:
        return control_step(kernel.fn, attrs, in_layout, index, ins, outs)
    kernel_fn = kernel.fn
    # A kernel that reads some attributes from optional tensors (ops/tensor_attrs.py) names
    # the kernel it wraps: with none of those slots bound, the step calls that one directly.
    unwrapped = getattr(kernel_fn, "without_tensor_inputs", None)
    if unwrapped is not None:
        inner, first, count = unwrapped
        if all(item is None or item == [] for item in in_layout[first:first + count]):
            kernel_fn = inner
            in_layout = in_layout[:first] + in_layout[first + count:]
            in_first = in_first[:first] + in_first[first + count:]
    out_layout, out_names, out_classes, to_sparse = [], [], [], []
    for s in opdef.outputs:
        names = outs.get(s.name, [])
        if not names:  # unbound (duplicable or not): the kernel's value is dropped below
            continue
        if s.duplicable:
            out_layout.append([index[n] for n in names])
        else:
            out_layout.append(index[names[0]])
        for n in names:
            vt = ctx.var_info(n).var_type if n in ctx.inferred else LOD_TENSOR
            out_names.append(n)
            out_classes.append(CLASS_OF_VAR_TYPE[vt])
            to_sparse.append(FROM_DENSE.get(vt) if fell_back else None)
    # Sharing an empty LoD into an output without one changes nothing; LoD depths are
    # fixed per plan (the feed signature and the bound kinds hold them), so such
    # shares are dropped here, and most ops keep the fast step.
    shares = [(index[src], index[dst]) for src, dst in ctx.lod_shares
              if lods[index[src]] or lods[index[dst]]]
    # Absent outputs of the spec are skipped by the kernel contract: kernels return
    # values for every declared output slot; unbound ones are dropped here.
    single_output = len(opdef.outputs) == 1
    bound = [bool(outs.get(s.name)) for s in opdef.outputs]
    if not all(bound):
        fn_inner = kernel_fn

        def fn(attrs_, *args):
            result = fn_inner(attrs_, *args)
            results = (result,) if single_output else result
            kept = tuple(r for r, b in zip(results, bound, strict=True) if b)
            return kept[0] if len(kept) == 1 else kept

        single = sum(bound) == 1
    else:
        fn, single = kernel_fn, single_output
    simple = (
        not kernel.lod and not fell_back and not shares and single and len(out_layout) == 1
        and all(isinstance(i, int) or i is None for i in in_layout)
        and isinstance(out_layout[0], int)
        and not lods[out_layout[0]]
    )
    if simple:
        ins_idx = [ABSENT if i is None else i for i in in_layout]
        specialize = getattr(fn, "specialize", None)
        direct = None if specialize is None else specialize(
            attrs, *[None if n is None else ctx.value(n) for n in in_first])
        if direct is not None:  # (direct_step takes any number of dead slots)
            return direct_step(fn, attrs, direct, ins_idx, out_layout[0], out_classes[0],
                               op_type, out_names[0], dead)
        return fast_step(fn, attrs, ins_idx, out_layout[0], out_classes[0], op_type,
                         out_names[0], dead)
    return freeing(general_step(fn, attrs, in_layout, out_layout, out_names, out_classes,
                                kernel.lod, fell_back, to_sparse, shares, single, op_type),
                   dead)


def last_reads(block: pb.BlockDesc, kept: set[str], keep_locals: bool,
               slots: list[tuple[dict, dict]] | None = None
               ) -> tuple[list[list[str]], list[list[str]]]:
    """Per op: the variables it reads for the last time, and those whose data it reads
    for the last time while later ops still read their shape (no_need_buffer slots).

    A step clears the first from the frame once its kernel has run, and replaces
    the second by a shape-only stand-in, so a temporary's memory goes back to the
    allocator (and the next kernel's output reuses it while it is still in cache)
    instead of living until the end of the run. `kept`: fetch targets and values
    that outlive the run; with `keep_locals` (a step scope keeps them for the
    backward pass) everything written is kept too. In a block with control-flow
    ops nothing is freed, since their sub-blocks read this frame by name.
    `slots`: each op's (inputs, outputs) as slot -> names maps, if the caller has them
    (reading them from the protobuf messages again costs more than the walk itself).
    """
    ops = block.ops
    if slots is None:
        slots = [({v.parameter: list(v.arguments) for v in op.inputs},
                  {v.parameter: list(v.arguments) for v in op.outputs}) for op in ops]
    nothing = ([[] for _ in ops], [[] for _ in ops])
    last: dict[str, int] = {}
    last_data: dict[str, int] = {}
    for k, op in enumerate(ops):
        opdef = op_registry.get_op_def(op.type)
        if (opdef is None or any(kernel.control for kernel in opdef.kernels.values())
                or any(a.type in (pb.BLOCK, pb.BLOCKS) for a in op.attrs)):
            return nothing
        shape_only_slots = {s.name for s in opdef.inputs if s.no_need_buffer}
        ins, outs = slots[k]
        for slot, names in ins.items():
            data_read = slot not in shape_only_slots
            for n in names:
                last[n] = k
                if data_read:
                    last_data[n] = k
        for names in outs.values():
            for written in names:
                last.pop(written, None)  # read before this write: that value dies with it
                last_data.pop(written, None)
    if keep_locals:
        kept = kept | {n for _, outs in slots for names in outs.values() for n in names}
    dead, hollow = nothing
    for n, k in last.items():
        if n not in kept:
            dead[k].append(n)
            data_k = last_data.get(n)
            if data_k is not None and data_k < k:
                hollow[data_k].append(n)
    return dead, hollow
