"""Per-op timings of the runs an executor profiles, for Fluid's fluid.profiler.

`paddle-ir run --profile` and `exe.profile = {}` time op types into a plain dict
({op_type: [calls, seconds]}). Fluid's profiler wants more: the shortest and
longest call of each op type, and a timeline of every op run (a Chrome trace).
An `OpTimes` collects both; while one is *active* (`start`), every Executor
that has no profile of its own records into it, as Fluid's profiler is global.

Like `--profile`, it times the cached plan's runs: the first run of a block
(which compiles the plan) and the runs that verify new input shapes execute op
by op with full inference and are not timed.
"""

from __future__ import annotations

import os
import threading
import time

# A timeline of more op runs than this is cut (its stats go on): 10^6 events are
# ~100 MB of Python tuples, and a trace that size no viewer opens.
MAX_EVENTS = 1_000_000


class OpTimes:
    """Calls, total, shortest and longest time per op type; with `trace`, each run."""

    def __init__(self, trace: bool = True):
        self.stats: dict[str, list] = {}  # op_type -> [calls, total s, min s, max s]
        self.events: list[tuple] | None = [] if trace else None
        self.dropped_events = 0
        self.origin = time.perf_counter()  # the trace's time 0

    def record(self, op_type: str, start: float, seconds: float) -> None:
        entry = self.stats.get(op_type)
        if entry is None:
            self.stats[op_type] = [1, seconds, seconds, seconds]
        else:
            entry[0] += 1
            entry[1] += seconds
            if seconds < entry[2]:
                entry[2] = seconds
            if seconds > entry[3]:
                entry[3] = seconds
        if self.events is not None:
            if len(self.events) < MAX_EVENTS:
                self.events.append((op_type, start, seconds, threading.get_ident()))
            else:
                self.dropped_events += 1

    def reset(self) -> None:
        self.stats.clear()
        if self.events is not None:
            self.events.clear()
        self.dropped_events = 0
        self.origin = time.perf_counter()

    def chrome_trace(self) -> dict:
        """The Trace Event Format (chrome://tracing, Perfetto): one complete event per run."""
        pid = os.getpid()
        threads = {}
        events = []
        for op_type, start, seconds, thread in self.events or ():
            tid = threads.setdefault(thread, len(threads))
            events.append({"name": op_type, "cat": "op", "ph": "X", "pid": pid, "tid": tid,
                           "ts": round((start - self.origin) * 1e6, 3),
                           "dur": round(seconds * 1e6, 3)})
        meta = [{"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                 "args": {"name": f"executor thread {tid}"}} for tid in threads.values()]
        return {"traceEvents": meta + events, "displayTimeUnit": "ms",
                "otherData": {"producer": "paddle-ir", "dropped_events": self.dropped_events}}


_active: OpTimes | None = None


def start(times: OpTimes) -> None:
    """Make `times` record every profiled run of any Executor without its own profile."""
    global _active
    _active = times


def stop() -> OpTimes | None:
    global _active
    times, _active = _active, None
    return times


def active() -> OpTimes | None:
    return _active
