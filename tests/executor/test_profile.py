"""executor/profile.py: the per-op timings fluid.profiler reports, against hand-made runs."""

import threading

import pytest

from paddle_ir.executor import profile as op_profile


def test_stats_keep_calls_total_shortest_and_longest_per_op_type():
    times = op_profile.OpTimes(trace=False)
    for op_type, seconds in [("mul", 0.5), ("relu", 0.1), ("mul", 0.2), ("mul", 0.9)]:
        times.record(op_type, 0.0, seconds)
    assert times.stats["mul"] == [3, pytest.approx(1.6), 0.2, 0.9]
    assert times.stats["relu"] == [1, 0.1, 0.1, 0.1]
    assert list(times.stats) == ["mul", "relu"]  # first-run order
    assert times.events is None and times.chrome_trace()["traceEvents"] == []


def test_the_timeline_is_trace_event_format_with_a_track_per_thread():
    times = op_profile.OpTimes(trace=True)
    origin = times.origin
    times.record("mul", origin + 0.001, 0.002)
    worker = threading.Thread(target=times.record, args=("relu", origin + 0.004, 0.0005))
    worker.start()
    worker.join()
    trace = times.chrome_trace()
    runs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert [(e["name"], e["ts"], e["dur"]) for e in runs] == [("mul", 1000.0, 2000.0),
                                                             ("relu", 4000.0, 500.0)]
    assert runs[0]["tid"] != runs[1]["tid"]
    names = {e["tid"] for e in trace["traceEvents"] if e["ph"] == "M"}
    assert names == {runs[0]["tid"], runs[1]["tid"]}


def test_a_timeline_too_long_is_cut_and_says_so(monkeypatch):
    monkeypatch.setattr(op_profile, "MAX_EVENTS", 3)
    times = op_profile.OpTimes(trace=True)
    for _ in range(5):
        times.record("scale", times.origin, 1e-6)
    assert len(times.events) == 3 and times.dropped_events == 2
    assert times.stats["scale"][0] == 5  # the stats go on
    assert times.chrome_trace()["otherData"]["dropped_events"] == 2
    times.reset()
    assert times.stats == {} and times.events == [] and times.dropped_events == 0


def test_start_and_stop_set_the_profile_executors_without_their_own_use():
    assert op_profile.active() is None
    times = op_profile.OpTimes()
    op_profile.start(times)
    try:
        assert op_profile.active() is times
    finally:
        assert op_profile.stop() is times
    assert op_profile.active() is None
