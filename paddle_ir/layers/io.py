"""Data variables: where feeds enter a program."""

from __future__ import annotations

from paddle_ir.framework import Variable, default_main_program


def data(name: str, shape, dtype="float32", lod_level: int = 0) -> Variable:
    """Declare a fed input, like `paddle.static.data`: the shape is taken as given.

    There is no implicit batch dimension; -1 or None marks a dim of any size.
    `lod_level` > 0 declares a sequence input that must be fed a LoDTensor.
    """
    shape = [-1 if d is None else int(d) for d in shape]
    return default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=dtype, lod_level=lod_level, stop_gradient=True)
