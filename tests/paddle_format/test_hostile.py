"""Damaged Paddle program files fail with paddle-ir's errors, never with anything else."""

import numpy as np

from paddle_ir import paddle_format
from paddle_ir.core.errors import PaddleIRError
from tests.paddle_helpers import FIXTURES


def test_flipped_and_cut_bytes_give_paddle_ir_errors(tmp_path):
    data = bytearray((FIXTURES / "text" / "model.pdmodel").read_bytes())
    rng = np.random.default_rng(0)
    path = tmp_path / "damaged.pdmodel"
    outcomes = {"loaded": 0, "refused": 0}
    for trial in range(300):
        damaged = bytearray(data)
        if trial % 3 == 0:
            damaged = damaged[: rng.integers(0, len(damaged))]
        else:
            for pos in rng.integers(0, len(damaged), size=rng.integers(1, 4)):
                damaged[pos] = int(rng.integers(0, 256))
        path.write_bytes(bytes(damaged))
        try:
            program = paddle_format.load_paddle_program(path)
            paddle_format.to_paddle(program.desc)  # what loads can be written back
            outcomes["loaded"] += 1
        except PaddleIRError:
            outcomes["refused"] += 1
    assert outcomes["refused"] > 50 and outcomes["loaded"] > 10, outcomes
