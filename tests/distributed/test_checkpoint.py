"""merge_checkpoint joins one run's server checkpoints, saved at one step, or refuses
(issue 27 item 4): a missing server, a stray copy of one, another run's directory and
servers saved at different steps are named, and nothing is written."""

import os
import shutil

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.cli.main import main as cli_main
from paddle_ir.distributed import DistributedError, merge_checkpoint, train
from paddle_ir.distributed.checkpoint import JOB_FILE, SERVER_JOB_FILE
from paddle_ir.framework import unique_name
from paddle_ir.transpiler import DistributeTranspilerConfig
from tests.distributed.models import batches, ctr_model, split_batches

SMALL_BLOCKS = DistributeTranspilerConfig(min_block_size=16)


def _run(job, steps: int = 3, seed: int = 0):
    with unique_name.guard():  # the same names in every run, as a resumed job has
        main, startup, _, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.2))
    return train(main, startup, split_batches(batches(steps, 8, seed=seed), 2), pservers=2,
                 local=True, config=SMALL_BLOCKS, job_dir=str(job))


@pytest.fixture
def job(tmp_path):
    job = tmp_path / "job"
    result = _run(job)
    return job, result


def _refused(job, out, message):
    with pytest.raises(DistributedError, match=message):
        merge_checkpoint(str(job), str(out))
    assert not out.exists()


def test_a_whole_run_merges_to_the_trained_values(job, tmp_path):
    job, result = job
    out = tmp_path / "merged"
    merge_checkpoint(str(job), str(out))
    loaded, _ = pir.io.load_train_program(str(out))
    scope = pir.Scope()
    pir.io.load_persistables(pir.Executor(), str(out), loaded, scope)
    for name, value in result.params.items():
        np.testing.assert_array_equal(scope.find_var(name).get_tensor().numpy(), value)


def test_a_missing_server_beside_a_stray_copy_is_refused(job, tmp_path):
    job, _ = job
    shutil.copytree(job / "server-ps0", job / "server-ps0.bak")
    shutil.rmtree(job / "server-ps1")
    _refused(job, tmp_path / "out", r"lacks server-ps1: the run had servers ps0, ps1")
    shutil.copytree(job / "server-ps0", job / "server-ps1")  # ps0's files under ps1's name
    _refused(job, tmp_path / "out", r"holds server-ps0.bak, which the run did not have")
    shutil.rmtree(job / "server-ps0.bak")
    _refused(job, tmp_path / "out", r"server-ps1 holds the program of server 'ps0'")


def test_a_job_written_before_job_files_is_checked_by_its_pieces(job, tmp_path):
    job, _ = job
    os.unlink(job / JOB_FILE)
    for server in ("server-ps0", "server-ps1"):
        os.unlink(job / server / SERVER_JOB_FILE)
    merge_checkpoint(str(job), str(tmp_path / "whole"))  # still merges
    shutil.copytree(job / "server-ps0", job / "server-ps0.bak")
    shutil.rmtree(job / "server-ps1")
    _refused(job, tmp_path / "out", r"server-ps0.bak holds the program of server 'ps0', "
                                    r"which a run writes to server-ps0/")
    shutil.rmtree(job / "server-ps0.bak")
    _refused(job, tmp_path / "out", r"cover \d+ of its \d+ rows .* a server's checkpoint is "
                                    r"missing|no server holds")


def test_servers_saved_at_different_steps_are_refused(tmp_path):
    job = tmp_path / "job"
    _run(job, steps=2)
    earlier = tmp_path / "ps1-at-step-2"
    shutil.copytree(job / "server-ps1" / "checkpoint", earlier)
    _run(job, steps=2, seed=1)  # resumes from the checkpoints: both servers reach step 4
    shutil.rmtree(job / "server-ps1" / "checkpoint")
    shutil.copytree(earlier, job / "server-ps1" / "checkpoint")
    _refused(job, tmp_path / "out", r"the servers saved at different steps \(server-ps0 at "
                                    r"step 4, server-ps1 at step 2\)")


def test_another_runs_server_directory_is_refused(job, tmp_path, capsys):
    job, _ = job
    other = tmp_path / "other"
    _run(other, seed=5)  # the same model and servers: only the run's id tells them apart
    shutil.rmtree(job / "server-ps1")
    shutil.copytree(other / "server-ps1", job / "server-ps1")
    _refused(job, tmp_path / "out", r"server-ps1 was written by another run")
    assert cli_main(["merge-checkpoint", str(job), str(tmp_path / "out")]) == 1
    assert "[DistributedError]" in capsys.readouterr().err


def test_saved_step_is_where_a_resumed_run_starts(tmp_path):
    from paddle_ir.distributed.checkpoint import saved_step

    job = tmp_path / "job"
    with pytest.raises(DistributedError, match="holds no job.json: no run saved there"):
        saved_step(str(job))
    _run(job, steps=3)
    assert saved_step(str(job)) == 3
    earlier = tmp_path / "ps1-at-step-3"
    shutil.copytree(job / "server-ps1" / "checkpoint", earlier)
    assert _run(job, steps=2, seed=1).start_step == 3  # resumed: 3 + 2
    assert saved_step(str(job)) == 5
    shutil.rmtree(job / "server-ps1" / "checkpoint")
    with pytest.raises(DistributedError, match=r"server 'ps1' .* never saved"):
        saved_step(str(job))
    shutil.copytree(earlier, job / "server-ps1" / "checkpoint")
    with pytest.raises(DistributedError, match=r"different steps \(ps0 at step 5, ps1 at step 3"):
        saved_step(str(job))


