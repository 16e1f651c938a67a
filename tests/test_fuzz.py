"""A CI-sized run of the fuzzer (`make fuzz` runs the same targets for ten minutes).

The run uses a fixed seed so that `make test` is repeatable; `make fuzz`
draws a new seed each time. The process runs under the runner's own
address-space and per-input time limits, so it is a subprocess.
"""

import re
import subprocess
import sys

import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.fuzz.targets import TARGETS


def test_a_short_fuzz_run_finds_nothing(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "tests.fuzz", "--seconds", "6", "--seed", "20261122",
         "--crash-dir", str(tmp_path / "crashes")],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    tried = int(re.search(r"tried (\d+) inputs in total; 0 target\(s\) found a bug",
                          result.stdout).group(1))
    assert tried > 500, result.stdout
    for name in TARGETS:
        assert re.search(rf"  {name} +\d+ inputs in .* no bugs", result.stdout), result.stdout


@pytest.mark.parametrize("name, item", [
    ("program", b"\x0a\x02\x08\x01"),
    ("lod_tensor", b"\0" * 3),
    ("params", (b"", None, b"\0")),
    ("feeds", ("npy", b"\x93NUMPY\x01\x00")),
    ("lod", "[" * 5000),
    ("lod", "[[18446744073709551617]]"),
    ("lod", "[[4611686018427387903, 4611686018427387903]]"),
])
def test_targets_raise_only_project_errors(name, item):
    try:
        TARGETS[name].run(item)
    except PaddleIRError:
        pass
