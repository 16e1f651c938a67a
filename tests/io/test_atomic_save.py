"""A saved directory is replaced whole or not at all (DESIGN.md section 7, io, core/savedir).

Two models with the same parameter names and shapes but different programs
and values are saved alternately into one directory (tests/io/save_race.py);
every load must give one of them whole. `make test` runs a fast version;
`make stress` (PADDLE_IR_STRESS=1) runs enough rounds to catch a 5% failure
rate with high probability (0.95**100 < 0.6%).
"""

import os
import signal
import stat
import time

import pytest

import paddle_ir as pir
from paddle_ir import io
from paddle_ir.core import savedir, tensor_io
from paddle_ir.core.errors import SavedDirectoryError
from tests.io import save_race

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
ROUNDS = 100 if save_race.STRESS else 12


@pytest.fixture(scope="module")
def models():
    return save_race.Models()


@pytest.fixture
def model_dir(tmp_path, models):
    dirname = tmp_path / "model"
    models.save(dirname, "A")
    assert models.classify(dirname) == "A"
    return dirname


def _save_seconds(models, dirname) -> float:
    start = time.perf_counter()
    for which in "BA":
        models.save(dirname, which)
    return (time.perf_counter() - start) / 2


@pytest.mark.parametrize("how", ["kill", "interrupt"])
def test_a_save_stopped_at_any_file_system_call_leaves_one_whole_model(models, model_dir,
                                                                        how):
    """SIGKILL, or Ctrl-C (KeyboardInterrupt) at each call of a save of B over A."""
    seen, k = set(), 1
    while True:
        status = save_race.crash_at(models, model_dir, "B", k, how)
        state = models.classify(model_dir)
        assert state in ("A", "B"), (k, state)
        seen.add(state)
        if status == 3:  # the save ran to its end: every call has been a crash point
            break
        assert status == (-signal.SIGKILL if how == "kill" else 130), status
        if state == "B":
            models.save(model_dir, "A")  # start the next crash point from A again
        k += 1
    assert seen == {"A", "B"} and k > 10
    models.save(model_dir, "A")
    assert save_race.leftovers(model_dir) == []  # what the crashes left is gone


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_saves_killed_at_random_moments_never_leave_a_mixed_model(models, model_dir, sig):
    max_delay = 3 * _save_seconds(models, model_dir)
    counts = save_race.interrupt_at_random(models, model_dir, sig, ROUNDS, max_delay)
    assert set(counts) <= {"A", "B"}, counts
    models.save(model_dir, "A")
    assert save_race.leftovers(model_dir) == []


def test_loads_during_saves_never_see_a_mixed_model(models, model_dir):
    seconds = 20 if save_race.STRESS else 2.5
    saver = save_race.fork(save_race.save_forever(models, model_dir))
    counts: dict[str, int] = {}
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            state = models.classify(model_dir)
            counts[state] = counts.get(state, 0) + 1
    finally:
        os.kill(saver, signal.SIGKILL)
        save_race.wait(saver)
    assert set(counts) <= {"A", "B"}, counts
    assert sum(counts.values()) >= 20


def test_concurrent_savers_end_in_one_whole_save(models, model_dir):
    for _ in range(ROUNDS // 2):
        pids = [save_race.fork(lambda w=w: models.save(model_dir, w)) for w in "BA"]
        assert [save_race.wait(p) for p in pids] == [0, 0]
        assert models.classify(model_dir) in ("A", "B")
        assert save_race.leftovers(model_dir) == []


def test_a_directory_of_older_paddle_ir_loads_and_is_taken_over_whole(models, tmp_path):
    """Files at the top level and no CURRENT: read there; a new save keeps its checkpoint."""
    old = tmp_path / "old"
    main, scope, _ = models.models["A"]
    models.save(tmp_path / "donor", "A")
    donor = savedir.committed_dir(tmp_path / "donor")
    old.mkdir()
    for name in ("model.pb", "params"):
        (old / name).write_bytes(open(os.path.join(donor, name), "rb").read())
    io.save_vars(old / "persistables", main, scope)  # an older checkpoint beside it
    (old / "notes.txt").write_text("mine")
    assert models.classify(old) == "A"

    models.save(old, "B")
    assert models.classify(old) == "B"
    assert (old / "CURRENT").is_file() and (old / "notes.txt").read_text() == "mine"
    fresh = pir.Scope()
    io.load_persistables(None, old, main, fresh)  # carried into the generation
    assert fresh.find_var(models.first_param) is not None
    assert not os.path.exists(os.path.join(savedir.committed_dir(old), "notes.txt"))


def test_explicit_file_paths_still_load(models, model_dir):
    program = io.load_program(model_dir / "model.pb")
    scope = pir.Scope()
    io.load_vars(model_dir / "params", program, scope)
    assert scope.find_var(models.first_param) is not None


def test_a_resave_keeps_the_file_modes(models, model_dir):
    os.chmod(model_dir / "params", 0o600)
    os.chmod(model_dir / "model.pb", 0o640)
    models.save(model_dir, "B")
    committed = savedir.committed_dir(model_dir)
    for where in (model_dir, committed):
        assert stat.S_IMODE(os.stat(os.path.join(where, "params")).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(os.path.join(where, "model.pb")).st_mode) == 0o640


def test_a_single_file_write_keeps_the_mode(tmp_path):
    path = tmp_path / "t"
    tensor_io.save_lod_tensor(path, [1.0, 2.0])
    os.chmod(path, 0o600)
    tensor_io.save_lod_tensor(path, [3.0])
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_checkpoint_and_model_share_a_directory(models, model_dir):
    main, scope, _ = models.models["A"]
    io.save_persistables(None, model_dir, main, scope)
    models.save(model_dir, "B")  # the checkpoint is carried into the new generation
    assert models.classify(model_dir) == "B"
    fresh = pir.Scope()
    io.load_persistables(None, model_dir, main, fresh)
    assert (fresh.find_var(models.first_param).value.numpy() == models.weights["A"]).all()


def test_a_damaged_current_is_a_clear_error(models, model_dir):
    (model_dir / "CURRENT").write_text("../../etc\n")
    with pytest.raises(SavedDirectoryError, match="must name a generation"):
        io.load_inference_model(model_dir, scope=pir.Scope())
    (model_dir / "CURRENT").write_text("gen-999999\n")
    with pytest.raises(SavedDirectoryError, match="names gen-999999, which does not exist"):
        io.load_inference_model(model_dir, scope=pir.Scope())


@pytest.mark.parametrize("name", ["a/b", "", "CURRENT", "gen-000001", "x\0y", "n" * 256])
def test_file_names_a_save_cannot_use(models, tmp_path, name):
    main, scope, out = models.models["A"]
    with pytest.raises(SavedDirectoryError, match="cannot save a file named"):
        io.save_inference_model(tmp_path, ["x"], [out], main_program=main, scope=scope,
                                params_filename=name)
