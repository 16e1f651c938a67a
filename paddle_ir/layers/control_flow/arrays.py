"""Tensor arrays and the ops loops are made of, from Fluid 1.7's layers.control_flow:
increment, create_array, array_write, array_read, array_length, is_empty, and the LoD
rank-table pieces DynamicRNN uses (lod_rank_table, max_sequence_len,
lod_tensor_to_array, array_to_lod_tensor, shrink_memory, reorder_lod_tensor_by_rank).
"""

from __future__ import annotations

from paddle_ir.core.dtypes import convert_dtype, from_numpy_dtype
from paddle_ir.framework import Variable, VarType, unique_name
from paddle_ir.layers.helper import LayerHelper

__all__ = ["array_length", "array_read", "array_to_lod_tensor", "array_write", "create_array",
           "increment", "is_empty", "lod_rank_table", "lod_tensor_to_array", "max_sequence_len",
           "reorder_lod_tensor_by_rank", "shrink_memory"]


def increment(x: Variable, value: float = 1.0, in_place: bool = True) -> Variable:
    """x + value for a one-element counter; with in_place, written back to x."""
    helper = LayerHelper("increment")
    out = x if in_place else helper.create_variable_for_type_inference(x.dtype,
                                                                       stop_gradient=True)
    helper.append_op("increment", inputs={"X": x}, outputs={"Out": out},
                     attrs={"step": float(value)})
    return out


def create_array(dtype="float32") -> Variable:
    """An empty tensor array (elements of `dtype`), created when the program runs."""
    helper = LayerHelper("array")
    dtype = convert_dtype(dtype)
    array = helper.block.create_var(name=unique_name.generate("array"), dtype=dtype,
                                    type=VarType.LOD_TENSOR_ARRAY)
    helper.append_op("create_array", outputs={"Out": array},
                     attrs={"dtype": from_numpy_dtype(dtype)})
    return array


def array_write(x: Variable, i: Variable, array: Variable | None = None) -> Variable:
    """`array` with element i set to x (a new array when None); returns the array."""
    helper = LayerHelper("array_write")
    inputs = {"X": x, "I": i}
    if array is None:
        array = helper.block.create_var(name=unique_name.generate("array"), dtype=x.dtype,
                                        type=VarType.LOD_TENSOR_ARRAY)
    else:
        inputs["Array"] = array
    helper.append_op("array_write", inputs=inputs, outputs={"Out": array})
    return array


def array_read(array: Variable, i: Variable) -> Variable:
    """Element i of `array`, with its LoD."""
    helper = LayerHelper("array_read")
    out = helper.create_variable_for_type_inference(array.dtype)
    helper.append_op("array_read", inputs={"X": array, "I": i}, outputs={"Out": out})
    return out


def array_length(array: Variable) -> Variable:
    """The number of elements of `array`, an int64 [1] tensor."""
    helper = LayerHelper("array_length")
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("array_length", inputs={"X": array}, outputs={"Out": out})
    return out


def lod_rank_table(x: Variable, level: int = 0) -> Variable:
    """The sequences of x's LoD level `level`, sorted by length (longest first)."""
    helper = LayerHelper("lod_rank_table")
    table = helper.block.create_var(name=unique_name.generate("lod_rank_table"), dtype="int64",
                                    type=VarType.LOD_RANK_TABLE, stop_gradient=True)
    helper.append_op("lod_rank_table", inputs={"X": x}, outputs={"Out": table},
                     attrs={"level": int(level)})
    return table


def max_sequence_len(rank_table: Variable) -> Variable:
    """The longest sequence's length, an int64 [1] tensor."""
    helper = LayerHelper("max_sequence_len")
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("max_sequence_len", inputs={"RankTable": rank_table},
                     outputs={"Out": out})
    return out


def lod_tensor_to_array(x: Variable, table: Variable) -> Variable:
    """One array element per step: the step's item of every sequence still running."""
    helper = LayerHelper("lod_tensor_to_array")
    array = helper.block.create_var(name=unique_name.generate("lod_tensor_to_array"),
                                    dtype=x.dtype, type=VarType.LOD_TENSOR_ARRAY)
    helper.append_op("lod_tensor_to_array", inputs={"X": x, "RankTable": table},
                     outputs={"Out": array})
    return array


def array_to_lod_tensor(x: Variable, table: Variable) -> Variable:
    """The inverse of lod_tensor_to_array: items back in order, with the LoD restored."""
    helper = LayerHelper("array_to_lod_tensor")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("array_to_lod_tensor", inputs={"X": x, "RankTable": table},
                     outputs={"Out": out})
    return out


def shrink_memory(x: Variable, i: Variable, table: Variable) -> Variable:
    """The rows of x that belong to the sequences longer than step i."""
    helper = LayerHelper("shrink_memory")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("shrink_rnn_memory", inputs={"X": x, "RankTable": table, "I": i},
                     outputs={"Out": out})
    return out


def reorder_lod_tensor_by_rank(x: Variable, rank_table: Variable) -> Variable:
    """x's rows (or top-level sequences) in the rank table's order."""
    helper = LayerHelper("reorder_lod_tensor_by_rank")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("reorder_lod_tensor_by_rank", inputs={"X": x, "RankTable": rank_table},
                     outputs={"Out": out})
    return out


def is_empty(x: Variable, cond: Variable | None = None) -> Variable:
    """A bool [1]: whether x holds no elements (written into `cond` when given)."""
    helper = LayerHelper("is_empty")
    if cond is None:
        cond = helper.create_variable_for_type_inference("bool", stop_gradient=True)
    helper.append_op("is_empty", inputs={"X": x}, outputs={"Out": cond})
    return cond
