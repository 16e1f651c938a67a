"""Unique names in PaddlePaddle's style: fc_0, fc_0.w_0, fc_0.tmp_0.

The counters are process-wide, as in Paddle, so that names never collide
between programs built in one process; `guard()` starts a fresh namespace
(tests use it to get reproducible names).
"""

from __future__ import annotations

import contextlib
from collections import defaultdict


class NameGenerator:
    def __init__(self):
        self._counters: defaultdict[str, int] = defaultdict(int)

    def __call__(self, key: str) -> str:
        index = self._counters[key]
        self._counters[key] += 1
        return f"{key}_{index}"


_generator = NameGenerator()


def generate(key: str) -> str:
    return _generator(key)


@contextlib.contextmanager
def guard():
    """Use a fresh set of counters inside the block, and restore the old ones after."""
    global _generator
    saved, _generator = _generator, NameGenerator()
    try:
        yield
    finally:
        _generator = saved
