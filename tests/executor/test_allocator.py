"""executor.allocator: glibc keeps freed memory for the next run (no timing asserted)."""

import ctypes
import os
import platform
import subprocess
import sys

import pytest

from paddle_ir.executor import allocator

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


# ----------------------------------------------------------------------------------------------
# The thresholds executor/allocator.py hands glibc, seen through a stand-in libc.
#
# Mutation testing (docs/testing.md) found the subprocess tests above
# blind to the values: any mallopt call that succeeds reads as applied.


class FakeMallopt:
    """Records its calls; takes argtypes/restype like a ctypes function."""

    def __init__(self, result=1):
        self.calls = []
        self.result = result

    def __call__(self, param, value):
        self.calls.append((param, value))
        return self.result


class FakeLibc:
    def __init__(self):
        self.mallopt = FakeMallopt()


@pytest.fixture
def fake_libc(monkeypatch):
    libc = FakeLibc()
    monkeypatch.setattr(allocator, "_applied", None)
    monkeypatch.delenv("PADDLE_IR_KEEP_FREED_MEMORY", raising=False)
    monkeypatch.setattr(os, "confstr", lambda name: "glibc 2.36")
    monkeypatch.setattr(ctypes, "CDLL", lambda name: libc)
    return libc


def test_glibc_gets_a_32_mib_mmap_threshold_and_a_128_mib_trim_threshold(fake_libc):
    assert allocator.keep_freed_memory() is True
    # M_MMAP_THRESHOLD is -3 and M_TRIM_THRESHOLD -1 in glibc's malloc.h
    assert fake_libc.mallopt.calls == [(-3, 32 * 1024 * 1024), (-1, 128 * 1024 * 1024)]
    assert allocator.keep_freed_memory() is True  # once per process
    assert len(fake_libc.mallopt.calls) == 2


def test_a_refused_threshold_reads_as_not_applied(fake_libc):
    fake_libc.mallopt.result = 0
    assert allocator.keep_freed_memory() is False
    assert fake_libc.mallopt.calls == [(-3, 32 * 1024 * 1024)]  # the second is not tried


def _confstr_raising(error):
    def confstr(name):
        raise error
    return confstr


@pytest.mark.parametrize("confstr", [lambda name: None, lambda name: "musl 1.2",
                                     _confstr_raising(ValueError("unknown name")),
                                     _confstr_raising(AttributeError("no confstr"))],
                         ids=["none", "musl", "macos", "windows"])
def test_only_glibc_is_touched(fake_libc, monkeypatch, confstr):
    monkeypatch.setattr(os, "confstr", confstr)
    assert allocator.keep_freed_memory() is False
    assert fake_libc.mallopt.calls == []


@pytest.mark.parametrize("error", [OSError("no libc"), AttributeError("no mallopt")])
def test_a_libc_that_cannot_be_loaded_reads_as_not_applied(fake_libc, monkeypatch, error):
    def refuse(name):
        raise error

    monkeypatch.setattr(ctypes, "CDLL", refuse)
    assert allocator.keep_freed_memory() is False


@pytest.mark.parametrize("value, applied", [("0", False), ("", True), ("1", True)])
def test_only_the_value_0_turns_it_off(fake_libc, monkeypatch, value, applied):
    monkeypatch.setenv("PADDLE_IR_KEEP_FREED_MEMORY", value)
    assert allocator.keep_freed_memory() is applied
