"""fluid.profiler as Fluid 1.7 programs use it (the seq2seq models import it at the top):
the report's numbers against what ran, the timeline's events against the report, and the
states, sort keys and no-GPU paths."""

import json

import numpy as np
import pytest

import paddle_ir.fluid as fluid
import paddle_ir.fluid.profiler as profiler
from paddle_ir.core.errors import PaddleIRError

STEPS = 5


def _program():
    main, startup = fluid.Program(), fluid.Program()
    startup.random_seed = 3
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [4], dtype="float32")
        hidden = fluid.layers.fc(x, 8, act="relu")
        loss = fluid.layers.mean(fluid.layers.fc(hidden, 1))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.core.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": np.ones((3, 4), np.float32)}
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)  # compiles the plan: not timed
    return main, exe, scope, feed, loss


def _rows(report: str) -> dict[str, list[float]]:
    lines = report.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Event")) + 1
    rows = {}
    for line in lines[start:]:
        if not line:  # the report ends; what follows says where the timeline went
            break
        name, calls, *times = line.split()
        rows[name] = [int(calls), *map(float, times)]
    return rows


def test_the_report_counts_every_op_run_and_its_times_add_up(tmp_path, capsys):
    main, exe, scope, feed, loss = _program()
    ops = [op.type for op in main.global_block().ops]
    with profiler.profiler("CPU", "total", str(tmp_path / "profile")):
        for _ in range(STEPS):
            exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    rows = _rows(capsys.readouterr().out)
    assert {name: row[0] for name, row in rows.items()} == {
        t: ops.count(t) * STEPS for t in set(ops)}
    totals = [row[1] for row in rows.values()]
    assert totals == sorted(totals, reverse=True)  # sorted_key="total"
    for _, total, shortest, longest, average, ratio in rows.values():
        assert 0 <= shortest <= average <= longest <= total
        assert 0 <= ratio <= 1
    assert sum(row[5] for row in rows.values()) == pytest.approx(1, abs=1e-4)
    assert not (tmp_path / "profile").exists()  # "CPU", as in Fluid: no timeline


@pytest.mark.parametrize("key, column", [("calls", 0), ("max", 3), ("min", 2), ("ave", 4)])
def test_each_sort_key_orders_the_rows(key, column, capsys):
    main, exe, scope, feed, loss = _program()
    profiler.start_profiler("CPU")
    for _ in range(STEPS):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    profiler.stop_profiler(key)
    values = [row[column] for row in _rows(capsys.readouterr().out).values()]
    assert values == sorted(values, reverse=True)


def test_state_all_writes_a_chrome_trace_with_one_event_per_op_run(tmp_path, capsys):
    main, exe, scope, feed, loss = _program()
    path = tmp_path / "timeline.json"
    with pytest.warns(UserWarning, match="CPU is what is profiled"):
        profiler.start_profiler("All")
    for _ in range(STEPS):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    profiler.stop_profiler(None, str(path))
    rows = _rows(capsys.readouterr().out)
    trace = json.loads(path.read_text())
    runs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(runs) == sum(row[0] for row in rows.values())
    assert list(rows) == list(dict.fromkeys(e["name"] for e in runs))  # None: first-run order
    for name, row in rows.items():
        durations = [e["dur"] / 1e3 for e in runs if e["name"] == name]
        assert sum(durations) == pytest.approx(row[1], rel=1e-3, abs=1e-5)
    starts = [e["ts"] for e in runs]
    assert starts == sorted(starts) and all(e["dur"] >= 0 for e in runs)
    ends = [e["ts"] + e["dur"] for e in runs]
    # one thread: each op ends before the next begins
    assert all(end <= nxt + 1e-3 for end, nxt in zip(ends[:-1], starts[1:], strict=True))


def test_reset_forgets_the_warm_up_and_nothing_is_timed_after_stop(capsys):
    main, exe, scope, feed, loss = _program()
    profiler.start_profiler("CPU")
    for _ in range(3):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    profiler.reset_profiler()
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    profiler.stop_profiler("calls")
    assert {row[0] for row in _rows(capsys.readouterr().out).values()} <= {1, 2}
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)  # not profiled: nothing printed
    profiler.stop_profiler()
    assert capsys.readouterr().out == ""


def test_an_executor_own_profile_is_kept_apart(capsys):
    main, exe, scope, feed, loss = _program()
    exe.profile = {}  # `paddle-ir run --profile`'s table
    with profiler.profiler("CPU"):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    assert sum(calls for calls, _ in exe.profile.values()) == len(main.global_block().ops)
    assert "Event" in capsys.readouterr().out


def test_bad_arguments_name_what_fluid_accepts():
    with pytest.raises(PaddleIRError, match=r"state must be one of \['CPU', 'GPU', 'All'\]"):
        profiler.start_profiler("TPU")
    with pytest.raises(PaddleIRError, match="sorted_key must be one of"):
        with profiler.profiler("CPU", sorted_key="median"):
            pass
    with pytest.raises(PaddleIRError, match="tracer_option must be one of"):
        profiler.start_profiler("CPU", tracer_option="Everything")


def test_cuda_profiler_says_there_is_no_gpu_and_runs_the_block():
    ran = []
    with pytest.warns(UserWarning, match="no CUDA profiler"):
        with profiler.cuda_profiler("/tmp/nvprof.txt", "csv"):
            ran.append(1)
    assert ran == [1]


def test_the_profiler_is_fluid_profiler_by_attribute_and_by_module_path():
    assert fluid.profiler is profiler
    from paddle_ir.fluid.profiler import profiler as context

    assert context is profiler.profiler
