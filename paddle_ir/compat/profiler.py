"""Fluid's `fluid.profiler`: where a program's time goes, op type by op type.

    import paddle_ir.fluid.profiler as profiler
    with profiler.profiler("All", sorted_key="total", profile_path="/tmp/profile"):
        for batch in reader():
            exe.run(main, feed=batch, fetch_list=[loss])

While the profiler runs, every Executor (that has no `exe.profile` of its own)
times each op it runs (executor/profile.py). Stopping it prints Fluid's report
(calls, total, min, max and average ms per op type, and each one's share) and,
for the states "All" and "GPU" as in Fluid, writes a timeline to
`profile_path`: a Chrome trace (Trace Event Format JSON, one event per op run)
that chrome://tracing and https://ui.perfetto.dev open, where Fluid wrote its
own protobuf for its timeline tool.

As `paddle-ir run --profile`, it times the runs of cached plans: the first run
of a block compiles its plan op by op and is not timed. paddle-ir runs on the
CPU only: "GPU" and "All" profile the CPU, and `cuda_profiler` does nothing but
say so.
"""

from __future__ import annotations

import contextlib
import json
import sys
import warnings

from paddle_ir.core.atomic import atomic_write
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.executor import profile as op_profile

__all__ = ["cuda_profiler", "profiler", "reset_profiler", "start_profiler", "stop_profiler"]

STATES = ("CPU", "GPU", "All")
TRACER_OPTIONS = ("Default", "OpDetail", "AllOpDetail")
# sorted_key -> (the report's words, the stat to sort by); None keeps first-run order
SORT_KEYS = {
    None: ("in the order of first run", None),
    "calls": ("by number of calls in descending order", lambda s: s[0]),
    "total": ("by total time in descending order", lambda s: s[1]),
    "max": ("by max time in descending order", lambda s: s[3]),
    "min": ("by min time in descending order", lambda s: s[2]),
    "ave": ("by average time in descending order", lambda s: s[1] / s[0]),
}

_state: str | None = None  # the running profiler's state


def start_profiler(state: str, tracer_option: str = "Default") -> None:
    """Start timing every op run; a second start while one runs is ignored (as in Fluid)."""
    global _state
    if state not in STATES:
        raise PaddleIRError(f"start_profiler: state must be one of {list(STATES)}, "
                            f"got {state!r}")
    if tracer_option not in TRACER_OPTIONS:
        raise PaddleIRError(f"start_profiler: tracer_option must be one of "
                            f"{list(TRACER_OPTIONS)}, got {tracer_option!r}")
    if _state is not None:
        return
    if state != "CPU":
        warnings.warn(f"fluid.profiler state {state!r}: paddle-ir runs on the CPU, so the "
                      "CPU is what is profiled", stacklevel=2)
    _state = state
    op_profile.start(op_profile.OpTimes(trace=state in ("GPU", "All")))


def stop_profiler(sorted_key: str | None = None, profile_path: str = "/tmp/profile") -> None:
    """Stop timing; print the report; for "All"/"GPU", write the timeline to profile_path."""
    global _state
    if sorted_key not in SORT_KEYS:
        raise PaddleIRError(f"stop_profiler: sorted_key must be one of "
                            f"{list(SORT_KEYS)}, got {sorted_key!r}")
    if _state is None:
        return
    _state = None
    times = op_profile.stop()
    print(report(times, sorted_key))
    if times.events is not None:
        trace = json.dumps(times.chrome_trace()).encode()
        atomic_write(profile_path, lambda out: out.write(trace))
        print(f"\ntimeline written to {profile_path} (Chrome trace: open it in "
              "chrome://tracing or https://ui.perfetto.dev)")
    sys.stdout.flush()


def reset_profiler() -> None:
    """Forget what was timed so far (e.g. the first iterations); profiling goes on."""
    times = op_profile.active()
    if times is not None:
        times.reset()


@contextlib.contextmanager
def profiler(state: str, sorted_key: str | None = None, profile_path: str = "/tmp/profile",
             tracer_option: str = "Default"):
    """Profile the block's runs: start_profiler on entry, stop_profiler on exit."""
    if sorted_key not in SORT_KEYS:  # refused before the block runs, as Fluid's enum lookup
        raise PaddleIRError(f"profiler: sorted_key must be one of {list(SORT_KEYS)}, "
                            f"got {sorted_key!r}")
    start_profiler(state, tracer_option)
    try:
        yield
    finally:
        stop_profiler(sorted_key, profile_path)


@contextlib.contextmanager
def cuda_profiler(output_file: str, output_mode: str | None = None, config=None):
    """Fluid's nvprof hook: there is no GPU here, so the block runs unprofiled."""
    warnings.warn("fluid.profiler.cuda_profiler: paddle-ir runs on the CPU and has no CUDA "
                  "profiler; use fluid.profiler.profiler('CPU') instead", stacklevel=3)
    yield


def report(times: op_profile.OpTimes, sorted_key: str | None = None,
           place: str = "CPU") -> str:
    """Fluid's profiling report: one row per op type, times in ms."""
    words, key = SORT_KEYS[sorted_key]
    rows = list(times.stats.items())  # dicts keep first-run order
    if key is not None:
        rows.sort(key=lambda row: key(row[1]), reverse=True)
    total = sum(stats[1] for _, stats in rows) or 1e-12
    width = max([len("Event"), *(len(name) for name, _ in rows)]) + 2
    lines = ["------------------------->     Profiling Report     <-------------------------",
             "", f"Place: {place}", "Time unit: ms", f"Sorted {words}", "",
             f"{'Event':<{width}}{'Calls':<10}{'Total':<12}{'Min.':<12}{'Max.':<12}"
             f"{'Ave.':<12}Ratio."]
    for name, (calls, seconds, shortest, longest) in rows:
        lines.append(f"{name:<{width}}{calls:<10}{seconds * 1e3:<12.6g}{shortest * 1e3:<12.6g}"
                     f"{longest * 1e3:<12.6g}{seconds / calls * 1e3:<12.6g}"
                     f"{seconds / total:.6g}")
    if not rows:
        lines.append("(no op ran from a cached plan while the profiler ran: the first run of "
                     "a program compiles its plan and is not timed)")
    return "\n".join(lines)
