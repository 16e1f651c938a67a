"""executor.allocator: glibc keeps freed memory for the next run (no timing asserted)."""

import os
import platform
import subprocess
import sys

import pytest

CODE = ("import paddle_ir as pir; import paddle_ir.executor.allocator as a; pir.Executor(); "
        "print(a._applied)")


def _applied(env_value):
    env = dict(os.environ)
    env.pop("PADDLE_IR_KEEP_FREED_MEMORY", None)
    if env_value is not None:
        env["PADDLE_IR_KEEP_FREED_MEMORY"] = env_value
    out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True,
                         check=True)
    return out.stdout.strip()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt only")
def test_an_executor_sets_the_thresholds_once_per_process():
    assert _applied(None) == "True"


def test_the_environment_turns_it_off():
    assert _applied("0") == "False"
