"""A long chain of ops goes through every tool: built, saved, loaded, checked, dumped (text
and dot) and run, each step ending well or with one paddle-ir error line, never a
MemoryError or RecursionError traceback (issue 16, item 5's last clause).

`make test` runs a 5,000-op chain; `make stress` (PADDLE_IR_STRESS=1) the 10^6-op chain,
reporting each step's time and peak memory (bench/README.md, "Inspection tools on long
chains", has the numbers).
"""

import os
import resource
import subprocess
import sys
import time

import numpy as np

from bench.long_chain import save_chain

LENGTH = 1_000_000 if os.environ.get("PADDLE_IR_STRESS") else 5_000


def _reference(length: int) -> np.ndarray:
    """The chain in numpy: op k scales by 1.0001 (k even) or adds y = 0.25 (k odd)."""
    h = np.linspace(0.5, 2.0, 8, dtype=np.float32).reshape(2, 4)
    scale, y = np.float32(1.0001), np.float32(0.25)
    for k in range(length):
        h = h * scale if k % 2 == 0 else h + y
    return h


def _tool(*args) -> tuple[subprocess.CompletedProcess, float, float]:
    """(the finished command, seconds, peak MiB of the children so far)."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "paddle_ir", *map(str, args)],
                          capture_output=True, text=True, timeout=3600)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return done, time.monotonic() - start, peak


def _ended_cleanly(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert "MemoryError" not in done.stderr and "RecursionError" not in done.stderr
    if done.returncode != 0:  # too big for this machine: one line naming the cause
        assert done.stderr.startswith("paddle-ir: error: [ResourceLimitError]"), done.stderr


def test_a_long_chain_goes_through_every_tool(tmp_path, capsys):
    model = tmp_path / "chain"
    last = save_chain(LENGTH, str(model))
    steps = {"check": ["check", model], "dump": ["dump", model, "-o", tmp_path / "p.txt"],
             "dump dot": ["dump", model, "--format", "dot", "-o", tmp_path / "p.dot"],
             "run": ["run", model, "--feeds", model / "feeds.npz", "--out", tmp_path / "o.npz"]}
    report = []
    for name, args in steps.items():
        done, seconds, peak = _tool(*args)
        report.append(f"{name}: {seconds:.1f} s, children's peak so far {peak:.0f} MiB")
        _ended_cleanly(done)
        if done.returncode:
            continue
        if name == "check":
            assert f"OK (1 block(s), {LENGTH} op(s)" in done.stdout
        elif name == "dump":
            text = (tmp_path / "p.txt").read_text()
            assert text.count(" = scale(") == (LENGTH + 1) // 2
            assert text.count(" = elementwise_add(") == LENGTH // 2
        elif name == "dump dot":
            assert (tmp_path / "p.dot").read_text().startswith("digraph")
        else:
            with np.load(tmp_path / "o.npz") as out:
                np.testing.assert_allclose(out[last], _reference(LENGTH), rtol=1e-5)
    with capsys.disabled():
        if os.environ.get("PADDLE_IR_STRESS"):
            print(f"\n{LENGTH}-op chain: " + "; ".join(report))
