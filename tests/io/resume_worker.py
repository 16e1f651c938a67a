"""Training steps for tests/io/test_checkpoint_resume.py, runnable in a fresh process.

    python tests/io/resume_worker.py LOAD_DIR FIRST_STEP STEPS SAVE_DIR OUT.npz

builds the model, loads the checkpoint in LOAD_DIR (no startup program runs),
trains STEPS steps starting at step FIRST_STEP, checkpoints to SAVE_DIR and
writes the losses to OUT.npz.

The model has every kind of state a checkpoint must carry: a sparse embedding
and an fc layer trained by lazy Adam (two moments and two beta powers per
parameter, a SelectedRows gradient), the learning rate variable, and a
uniform_random op in the main program. That op has a fixed seed, so it draws
the same noise on every run; that is paddle-ir's rule for random ops at run
time (no generator state lives between runs), which is why a checkpoint needs
no RNG state. A batch depends only on its step number.
"""

from __future__ import annotations

import sys

import numpy as np

import paddle_ir as pir

VOCAB, DIM, BATCH = 40, 6, 8


def build():
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 11
    with pir.unique_name.guard(), pir.program_guard(main, startup):
        ids = pir.layers.data("ids", [-1, 1], dtype="int64")
        label = pir.layers.data("label", [-1, 1], dtype="int64")
        emb = pir.layers.embedding(ids, [VOCAB, DIM], is_sparse=True)
        noise = main.global_block().create_var(name="noise", shape=[DIM], dtype="float32")
        main.global_block().append_op(
            "uniform_random", outputs={"Out": noise},
            attrs={"shape": [DIM], "min": -0.1, "max": 0.1, "seed": 5})
        logits = pir.layers.fc(pir.layers.elementwise_add(emb, noise), 3)
        loss = pir.layers.mean(pir.layers.softmax_with_cross_entropy(logits, label))
        pir.optimizer.Adam(0.05, lazy_mode=True).minimize(loss)
    return main, startup, loss


def batch(step: int) -> dict:
    rng = np.random.default_rng(1000 + step)
    ids = rng.integers(0, VOCAB, (BATCH, 1))
    return {"ids": ids, "label": (ids % 3).astype(np.int64)}


def train(main, loss, scope, first: int, steps: int) -> list:
    exe = pir.Executor()
    losses = []
    for step in range(first, first + steps):
        (value,) = exe.run(main, feed=batch(step), fetch_list=[loss], scope=scope)
        losses.append(value)
    return losses


def main(argv) -> None:
    load_dir, first, steps, save_dir, out = argv[0], int(argv[1]), int(argv[2]), argv[3], argv[4]
    program, _, loss = build()
    scope = pir.Scope()
    pir.load_persistables(None, load_dir, program, scope)
    losses = train(program, loss, scope, first, steps)
    pir.save_persistables(None, save_dir, program, scope)
    np.savez(out, losses=np.asarray(losses))


if __name__ == "__main__":
    main(sys.argv[1:])
