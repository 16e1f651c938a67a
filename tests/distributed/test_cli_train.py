"""`paddle-ir train` and `paddle-ir merge-checkpoint`, run as a user runs them."""

import subprocess
import sys

import numpy as np

import paddle_ir as pir
from tests.distributed.models import batches, ctr_model


def cli(*args):
    return subprocess.run([sys.executable, "-m", "paddle_ir", *map(str, args)],
                          capture_output=True, text=True)


def test_train_save_merge_and_serve_on_one_machine(tmp_path):
    main, startup, loss, pred = ctr_model(True, lambda: pir.optimizer.Adam(0.05, lazy_mode=True))
    pir.io.save_train_program(tmp_path / "job", main, startup, ["ids", "y"], [loss])
    np.savez(tmp_path / "data.npz", **batches(1, 256)[0])
    done = cli("train", tmp_path / "job", "--trainers", 2, "--pservers", 2, "--local",
               "--feeds", tmp_path / "data.npz", "--batch-size", 16, "--steps", 20,
               "--save", tmp_path / "dist", "--min-block-size", 16)
    assert done.returncode == 0, done.stderr
    losses = [float(line.split("=")[1]) for line in done.stdout.splitlines()
              if line.startswith("step ")]
    assert len(losses) == 10 and losses[-1] < losses[0]
    assert "KiB sent" in done.stdout and "merge-checkpoint" in done.stdout

    done = cli("merge-checkpoint", tmp_path / "dist", tmp_path / "merged", "--feed", "ids",
               "--fetch", pred.name)
    assert done.returncode == 0, done.stderr
    ids = np.arange(10, dtype=np.int64).reshape(-1, 1)
    np.save(tmp_path / "ids.npy", ids)
    done = cli("run", tmp_path / "merged" / "inference", "--feed", f"ids={tmp_path / 'ids.npy'}",
               "--out", tmp_path / "pred.npz")
    assert done.returncode == 0, done.stderr
    served = np.load(tmp_path / "pred.npz")[pred.name]
    exe, scope = pir.Executor(), pir.Scope()
    program, _, fetches = pir.io.load_inference_model(str(tmp_path / "merged" / "inference"),
                                                      exe, scope)
    want = exe.run(program, feed={"ids": ids}, fetch_list=fetches, scope=scope)[0]
    np.testing.assert_array_equal(served, want)


def test_merge_checkpoint_wants_feed_and_fetch_together(tmp_path):
    done = cli("merge-checkpoint", tmp_path, tmp_path / "out", "--feed", "ids")
    assert done.returncode == 2 and "--feed and --fetch go together" in done.stderr
