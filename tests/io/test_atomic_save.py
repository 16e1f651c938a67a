"""A saved directory is replaced whole or not at all (DESIGN.md section 7, io, core/savedir).

Two models with the same parameter names and shapes but different programs
and values are saved alternately into one directory (tests/io/save_race.py),
in every save path and format (paddle-ir's, Paddle's, fluid 1.x's, Fluid's
per-variable checkpoint); every load must give one of them whole. `make test` runs a fast version;
`make stress` (PADDLE_IR_STRESS=1) runs enough rounds to catch a 5% failure
rate with high probability (0.95**100 < 0.6%).
"""

import os
import shutil
import signal
import stat
import time

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import io
from paddle_ir.core import savedir, tensor_io
from paddle_ir.core.errors import SavedDirectoryError
from tests.io import save_race

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
ROUNDS = 100 if save_race.STRESS else 12


@pytest.fixture(scope="module", params=save_race.FORMATS)
def models(request):
    """Every save path and format: the kill and race rounds below run for each."""
    return save_race.Models(request.param)


@pytest.fixture(scope="module")
def ir_models():
    return save_race.Models()


def _first_save(dirname, models):
    models.save(dirname, "A")
    assert models.classify(dirname) == "A"
    return dirname


@pytest.fixture
def model_dir(tmp_path, models):
    return _first_save(tmp_path / "model", models)


@pytest.fixture
def ir_model_dir(tmp_path, ir_models):
    return _first_save(tmp_path / "model", ir_models)


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
        models.save(model_dir, "A")  # start the next crash point from A again
        assert save_race.leftovers(model_dir) == [], k  # the save after a crash cleans up
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


def test_a_directory_of_older_paddle_ir_loads_and_is_taken_over_whole(ir_models, tmp_path):
    """Files at the top level and no CURRENT: read there; a new save keeps its checkpoint."""
    old = tmp_path / "old"
    main, scope, _ = ir_models.models["A"]
    ir_models.save(tmp_path / "donor", "A")
    donor = savedir.committed_dir(tmp_path / "donor")
    old.mkdir()
    for name in ("model.pb", "params"):
        (old / name).write_bytes(open(os.path.join(donor, name), "rb").read())
    io.save_vars(old / "persistables", main, scope)  # an older checkpoint beside it
    (old / "notes.txt").write_text("mine")
    assert ir_models.classify(old) == "A"

    ir_models.save(old, "B")
    assert ir_models.classify(old) == "B"
    assert (old / "CURRENT").is_file() and (old / "notes.txt").read_text() == "mine"
    fresh = pir.Scope()
    io.load_persistables(None, old, main, fresh)  # carried into the generation
    assert fresh.find_var(ir_models.first_param) is not None
    assert not os.path.exists(os.path.join(savedir.committed_dir(old), "notes.txt"))


def test_explicit_file_paths_still_load(ir_models, ir_model_dir):
    program = io.load_program(ir_model_dir / "model.pb")
    scope = pir.Scope()
    io.load_vars(ir_model_dir / "params", program, scope)
    assert scope.find_var(ir_models.first_param) is not None


def test_a_resave_keeps_the_file_modes(ir_models, ir_model_dir):
    os.chmod(ir_model_dir / "params", 0o600)
    os.chmod(ir_model_dir / "model.pb", 0o640)
    ir_models.save(ir_model_dir, "B")
    committed = savedir.committed_dir(ir_model_dir)
    for where in (ir_model_dir, committed):
        assert stat.S_IMODE(os.stat(os.path.join(where, "params")).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(os.path.join(where, "model.pb")).st_mode) == 0o640


def test_a_single_file_write_keeps_the_mode(tmp_path):
    path = tmp_path / "t"
    tensor_io.save_lod_tensor(path, [1.0, 2.0])
    os.chmod(path, 0o600)
    tensor_io.save_lod_tensor(path, [3.0])
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_checkpoint_and_model_share_a_directory(ir_models, ir_model_dir):
    main, scope, _ = ir_models.models["A"]
    io.save_persistables(None, ir_model_dir, main, scope)
    ir_models.save(ir_model_dir, "B")  # the checkpoint is carried into the new generation
    assert ir_models.classify(ir_model_dir) == "B"
    fresh = pir.Scope()
    io.load_persistables(None, ir_model_dir, main, fresh)
    assert (fresh.find_var(ir_models.first_param).value.numpy() == ir_models.weights["A"]).all()


def test_a_damaged_current_is_a_clear_error(ir_models, ir_model_dir):
    (ir_model_dir / "CURRENT").write_text("../../etc\n")
    with pytest.raises(SavedDirectoryError, match="must name a generation"):
        io.load_inference_model(ir_model_dir, scope=pir.Scope())
    (ir_model_dir / "CURRENT").write_text("gen-999999\n")
    with pytest.raises(SavedDirectoryError, match="names gen-999999, which does not exist"):
        io.load_inference_model(ir_model_dir, scope=pir.Scope())


