"""Kernel selection: the key an op's inputs ask for, the kernel that serves it, and the
densify fallback (with its one warning per op type) when no kernel does.

A key is the storage type of each of the op's key input slots plus a dtype
(ops/registry.py). An op registered with `fallback=True` that has no kernel
for a sparse key runs its dense kernel on densified inputs; the step converts
outputs declared sparse back (steps.py).
"""

from __future__ import annotations

import warnings

import numpy as np

from paddle_ir.core.dtypes import dtype_name, to_numpy_dtype
from paddle_ir.core.errors import KernelNotFoundError, OpLocation
from paddle_ir.core.kinds import SPARSE_CLASSES, storage_of
from paddle_ir.core.user_frame import user_stacklevel
from paddle_ir.executor.runtime_context import RuntimeContext
from paddle_ir.ops.registry import DENSE, KernelKey


class StorageFallbackWarning(UserWarning):
    """An op had no kernel for the storage types of its inputs and ran densified."""


def slot_storage(values) -> str:
    """The storage type a key slot selects kernels by.

    A one-variable slot has its value's. A duplicable slot has the storage its
    values share; a mixed list selects the dense kernel, which then receives
    the sparse members as they are (`sum` scatter-adds them into its result).
    """
    kinds = {storage_of(v) for v in values}
    return kinds.pop() if len(kinds) == 1 else DENSE


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


def warn_fallback(opdef, ctx: RuntimeContext, env, index, converted: list[str],
                  warned: set[str], location: OpLocation) -> None:
    """The one StorageFallbackWarning an op type gets when it first runs densified."""
    if opdef.type in warned:
        return
    warned.add(opdef.type)
    storages = {s.name: (ctx.input_names(s.name),
                         slot_storage([env[index[n]] for n in ctx.input_names(s.name)]))
                for s in opdef.inputs if ctx.input_names(s.name)}
    warnings.warn(fallback_message(opdef.type, storages, converted, location),
                  StorageFallbackWarning, stacklevel=user_stacklevel())


def fallback_message(op_type: str, storages: dict[str, tuple[list[str], str]],
                     converted: list[str], location: OpLocation) -> str:
    """The text of the fallback warning."""
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


def _kernel_dtype(opdef, attrs, ctx, env, index) -> np.dtype:
    source = opdef.dtype_from
    if source is None:
        return np.dtype(np.float32)
    if source.startswith("attr:"):
        return to_numpy_dtype(attrs[source[5:]])
    names = ctx.input_names(source)
    if not names:
        return np.dtype(np.float32)
    return _slot_dtype(opdef, ctx, [(n, env[index[n]]) for n in names])


def _slot_dtype(opdef, ctx: RuntimeContext, values: list[tuple[str, object]]) -> np.dtype:
    """The dtype of the slot that selects the kernel: one dtype for all its variables.

    Paddle refuses a duplicable dtype slot of mixed dtypes ("must be consistent") rather
    than pick one: the kernel for the first variable's dtype would compute the others in it
    (or promote past what inference declared)."""
    dtypes = {v.dtype for _, v in values}
    if len(dtypes) == 1:
        return dtypes.pop()
    held = ", ".join(f"{n} {dtype_name(v.dtype)}" for n, v in values)
    raise KernelNotFoundError(
        f"{opdef.type}: the variables of {opdef.dtype_from}, whose dtype selects the kernel, "
        f"must share one dtype; got {held}", op=ctx.location(),
        hint="cast them to one dtype first (the cast op, or .astype on the feeds)")
