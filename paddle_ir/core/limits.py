"""The run-time memory budget: sizes that come from feeds or attributes are checked
before a kernel allocates them.

A kernel whose output size is read from data or an attribute (`fill_constant`'s
shape, `sequence_mask`'s maxlen, the random initializers' shapes) calls
`check_allocation` first (the executor also checks every output whose shape
InferShape knows before the op's kernel runs: executor/budget.py; densifying a
SelectedRows or CSR value is checked too), so `fill_constant([2**20, 2**20])`
or a mask fed a length of 10**10 fails with a ResourceLimitError naming the op instead of a
MemoryError (or the OOM killer). The budget bounds one allocation; by default
it is the machine's physical memory (no single tensor larger than that can
succeed), else 16 GiB. `Executor(memory_budget=N)` and `paddle-ir run
--memory-budget N` set it for their runs (a context variable: each run and
thread sees its own).

A kernel's working arrays are held to the same budget (`check_temporary`): an
im2col of a large input under a large filter, or a stack of gathered patches, can
be many times its op's input and output. The convolutions work in blocks of at
most `working_block_bytes()` instead (ops/nn/conv_math.py); kernels that still make
a whole temporary check it first, so it fails naming the op instead of the OOM
killer ending the process.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os

import numpy as np

from paddle_ir.core.errors import ResourceLimitError


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 16 * 2**30


DEFAULT_MEMORY_BUDGET = _physical_memory()
_BUDGET: contextvars.ContextVar[int] = contextvars.ContextVar("paddle_ir_memory_budget",
                                                              default=DEFAULT_MEMORY_BUDGET)


def memory_budget() -> int:
    return _BUDGET.get()


@contextlib.contextmanager
def budget(nbytes: int | None):
    """Run the body under a budget of `nbytes` per allocation (None: the default)."""
    token = _BUDGET.set(DEFAULT_MEMORY_BUDGET if nbytes is None else int(nbytes))
    try:
        yield
    finally:
        _BUDGET.reset(token)


# The largest block of a blocked kernel's working array (im2col rows): big enough that a
# block's GEMM runs at BLAS speed, small enough to stay far below a machine's memory.
WORKING_BLOCK_BYTES = 32 << 20


def working_block_bytes() -> int:
    """The size a blocked kernel's working block keeps under: WORKING_BLOCK_BYTES, or a
    quarter of the run's budget when that is smaller (the block lives beside the op's
    inputs and outputs)."""
    return min(WORKING_BLOCK_BYTES, _BUDGET.get() // 4)


def format_bytes(nbytes: int) -> str:
    """A byte count for a message: GiB from 1 GiB up (as the catalogue quotes it), else the
    largest unit that keeps it at least 1."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.1f} {unit}"
    return f"{nbytes} bytes"


def allocation_bytes(shape, dtype) -> int:
    """The bytes of a [shape] array of `dtype` (negative dims count as 0)."""
    return math.prod(max(int(d), 0) for d in shape) * np.dtype(dtype).itemsize


def check_allocation(op_type: str, shape, dtype, source: str, name: str | None = None,
                     op=None) -> None:
    """Raise ResourceLimitError if a [shape] array of `dtype` exceeds the budget.

    `source` says where the size came from (an attribute, an input's values);
    `name` is the output variable when the caller knows it; `op` an OpLocation.
    """
    dims = [int(d) for d in shape]
    nbytes = allocation_bytes(dims, dtype)
    limit = _BUDGET.get()
    if nbytes > limit:
        target = f" for {name!r}" if name else ""
        raise ResourceLimitError(
            f"{op_type} would allocate {format_bytes(nbytes)}{target} (shape {dims}, "
            f"{np.dtype(dtype).name}) from {source}, more than the memory budget of "
            f"{format_bytes(limit)}",
            op=op,
            hint="check the value; or raise the budget with Executor(memory_budget=...) / "
                 "paddle-ir run --memory-budget BYTES")


def check_temporary(what: str, shape, dtype) -> None:
    """Raise ResourceLimitError if a kernel's working array (not an output) of [shape]
    `dtype` exceeds the budget. `what` names it ("the im2col of conv3d's windows"); the
    executor adds which op of the program was running."""
    dims = [int(d) for d in shape]
    nbytes = allocation_bytes(dims, dtype)
    limit = _BUDGET.get()
    if nbytes > limit:
        raise ResourceLimitError(
            f"{what} would need {format_bytes(nbytes)} (shape {dims}, "
            f"{np.dtype(dtype).name}), more than the memory budget of {format_bytes(limit)}",
            hint="use smaller inputs (a smaller batch, image or kernel); or raise the budget "
                 "with Executor(memory_budget=...) / paddle-ir run --memory-budget BYTES")