@pytest.mark.parametrize("name", ["a/b", "", "CURRENT", "gen-000001", "x\0y", "n" * 256])
def test_file_names_a_save_cannot_use(ir_models, tmp_path, name):
    main, scope, out = ir_models.models["A"]
    with pytest.raises(SavedDirectoryError, match="cannot save a file named"):
        io.save_inference_model(tmp_path, ["x"], [out], main_program=main, scope=scope,
                                params_filename=name)


def test_a_resave_never_widens_permissions(models, model_dir):
    """Every file and directory made private (chmod 600 / 700) stays so through a re-save,
    in every format; before, CURRENT came back 0644 and the new generation 0755."""
    old_umask = os.umask(0o022)
    try:
        for root, dirs, files in os.walk(model_dir):
            for name in files:
                os.chmod(os.path.join(root, name), 0o600)
            for name in dirs:
                os.chmod(os.path.join(root, name), 0o700)
        models.save(model_dir, "B")
        assert models.classify(model_dir) == "B"
        widened = []
        for root, dirs, files in os.walk(model_dir):
            for name, allowed in [(n, 0o600) for n in files] + [(n, 0o700) for n in dirs]:
                mode = stat.S_IMODE(os.lstat(os.path.join(root, name)).st_mode)
                if mode & ~allowed:
                    widened.append((os.path.relpath(os.path.join(root, name), model_dir),
                                    oct(mode)))
        assert widened == []
    finally:
        os.umask(old_umask)


def test_new_files_of_a_save_take_the_umask(models, tmp_path):
    old_umask = os.umask(0o077)
    try:
        models.save(tmp_path / "fresh", "A")
    finally:
        os.umask(old_umask)
    for root, dirs, files in os.walk(tmp_path / "fresh"):
        for name in files + dirs:
            assert stat.S_IMODE(os.lstat(os.path.join(root, name)).st_mode) & 0o077 == 0, name


def test_a_fluid_directory_paddle_wrote_is_carried_whole(tmp_path):
    """The first staged save into a fluid 1.x directory (no CURRENT) carries the
    per-variable files its __model__ names, so the model still loads after it."""
    from tests.paddle_helpers import FIXTURES, assert_matches_paddle, feeds, run_model

    fluid_dir = tmp_path / "fluid"
    shutil.copytree(FIXTURES / "mlp" / "fluid", fluid_dir)
    scope = pir.Scope()
    program, _, _ = io.load_inference_model(str(fluid_dir), scope=scope)
    one = io.persistable_names(program)[0]
    io.save_vars(None, fluid_dir, program, vars=[one], scope=scope)  # one file, staged
    assert (fluid_dir / "CURRENT").is_file()
    assert_matches_paddle("mlp", run_model(fluid_dir, feeds("mlp")))


def test_save_params_beside_a_fluid_checkpoint_keeps_its_optimizer_state(tmp_path):
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 3])
        loss = pir.layers.mean(pir.layers.fc(x, 2))
        pir.optimizer.Momentum(0.1, momentum=0.9).minimize(loss)
    scope, exe = pir.Scope(), pir.Executor()
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": np.ones((4, 3), np.float32)}, fetch_list=[loss], scope=scope)
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    for name in io.persistable_names(main):  # Fluid's own checkpoint: plain files, no CURRENT
        io.save_vars(ckpt / name, _only(main, name), scope)
    state = [n for n in io.persistable_names(main) if "velocity" in n]
    assert state
    io.save_params(None, ckpt, main, scope=scope, filename=None)
    fresh = pir.Scope()
    io.load_persistables(None, ckpt, main, fresh, filename=None)
    for name in state:
        np.testing.assert_array_equal(fresh.find_var(name).value.numpy(),
                                      scope.find_var(name).value.numpy())


def _only(program, name):
    """A program declaring just `name` (one variable's file, as Fluid wrote it)."""
    desc = pir.Program().desc
    desc.blocks[0].vars.add().CopyFrom(program.global_block().var(name).desc)
    return pir.Program.from_desc(desc)


def test_links_a_save_killed_while_refreshing_them_left_are_repaired(tmp_path):
    """Killed after its commit, a save leaves top-level names (what Paddle's loaders read)
    at the older generation's files, or a file of a layout it replaced: the next save
    repairs the links under its lock before it writes (even if it then fails), and drops
    the stale files when it commits."""
    ir, fluid = save_race.Models("paddle-ir"), save_race.Models("fluid")
    torn, k = 0, 1
    while True:
        dirname = tmp_path / f"k{k}"
        ir.save(dirname, "A")
        if save_race.crash_at(fluid, dirname, "B", k, "kill") == 3:
            break
        k += 1
        if fluid.classify(dirname) != "B" or not save_race.leftovers(dirname):
            continue  # killed before the commit, or after the links were refreshed
        torn += 1
        with pytest.raises(ZeroDivisionError):
            savedir.commit(dirname, {"x": lambda out: 1 / 0}, ["x"])
        assert [e for e in save_race.leftovers(dirname) if "not gen" in e] == []
        fluid.save(dirname, "B")
        assert save_race.leftovers(dirname) == []
    assert torn > 3
