"""Run a kernel's independent slices on the machine's cores.

numpy's elementwise ufuncs and copies release the GIL but use one core; BLAS
already uses them all. The memory-bound passes of the vision kernels (im2col
copies, depthwise taps, batch-norm's scale-and-shift) split the batch axis
into one contiguous range per core and run the ranges in threads. Small jobs
run inline: a thread costs tens of microseconds.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

_MIN_BYTES = 1 << 21  # below ~2 MB of work per call, threads cost more than they save


def workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def over_batch(n: int, nbytes: int, fn: Callable[[int, int], None]) -> None:
    """Call fn(lo, hi) for ranges covering [0, n), in parallel when the job is large."""
    k = min(workers(), n)
    if k <= 1 or nbytes < _MIN_BYTES:
        fn(0, n)
        return
    bounds = [n * i // k for i in range(k + 1)]
    with ThreadPoolExecutor(max_workers=k - 1) as pool:
        futures = [pool.submit(fn, bounds[i], bounds[i + 1]) for i in range(1, k)]
        fn(bounds[0], bounds[1])
        for f in futures:
            f.result()
