"""Train N steps, checkpoint, resume in a fresh process for M more: bit-identical to N + M.

What must survive the checkpoint (tests/io/resume_worker.py): the parameters,
Adam's moments and beta powers, the learning rate variable, and the state of
the random ops, which is none: a random op with a seed draws the same values
on every run, and one with seed 0 is not reproducible even without a restart.
"""

import subprocess
import sys

import numpy as np

import paddle_ir as pir
from tests.io import resume_worker

N, M = 4, 5


def _persistables(program, scope) -> dict:
    return {name: scope.find_var(name).value for name in pir.io.persistable_names(program)}


def _bits(value) -> bytes:
    return np.asarray(value).tobytes() if not isinstance(value, pir.LoDTensor) \
        else value.numpy().tobytes()


def test_resuming_in_a_fresh_process_is_bit_identical(tmp_path):
    main, startup, loss = resume_worker.build()
    straight = pir.Scope()
    pir.Executor().run(startup, scope=straight)
    losses = resume_worker.train(main, loss, straight, 0, N + M)

    first = pir.Scope()
    pir.Executor().run(startup, scope=first)
    assert resume_worker.train(main, loss, first, 0, N) == losses[:N]
    pir.save_persistables(None, tmp_path / "ckpt", main, first)

    subprocess.run([sys.executable, resume_worker.__file__, str(tmp_path / "ckpt"), str(N),
                    str(M), str(tmp_path / "resumed"), str(tmp_path / "losses.npz")],
                   check=True, timeout=300)
    resumed = pir.Scope()
    loaded = pir.load_persistables(None, tmp_path / "resumed", main, resumed)
    names = pir.io.persistable_names(main)
    assert sorted(loaded) == names
    assert any("moment1" in n for n in names) and any("beta1_pow" in n for n in names)
    assert any(n.startswith("learning_rate") for n in names)
    expected = _persistables(main, straight)
    for name in names:
        assert _bits(resumed.find_var(name).value) == _bits(expected[name]), name
    got = np.load(tmp_path / "losses.npz")["losses"]
    assert got.tobytes() == np.asarray(losses[N:]).tobytes()
    assert losses[-1] < losses[0]  # it does train
