"""Keep freed memory for the next run, as the caching allocators of torch and Paddle do.

Every run of a plan allocates the same temporaries again: B1's sparse
embedding step makes about 3 MB of [4096, 64] arrays and frees them when the
run ends. glibc's malloc adapts its thresholds to that pattern badly: after
the first large free it serves such arrays from the heap, but it gives the
top of the heap back to the OS whenever more than twice the largest freed
block is free there, so the next run faults every page in again, zero-filled
by the kernel: 530 page faults per B1 step, 0.6 ms, more than its kernels.

`keep_freed_memory()` fixes glibc's two thresholds once per process: arrays
under 32 MB come from the heap (what glibc's own adaptation converges to),
and up to 128 MB of freed memory stays mapped for reuse. Larger arrays are
still mapped and unmapped one by one. Elsewhere than glibc it does nothing;
`PADDLE_IR_KEEP_FREED_MEMORY=0` in the environment turns it off.
"""

from __future__ import annotations

import os

# mallopt parameters (glibc's malloc.h) and the values paddle-ir sets.
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 2**20  # glibc's maximum on 64-bit
TRIM_THRESHOLD = 128 * 2**20

_applied: bool | None = None


def keep_freed_memory() -> bool:
    """Set glibc's malloc thresholds once per process; True if they are in effect."""
    global _applied
    if _applied is not None:
        return _applied
    _applied = False
    if os.environ.get("PADDLE_IR_KEEP_FREED_MEMORY", "1") == "0":
        return False
    # os.confstr names the C library without platform.libc_ver() (which reads the whole
    # interpreter binary) or ctypes.util.find_library (which runs ldconfig): start-up.
    try:
        libc_name = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        libc_name = ""
    if not libc_name.startswith("glibc"):
        return False
    import ctypes  # only here: ctypes costs start-up time and only glibc needs it

    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # Both, or glibc stops adapting the mmap threshold and maps every array over 128 kB.
    _applied = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                    and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _applied
