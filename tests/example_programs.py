"""Small deterministic programs shared by the I/O and CLI tests (and the dump goldens).

Built from the ops that exist in the foundation (elementwise_*, scale,
fill_constant, uniform_random), under a fresh unique_name namespace with fixed
seeds, so names, parameters and bytes are the same on every run. The golden
files record the creation sites of these ops (this file's lines, relative to
the repository root): editing the builders above the last op moves them, and
`UPDATE_GOLDEN=1 pytest tests/cli/test_cli.py` rewrites the goldens.
"""

from __future__ import annotations

import numpy as np

import paddle_ir as pir
from paddle_ir.framework import unique_name
from paddle_ir.framework.initializer import Constant, Uniform
from paddle_ir.layers.helper import LayerHelper


def build_affine():
    """y = 2 * (x * w + b) from a fed x[-1, 3]; an unrelated `scale(x, 3)` beside it.

    Returns (main, startup, names) with names = {"x", "y", "unrelated", "w", "b"}.
    """
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 7
    with unique_name.guard(), pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 3])
        helper = LayerHelper("affine")
        w = helper.create_parameter(pir.ParamAttr(initializer=Uniform(-1.0, 1.0, seed=3)), [3])
        b = helper.create_parameter(pir.ParamAttr(initializer=Constant(0.5)), [3], is_bias=True)
        y = pir.layers.scale(pir.layers.elementwise_add(pir.layers.elementwise_mul(x, w), b),
                             scale=2.0)
        unrelated = pir.layers.scale(x, scale=3.0)
    names = {"x": x.name, "y": y.name, "unrelated": unrelated.name, "w": w.name, "b": b.name}
    return main, startup, names


def build_counter():
    """A training-like job: each run adds a [2, 2] batch `x` to a persistable `total`.

    `steps += 1; total += x`, both written in place as optimizers update
    parameters; `out = 0.5 * total` is fetched. Returns (main, startup, names).
    """
    main, startup = pir.Program(), pir.Program()
    with unique_name.guard(), pir.program_guard(main, startup):
        x = pir.layers.data("x", [2, 2], append_batch_size=False)
        block = main.global_block()
        steps = block.create_var(name="steps", shape=[1], dtype="float32", persistable=True)
        total = block.create_var(name="total", shape=[2, 2], dtype="float32", persistable=True)
        init = startup.global_block()
        for var, shape in ((steps, [1]), (total, [2, 2])):
            Constant(0.0)(init.create_var(name=var.name, shape=shape, dtype="float32",
                                          persistable=True), init)
        block.append_op("scale", inputs={"X": steps}, outputs={"Out": steps},
                        attrs={"bias": 1.0})
        block.append_op("elementwise_add", inputs={"X": total, "Y": x}, outputs={"Out": total})
        half_total = pir.layers.scale(total, scale=0.5)
    names = {"x": x.name, "steps": "steps", "total": "total", "out": half_total.name}
    return main, startup, names


def affine_feed(rows: int = 2) -> np.ndarray:
    return np.arange(rows * 3, dtype=np.float32).reshape(rows, 3) / 4.0
