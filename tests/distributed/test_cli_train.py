"""`paddle-ir train` and `paddle-ir merge-checkpoint`, run as a user runs them."""

import socket
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


def test_train_joins_a_running_cluster_with_address(tmp_path):
    """--address joins a cluster another process started (here a loopback one, as
    start_local_cluster makes it); sync training there equals --local training."""
    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.2))
    pir.io.save_train_program(tmp_path / "job", main, startup, ["ids", "y"], [loss])
    np.savez(tmp_path / "data.npz", **batches(1, 64)[0])
    args = ["train", tmp_path / "job", "--trainers", 2, "--pservers", 2, "--feeds",
            tmp_path / "data.npz", "--batch-size", 16, "--steps", 4, "--min-block-size", 16]
    head = subprocess.Popen([sys.executable, "-m", "tests.distributed.ray_head"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        address = head.stdout.readline().strip()
        assert address.startswith("127.0.0.1:"), address
        joined = cli(*args, "--address", address)
    finally:
        head.stdin.close()
        head.wait(timeout=60)
    assert joined.returncode == 0, joined.stderr
    assert f"on the Ray cluster at {address}," in joined.stdout
    local = cli(*args, "--local")
    assert local.returncode == 0, local.stderr

    def losses(out):
        return [float(line.split("=")[1]) for line in out.splitlines() if line.startswith("step ")]

    assert len(losses(joined.stdout)) >= 2
    np.testing.assert_allclose(losses(joined.stdout), losses(local.stdout), rtol=1e-6)


def test_train_with_an_address_nobody_answers_fails_at_once(tmp_path):
    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.2))
    pir.io.save_train_program(tmp_path / "job", main, startup, ["ids", "y"], [loss])
    np.savez(tmp_path / "data.npz", **batches(1, 16)[0])
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = cli("train", tmp_path / "job", "--trainers", 1, "--pservers", 1, "--feeds",
               tmp_path / "data.npz", "--batch-size", 16, "--address", f"127.0.0.1:{port}")
    assert done.returncode != 0
    assert f"cannot join the Ray cluster at '127.0.0.1:{port}': nothing answers" in done.stderr
    done = cli("train", tmp_path / "job", "--feeds", tmp_path / "data.npz", "--batch-size", 16,
               "--address", "ps0")
    assert "expected HOST:PORT" in done.stderr


def test_merge_checkpoint_wants_feed_and_fetch_together(tmp_path):
    done = cli("merge-checkpoint", tmp_path, tmp_path / "out", "--feed", "ids")
    assert done.returncode == 2 and "--feed and --fetch go together" in done.stderr


def test_auth_options_go_with_address(tmp_path):
    done = cli("train", tmp_path, "--batch-size", 4, "--auth-token-file", tmp_path / "t")
    assert done.returncode == 2 and "--auth-token-file and --insecure-cluster go with " \
                                      "--address" in done.stderr
    done = cli("train", tmp_path, "--batch-size", 4, "--local", "--address", "h:1")
    assert done.returncode == 2 and "--local runs in this process" in done.stderr
    done = cli("train", tmp_path, "--batch-size", 4, "--server-memory", "lots")
    assert done.returncode == 2 and "--server-memory: expected 'auto' or a positive number " \
                                    "of bytes" in done.stderr
    done = cli("train", tmp_path, "--batch-size", 4, "--server-resource", "=2")
    assert done.returncode == 2 and "--server-resource: expected NAME or NAME=N" in done.stderr


def test_server_memory_takes_bytes_with_a_suffix():
    from paddle_ir.cli.train import _bytes

    assert _bytes("4096", "--server-memory") == 4096
    assert _bytes("64G", "--server-memory") == 64 * 2**30
    assert _bytes("3m", "--server-memory") == 3 * 2**20
