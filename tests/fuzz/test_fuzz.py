"""A CI-sized run of the fuzzer (`make fuzz` runs the same targets for ten minutes).

The run uses a fixed seed and a fixed number of inputs, so that `make test` is
repeatable and never depends on the machine's speed; `make fuzz` runs for a time
and draws a new seed each time. The process runs under the runner's own
address-space and per-input time limits, so it is a subprocess.
"""

import io as stdio
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, find, settings

from paddle_ir.core.errors import PaddleIRError
from tests.fuzz.__main__ import WEIGHTS
from tests.fuzz.targets import TARGETS, feed_inputs, lod_texts, npz_archive

INPUTS = 600  # shared by weight: program 200, params and feeds 100 each, the others 50


def test_a_short_fuzz_run_finds_nothing(tmp_path):
    """A fixed number of seeded inputs (not a time): the same inputs on any machine, under
    any load; the runner's per-input timeout still catches a hang."""
    result = subprocess.run(
        [sys.executable, "-m", "tests.fuzz", "--inputs", str(INPUTS), "--seed", "20261122",
         "--crash-dir", str(tmp_path / "crashes")],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    tried = int(re.search(r"tried (\d+) inputs in total; 0 target\(s\) found a bug",
                          result.stdout).group(1))
    total_weight = sum(WEIGHTS.get(name, 1) for name in TARGETS)
    expected = {name: max(1, round(INPUTS * WEIGHTS.get(name, 1) / total_weight))
                for name in TARGETS}
    assert tried == sum(expected.values()), result.stdout
    for name, count in expected.items():
        assert re.search(rf"  {name} +{count} inputs in .* no bugs", result.stdout), \
            result.stdout


def _npz_entries(data: bytes) -> dict:
    with np.load(stdio.BytesIO(data), allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


def _has_text_lod_entry(data: bytes) -> bool:
    entries = _npz_entries(data)
    return any(name.endswith(".lod") and value.dtype.kind == "U" and value.size
               for name, value in entries.items())


def test_the_fuzzer_generates_lod_strings_and_npz_lod_entries():
    """The inputs the issue names are among what the strategies draw: `--lod` texts nested
    thousands deep or out of range, and .npz archives with `NAME.lod` text entries (which
    the feeds target loads through the same parser)."""
    settings_ = settings(database=None, max_examples=2000, suppress_health_check=list(HealthCheck))
    deep = find(lod_texts(), lambda t: t.count("[") > 1000, settings=settings_)
    assert deep.startswith("[" * 1000)
    huge = find(lod_texts(), lambda t: any(len(w) > 18 for w in re.findall(r"\d+", t)),
                settings=settings_)
    assert re.search(r"\d{19}", huge)
    archive = find(npz_archive(), _has_text_lod_entry, settings=settings_)
    assert any(name.endswith(".lod") for name in _npz_entries(archive))
    feeds = find(feed_inputs(), lambda item: item[0] == "npz" and _safe(_has_text_lod_entry,
                                                                        item[1]),
                 settings=settings_)
    assert feeds[0] == "npz"


def _safe(predicate, data) -> bool:
    try:
        return predicate(data)
    except Exception:  # a mutated archive that numpy cannot open: not what we look for
        return False


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
