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
