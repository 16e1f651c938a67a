"""tools/mutation/records.py: the seed a session keeps, the note a mutant in a file leaves,
and how a mutant caught at import time is told apart (issue 30's harness gaps)."""

import json

import pytest

from tools.mutation import records


@pytest.fixture
def out(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "ROOT", tmp_path)
    monkeypatch.setattr(records, "MUTANT_WRITTEN", tmp_path / "mutant-written.json")
    monkeypatch.setattr(records, "SEEDS", tmp_path / "seeds.json")
    return tmp_path


def test_a_run_refuses_to_start_over_a_file_a_killed_run_left_mutated(out):
    module = out / "kinds.py"
    module.write_text("A = 1\n")
    records.MUTANT_WRITTEN.write_text(json.dumps({"module": "kinds.py",
                                                  "sha256": records.digest(module)}))
    module.write_text("A = 2\n")  # the mutant a SIGKILL left behind
    with pytest.raises(SystemExit, match=r"kinds.py still holds a mutant .*git checkout"):
        records.check_no_mutant_written()
    assert records.MUTANT_WRITTEN.exists()
    module.write_text("A = 1\n")  # restored by hand: the stale note goes
    records.check_no_mutant_written()
    assert not records.MUTANT_WRITTEN.exists()
    records.check_no_mutant_written()  # no note: nothing to do


def test_each_module_keeps_the_seed_its_sample_was_drawn_with(out):
    assert records.seed_of("ops/registry.py") is None
    records.record_seed("ops/registry.py", 20261126)
    records.record_seed("executor/plan.py", 7)
    records.record_seed("ops/registry.py", 13)
    assert records.seed_of("ops/registry.py") == 13 and records.seed_of("executor/plan.py") == 7
    assert 20260101 <= records.todays_seed() <= 99991231


def test_a_mutant_caught_only_by_a_failed_import_is_told_apart():
    collection = ("==== ERRORS ====\n___ ERROR collecting tests/core/test_kinds.py ___\n"
                  "E   ImportError: cannot import name 'STYPE_CSR'\n"
                  "!!! Interrupted: 1 error during collection !!!\n")
    assert records.import_failure(collection) == "E   ImportError: cannot import name 'STYPE_CSR'"
    assert records.import_failure("F\nE   assert 3 == 4\n1 failed in 0.2s\n") is None
    assert records.import_failure("timeout") is None and records.import_failure(None) is None
