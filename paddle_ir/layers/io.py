"""Fluid 1.7's layers.io: data variables, where feeds enter a program, with Fluid 1.x's two
spellings, load, and the reader functions (py_reader ..., from reader/data_loader.py).

    layers.data("x", [13])          # Fluid 1.x: shape [-1, 13] (a batch dim is prepended)
    layers.data("x", [-1, 13])      # already has a -1: taken as given
    fluid.data("x", [None, 13])     # Fluid 1.6+: never prepends; None means -1
"""

from __future__ import annotations

from paddle_ir.framework import Variable, default_main_program
from paddle_ir.framework.variable import VarType
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.reader.data_loader import (
    create_py_reader_by_data,
    double_buffer,
    py_reader,
    read_file,
)

__all__ = ["create_py_reader_by_data", "data", "double_buffer", "fluid_data", "load", "py_reader",
           "read_file"]


def load(out: Variable, file_path: str, load_as_fp16: bool | None = None) -> None:
    """Fill `out` from a tensor file (one LoDTensor record) when the program runs."""
    helper = LayerHelper("load")
    helper.append_op("load", outputs={"Out": out},
                     attrs={"file_path": str(file_path), "load_as_fp16": bool(load_as_fp16)})


def _create_data_var(name: str, shape, dtype, lod_level: int, var_type,
                     stop_gradient: bool) -> Variable:
    var = default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=dtype, lod_level=lod_level, stop_gradient=stop_gradient)
    if var_type is not None and var_type != VarType.LOD_TENSOR:
        var.type = var_type
    return var


def data(name: str, shape, append_batch_size=True, dtype="float32", lod_level: int = 0,
         type=None, stop_gradient: bool = True) -> Variable:  # noqa: A002 - Fluid's name
    """Declare a fed input as Fluid 1.x's `fluid.layers.data`.

    A leading -1 (the batch) is prepended to `shape` unless `append_batch_size`
    is False or `shape` already holds a -1 or None (None becomes -1).
    `lod_level` > 0 declares a sequence input to be fed a LoDTensor. The
    argument order is Fluid's (append_batch_size third); a dtype given third,
    as `data("x", [-1, 4], "int64")` or `data("x", [-1, 1], "int64", 1)`, is
    read as the dtype (and the fourth as the lod_level), the order paddle-ir
    used before.
    """
    if not isinstance(append_batch_size, bool):  # a dtype in Fluid's third position
        if isinstance(dtype, int) and lod_level == 0:  # then (name, shape, dtype, lod_level)
            lod_level = dtype
        dtype, append_batch_size = append_batch_size, True
    dims = []
    for d in shape:
        if d is None or int(d) < 0:
            append_batch_size = False
            dims.append(-1)
        else:
            dims.append(int(d))
    if append_batch_size:
        dims.insert(0, -1)
    return _create_data_var(name, dims, dtype, lod_level, type, stop_gradient)


def fluid_data(name: str, shape, dtype="float32", lod_level: int = 0) -> Variable:
    """Declare a fed input as Fluid 1.6+'s top-level `fluid.data`: the shape as given.

    There is no implicit batch dimension; -1 or None marks a dim of any size.
    """
    dims = [-1 if d is None else int(d) for d in shape]
    var = _create_data_var(name, dims, dtype, lod_level, None, True)
    # Fluid's fluid.data marks its variables for the feed check; fluid.save leaves such
    # variables out of the .pdopt even when a program makes them persistable
    var.desc.paddle_need_check_feed = True
    return var
