"""BLAS / OpenMP thread pools (executor/threads.py) and `paddle-ir run --threads`."""

import subprocess
import sys

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import io, layers
from paddle_ir.executor.threads import ThreadSettingError, limit_threads
from tests.cli.test_cli import ok


def _in_child(code: str) -> str:
    """Thread limits are process-wide: each check runs in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


def test_limit_threads_sets_every_blas_pool():
    out = _in_child("from paddle_ir.executor.threads import limit_threads, thread_pools\n"
                    "limit_threads(1)\n"
                    "from threadpoolctl import threadpool_info\n"
                    "print(sorted({p['num_threads'] for p in threadpool_info()}))\n"
                    "print(sorted({p['threads'] for p in thread_pools()}))")
    assert out.splitlines() == ["[1]", "[1]"]


@pytest.mark.parametrize("bad", [0, -2, 1.5, "2", True, None])
def test_a_thread_count_that_is_not_a_positive_integer_is_refused(bad):
    with pytest.raises(ThreadSettingError, match="threads must be a positive integer"):
        limit_threads(bad)


def test_run_threads_option(tmp_path):
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [8], dtype="float32")
        out = layers.fc(x, 3)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    io.save_inference_model(str(tmp_path / "m"), ["x"], [out], exe, main_program=main,
                            scope=scope)
    np.save(tmp_path / "x.npy", np.ones((2, 8), np.float32))
    for flag in (["--threads", "1"], []):
        ok("run", tmp_path / "m", "--feed", f"x={tmp_path / 'x.npy'}", "--out",
           tmp_path / f"o{len(flag)}.npz", *flag)
    a, b = np.load(tmp_path / "o2.npz"), np.load(tmp_path / "o0.npz")
    np.testing.assert_array_equal(a[out.name], b[out.name])
    done = subprocess.run([sys.executable, "-m", "paddle_ir", "run", str(tmp_path / "m"),
                           "--threads", "0"], capture_output=True, text=True)
    assert done.returncode == 2 and "expected a positive integer, got 0" in done.stderr
