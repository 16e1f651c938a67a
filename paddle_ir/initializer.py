"""Initializers: each appends one op to the startup program that fills a parameter.

Random initializers draw their seed from the program's `random_seed` when
they are given none, so a program built twice with the same seed starts from
the same parameters.
"""

from __future__ import annotations

import math

from paddle_ir.core.dtypes import from_numpy_dtype
from paddle_ir.ops.fill import constant_value_text


class Initializer:
    op_type = ""

    def _attrs(self, var, block) -> dict:
        return {}

    def _seed(self, block, seed: int) -> int:
        return seed or block.program._next_seed()

    def __call__(self, var, block):
        attrs = {"shape": [int(d) for d in var.shape], "dtype": from_numpy_dtype(var.dtype)}
        attrs.update(self._attrs(var, block))
        return block.append_op(self.op_type, outputs={"Out": var}, attrs=attrs)


class Constant(Initializer):
    op_type = "fill_constant"

    def __init__(self, value: float = 0.0, force_cpu: bool = False):
        self.value = value

    def _attrs(self, var, block):
        return {"value": float(self.value),  # and the exact text, read by the kernel
                "str_value": constant_value_text(self.value, var.dtype)}


class Uniform(Initializer):
    op_type = "uniform_random"

    def __init__(self, low: float = -1.0, high: float = 1.0, seed: int = 0):
        self.low, self.high, self.seed = low, high, seed

    def _attrs(self, var, block):
        return {"min": float(self.low), "max": float(self.high),
                "seed": self._seed(block, self.seed)}


class Normal(Initializer):
    op_type = "gaussian_random"

    def __init__(self, loc: float = 0.0, scale: float = 1.0, seed: int = 0):
        self.loc, self.scale, self.seed = loc, scale, seed

    def _attrs(self, var, block):
        return {"mean": float(self.loc), "std": float(self.scale),
                "seed": self._seed(block, self.seed)}


def _fans(shape) -> tuple[int, int]:
    if len(shape) < 2:
        return (shape[0] if shape else 1), (shape[0] if shape else 1)
    receptive = math.prod(shape[2:]) if len(shape) > 2 else 1
    return shape[0] * receptive, shape[1] * receptive


class Xavier(Initializer):
    """Glorot: U(-sqrt(6/(fan_in+fan_out)), +...) or N(0, sqrt(2/(fan_in+fan_out)))."""

    def __init__(self, uniform: bool = True, fan_in: int | None = None,
                 fan_out: int | None = None, seed: int = 0):
        self.uniform, self.fan_in, self.fan_out, self.seed = uniform, fan_in, fan_out, seed

    def __call__(self, var, block):
        fan_in, fan_out = _fans([int(d) for d in var.shape])
        fan_in = self.fan_in or fan_in
        fan_out = self.fan_out or fan_out
        if self.uniform:
            limit = math.sqrt(6.0 / (fan_in + fan_out))
            return Uniform(-limit, limit, self.seed)(var, block)
        return Normal(0.0, math.sqrt(2.0 / (fan_in + fan_out)), self.seed)(var, block)


ConstantInitializer = Constant
UniformInitializer = Uniform
NormalInitializer = Normal
XavierInitializer = Xavier
