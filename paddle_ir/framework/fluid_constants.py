"""Fluid's `fluid.framework` module-level names that are constants or dtype helpers.

The reserved variable names are Fluid's own strings (a program that builds names from
them must match what Fluid writes); `convert_np_dtype_to_dtype_` answers with the
schema's DataType numbers, which `fluid.core.VarDesc.VarType.FP32` and every `dtype=`
argument use.
"""

from __future__ import annotations

import os

from paddle_ir.core.dtypes import convert_dtype, from_numpy_dtype
from paddle_ir.ops.grad import GRAD_SUFFIX

GRAD_VAR_SUFFIX = GRAD_SUFFIX  # "@GRAD"
TEMP_VAR_NAME = "@TEMP@"
EMPTY_VAR_NAME = "@EMPTY@"
ZERO_VAR_SUFFIX = "@ZERO"
CONTROL_DEP_VAR_PREFIX = "__control_var"

_FLOATING = {"float16", "float32", "float64", "bfloat16"}


def convert_np_dtype_to_dtype_(np_dtype) -> int:
    """A numpy dtype (or a name like 'float32') as Fluid's VarType number."""
    return from_numpy_dtype(convert_dtype(np_dtype))


def dtype_is_floating(dtype) -> bool:
    """Whether a dtype (VarType number, numpy dtype or name) is a floating-point type."""
    return convert_dtype(dtype).name in _FLOATING


def _cpu_num() -> int:
    """The CPU places Fluid's data-parallel APIs use: $CPU_NUM, else 1 (paddle-ir runs one
    place; Fluid defaults to the machine's core count and warns)."""
    text = os.environ.get("CPU_NUM", "1")
    if not text.strip().isdigit() or int(text) < 1:
        raise ValueError(f"CPU_NUM must be a positive integer, got {text!r}")
    return int(text)
