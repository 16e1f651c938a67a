"""Running a saved model with `paddle-ir run` in a subprocess, as a user would."""

from __future__ import annotations

import subprocess
import sys

import numpy as np


def paddle_ir_run(model_dir, feeds: dict, tmp_path, lods: dict | None = None) -> str:
    """stdout of `paddle-ir run MODEL --feed NAME=FILE.npy [--lod NAME=JSON]`; asserts success."""
    args = [sys.executable, "-m", "paddle_ir", "run", str(model_dir)]
    for name, value in feeds.items():
        path = tmp_path / f"{name}.npy"
        np.save(path, np.asarray(value))
        args += ["--feed", f"{name}={path}"]
    for name, lengths in (lods or {}).items():
        args += ["--lod", f"{name}={lengths}"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def paddle_ir_check(model_dir) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paddle_ir", "check", str(model_dir)],
                          capture_output=True, text=True, timeout=300)


def falling(losses, fraction: float = 0.8) -> bool:
    """The mean of the last quarter is below `fraction` of the first quarter's."""
    q = max(len(losses) // 4, 1)
    return np.mean(losses[-q:]) < fraction * np.mean(losses[:q])