def test_a_server_that_does_not_see_the_drivers_job_dir_says_so(job):
    from paddle_ir.distributed.checkpoint import server_files

    job, _ = job
    run_id = (job / "server-ps0" / SERVER_JOB_FILE).read_text()
    program, startup, initial, checkpoint = server_files("ps0", str(job), run_id, "node A")
    assert checkpoint == str(job / "server-ps0" / "checkpoint") and initial is None
    assert any(op.type == "listen_and_serv" for op in program.global_block().ops)
    with pytest.raises(DistributedError, match=r"(?s)server 'ps0' on node B cannot see the job "
                                               r"directory .*finds job " + run_id +
                                               r".*shared storage"):
        server_files("ps0", str(job), "f" * 16, "node B")
    with pytest.raises(DistributedError, match="cannot see the job directory .* finds no such"):
        server_files("ps0", str(job / "elsewhere"), run_id, "node B")


def _cli_train(tmp_path, *args):
    from tests.distributed.models import batches as make_batches

    with unique_name.guard():
        main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.Adam(0.05,
                                                                            lazy_mode=True))
    if not (tmp_path / "job").exists():
        pir.io.save_train_program(tmp_path / "job", main, startup, ["ids", "y"], [loss])
        np.savez(tmp_path / "data.npz", **make_batches(1, 128)[0])
    return cli_main(["train", str(tmp_path / "job"), "--trainers", "2", "--pservers", "2",
                     "--local", "--feeds", str(tmp_path / "data.npz"), "--batch-size", "8",
                     "--min-block-size", "16", *args])


def _merged(job_dir, out):
    merge_checkpoint(str(job_dir), str(out))
    loaded, _ = pir.io.load_train_program(str(out))
    scope = pir.Scope()
    names = pir.io.load_persistables(pir.Executor(), str(out), loaded, scope)
    return {n: scope.find_var(n).get_tensor().numpy() for n in names}


def test_train_resume_continues_with_the_batches_of_the_saved_step(tmp_path, capsys):
    """4 steps, then --resume to 7, equals 7 steps in one go, bit for bit (the batches of
    steps 5-7 are the ones an uninterrupted run takes there, not steps 1-3's again)."""
    assert _cli_train(tmp_path, "--steps", "7", "--save", str(tmp_path / "whole")) == 0
    assert _cli_train(tmp_path, "--steps", "4", "--save", str(tmp_path / "cut")) == 0
    capsys.readouterr()
    assert _cli_train(tmp_path, "--steps", "7", "--save", str(tmp_path / "cut")) == 1
    assert "the servers are at step 4, but this run starts at step 0" in capsys.readouterr().err
    assert _cli_train(tmp_path, "--steps", "7", "--save", str(tmp_path / "cut"),
                      "--resume") == 0
    out = capsys.readouterr().out
    assert "resuming at step 5/7" in out and ", 3 step(s):" in out
    whole, resumed = _merged(tmp_path / "whole", tmp_path / "m1"), \
        _merged(tmp_path / "cut", tmp_path / "m2")
    assert whole.keys() == resumed.keys()
    for name, value in whole.items():
        assert value.tobytes() == resumed[name].tobytes(), name
    assert _cli_train(tmp_path, "--steps", "7", "--save", str(tmp_path / "cut"),
                      "--resume") == 0
    assert "saved at step 7, and --steps is 7: nothing left to train" in capsys.readouterr().out
    with pytest.raises(SystemExit) as usage:
        _cli_train(tmp_path, "--steps", "7", "--resume")
    assert usage.value.code == 2
    assert "--resume needs --save DIR" in capsys.readouterr().err


def test_a_saved_run_resumes_only_with_the_same_servers(tmp_path):
    job = tmp_path / "job"
    _run(job, steps=1)
    with unique_name.guard():
        main, startup, _, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.2))
    with pytest.raises(DistributedError, match=r"holds a run with servers \['ps0', 'ps1'\], "
                                               r"not \['ps0', 'ps1', 'ps2'\]"):
        train(main, startup, split_batches(batches(1, 8), 2), pservers=3, local=True,
              config=SMALL_BLOCKS, job_dir=str(job))


def test_a_servers_files_carry_its_initial_values_exactly(tmp_path):
    from paddle_ir.distributed.checkpoint import (
        pieces_of,
        server_files,
        split_values,
        write_job,
        write_server_files,
    )
    from paddle_ir.distributed.launch import transpile

    with unique_name.guard():
        main, startup, _, _ = ctr_model(True, lambda: pir.optimizer.Adam(0.1, lazy_mode=True))
    _, servers = transpile(main, startup, ["ps0", "ps1"], 2, True, SMALL_BLOCKS)
    rng = np.random.RandomState(7)
    whole = {v.name: rng.standard_normal(v.shape).astype(np.float32)
             for v in main.global_block().vars.values()
             if v.persistable and np.dtype(v.dtype) == np.float32
             and all(d > 0 for d in v.shape)}
    for endpoint, (program, server_startup) in servers.items():
        initial = split_values(pieces_of(program), whole)
        assert initial
        write_server_files(str(tmp_path), endpoint, program, server_startup, initial)
        write_job(str(tmp_path), "run-1", [endpoint])
        _, _, read, _ = server_files(endpoint, str(tmp_path), "run-1", "here")
        assert read.keys() == initial.keys()
        for name, value in initial.items():
            assert read[name].dtype == value.dtype and read[name].tobytes() == value.tobytes()
        write_server_files(str(tmp_path), endpoint, program, server_startup, None)
        assert server_files(endpoint, str(tmp_path), "run-1", "here")[2] is None  # no stale one
