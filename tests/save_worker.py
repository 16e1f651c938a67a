"""A process that saves a large inference model, for tests/test_atomic_save.py to kill.

    python tests/save_worker.py DIR SEED [pause-record:K | pause-sync:K | plain]

builds the model (eight 1024 x 1024 fc layers, 32 MiB of float32 weights),
initializes it with SEED and saves it to DIR. `pause-record:K` stops for good
after the K-th parameter record reached the temporary file; `pause-sync:K`
after the K-th fsync (the K-th file of the save is staged whole); `plain`
saves at full speed. Before stopping it prints a line to stdout, so the test
knows that the save is under way when it sends SIGKILL.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

import paddle_ir as pir
from paddle_ir.core import tensor_io

WIDTH, LAYERS = 1024, 8


def build(seed: int):
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = seed
    with pir.unique_name.guard(), pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, WIDTH])
        h = x
        for _ in range(LAYERS):
            h = pir.layers.fc(h, WIDTH, act="tanh")
    return main, startup, x, h


def feed() -> dict:
    return {"x": np.random.default_rng(0).random((4, WIDTH), dtype=np.float32)}


def _pause(message: str) -> None:
    print(message, flush=True)
    time.sleep(600)


def main(argv) -> None:
    dirname, seed, mode = argv[0], int(argv[1]), argv[2] if len(argv) > 2 else "plain"
    program, startup, x, out = build(seed)
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    kind, _, count = mode.partition(":")
    if kind == "pause-record":
        real, seen = tensor_io._write_dense, [0]

        def write_dense(stream, array):  # write_lod_tensor looks it up at each call
            real(stream, array)
            seen[0] += 1
            if seen[0] == int(count):
                stream.flush()
                _pause(f"paused after record {seen[0]}")

        tensor_io._write_dense = write_dense
    elif kind == "pause-sync":
        real_fsync, syncs = os.fsync, [0]

        def fsync(fd):
            real_fsync(fd)
            syncs[0] += 1
            if syncs[0] == int(count):
                _pause(f"paused after fsync {syncs[0]}")

        os.fsync = fsync
    print("saving", flush=True)
    pir.save_inference_model(dirname, ["x"], [out], main_program=program, scope=scope)
    print("saved", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
