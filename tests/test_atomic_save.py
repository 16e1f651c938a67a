"""A save killed with SIGKILL part-way leaves the previous model loadable, with its outputs.

tests/save_worker.py saves a 32 MiB model in a subprocess; the test kills it
while the parameters are being written, after they are staged but before the
program is, and at an unplanned moment, then loads the directory again.
"""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import save_worker

import paddle_ir as pir

WORKER = os.path.join(os.path.dirname(__file__), "save_worker.py")


def _outputs(dirname) -> np.ndarray:
    scope = pir.Scope()
    program, feeds, fetches = pir.load_inference_model(dirname, scope=scope)
    (out,) = pir.Executor().run(program, feed=save_worker.feed(), fetch_list=fetches,
                                scope=scope)
    return out


def _save(dirname, seed, mode="plain", wait_for=None):
    """Start a worker; with `wait_for`, SIGKILL it once it printed that line."""
    child = subprocess.Popen([sys.executable, WORKER, str(dirname), str(seed), mode],
                             stdout=subprocess.PIPE, text=True)
    if wait_for is None:
        assert child.wait(timeout=300) == 0
        return
    try:
        for line in child.stdout:
            if line.startswith(wait_for):
                break
        else:
            pytest.fail(f"the worker ended without printing {wait_for!r}")
        temporaries = [n for n in os.listdir(dirname) if n.startswith(".tmp-")]
        assert temporaries, "the save had not started writing"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL


@pytest.fixture(scope="module")
def previous(tmp_path_factory):
    dirname = tmp_path_factory.mktemp("model")
    _save(dirname, seed=1)
    return dirname, _outputs(dirname), {n: (dirname / n).read_bytes()
                                        for n in ("model.pb", "params")}


@pytest.mark.parametrize("mode, marker", [
    ("pause-record:5", "paused after record 5"),  # inside the params file
    ("pause-sync:2", "paused after fsync 2"),      # params and model.pb staged, not renamed
])
def test_a_save_killed_mid_write_leaves_the_previous_model(previous, mode, marker):
    dirname, before, files = previous
    _save(dirname, seed=2, mode=mode, wait_for=marker)
    for name, data in files.items():
        assert (dirname / name).read_bytes() == data, f"{name} changed"
    np.testing.assert_array_equal(_outputs(dirname), before)


def test_a_save_killed_at_any_moment_leaves_one_whole_model(tmp_path):
    _save(tmp_path, seed=1)
    old = _outputs(tmp_path)
    _save(tmp_path / "new", seed=2)
    new = _outputs(tmp_path / "new")
    for delay in (0.0, 0.05, 0.2):
        child = subprocess.Popen([sys.executable, WORKER, str(tmp_path), "2", "plain"],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline() == "saving\n"
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
        got = _outputs(tmp_path)
        assert np.array_equal(got, old) or np.array_equal(got, new)
        old = got  # a save that completed before the kill is the model to keep from now on
