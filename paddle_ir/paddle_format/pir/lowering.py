"""Old-IR idioms PIR spells with other ops, rewritten as Paddle's own translator does
(paddle/fluid/ir_adaptor/translator/op_translator.cc): what write.py does before it
looks an op up in op_table.

- `mul` (Fluid's fc: X flattened to 2-D at x_num_col_dims) -> pd_op.matmul, after a
  reshape of X when its trailing dims are more than one;
- binary elementwise ops with an `axis` other than numpy's trailing alignment -> the
  operand of lower rank (Y, or X) unsqueezed to line up at `axis`, then the op with
  axis -1;
- `fill_constant` -> pd_op.full; with a shape known at run time, the value as a
  pd_op.full then the table's pd_op.full_with_tensor;
- `set_value` -> pd_op.set_value_with_tensor when a ValueTensor is bound, else
  pd_op.set_value with the value as `values` scalars (no dtype: Input's).

Each function returns True when it wrote the op (or recorded why it cannot), False to
let write.py map it through the table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from paddle_ir.core.dtypes import to_numpy_dtype
from paddle_ir.ops import registry as op_registry
from paddle_ir.paddle_format.pir.op_table import OPS
from paddle_ir.paddle_format.pir.write import INVERSE, _attr, encode
from paddle_ir.paddle_format.pir.write_regions import CONTROL_FLOW
from paddle_ir.proto import framework_pb2 as pb

if TYPE_CHECKING:
    from paddle_ir.paddle_format.pir.write import Writer


def _mul(w: Writer, old_type, inputs, outputs, attrs, where) -> bool:
    x, y = inputs.get("X", [None])[0], inputs.get("Y", [None])[0]
    out = outputs.get("Out", [None])[0]
    if x is None or y is None or out is None:
        w.problems.append(f"{where}: mul needs X, Y and Out")
        return True
    xnc, ync = attrs.get("x_num_col_dims", 1), attrs.get("y_num_col_dims", 1)
    xdims, ydims = w.dims(x), w.dims(y)
    if len(ydims) != 2 or ync != 1:
        w.problems.append(f"{where}: mul with Y of rank {len(ydims)} and y_num_col_dims "
                          f"{ync}; the PIR writer takes a 2-D Y (y_num_col_dims 1)")
        return True
    if len(xdims) != xnc + 1:
        trailing = xdims[xnc:]
        if any(d < 0 for d in trailing):
            w.problems.append(f"{where}: mul flattens X's dims {trailing} that are unknown "
                              f"until it runs; the PIR writer needs them fixed")
            return True
        flat = w.scratch(f"{x}.flat", w.dtype(x), [*xdims[:xnc], math.prod(trailing)])
        # reshape's 0 keeps the input's dim at that place: the leading dims, whatever size
        w.mapped("pd_op.reshape", "reshape2", {"X": [x]}, {"Out": [flat]},
                 {"shape": [0] * xnc + [math.prod(trailing)]},
                 op_registry.get_op_def("reshape2"), where)
        x = flat
    w.mapped("pd_op.matmul", "matmul_v2", {"X": [x], "Y": [y]}, {"Out": [out]},
             {"trans_x": False, "trans_y": False}, op_registry.get_op_def("matmul_v2"), where)
    return True


def _broadcast(w: Writer, old_type, inputs, outputs, attrs, where) -> bool:
    """Fluid aligns the operand of lower rank (Y, or X when X is the smaller) with the
    other at `axis`; numpy (and PIR) at the trailing dims: unsqueeze it to line up."""
    axis = attrs.get("axis", -1)
    x, y = inputs.get("X", [None])[0], inputs.get("Y", [None])[0]
    if axis == -1 or x is None or y is None:
        return _plain(w, old_type, inputs, outputs, attrs, where)
    small, big = ("X", "Y") if len(w.dims(x)) < len(w.dims(y)) else ("Y", "X")
    name = inputs[small][0]
    srank, brank = len(w.dims(name)), len(w.dims(inputs[big][0]))
    if axis < 0:
        axis += brank
    trailing = brank - axis - srank
    if trailing < 0:
        w.problems.append(f"{where}: axis {attrs['axis']} puts {small} (rank {srank}) past "
                          f"the end of {big} (rank {brank})")
        return True
    if trailing > 0 and srank < brank:
        lined = w.scratch(f"{name}.at_axis{axis}", w.dtype(name),
                          [*w.dims(name), *[1] * trailing])
        w.mapped("pd_op.unsqueeze", "unsqueeze2", {"X": [name]}, {"Out": [lined]},
                 {"axes": list(range(srank, srank + trailing))},
                 op_registry.get_op_def("unsqueeze2"), where)
        inputs = {**inputs, small: [lined]}
    return _plain(w, old_type, inputs, outputs, attrs, where)


def _plain(w: Writer, old_type, inputs, outputs, attrs, where) -> bool:
    w.mapped(INVERSE[old_type][0], old_type, inputs, outputs, {**attrs, "axis": -1},
             op_registry.get_op_def(old_type), where)
    return True


def _fill_constant(w: Writer, old_type, inputs, outputs, attrs, where) -> bool:
    out = outputs.get("Out", [None])[0]
    if inputs.get("ValueTensor"):
        return False  # pd_op.full_with_tensor, through the table
    if out is None:
        w.problems.append(f"{where}: fill_constant has no Out")
        return True
    value = float(attrs["str_value"]) if attrs.get("str_value") else attrs.get("value", 0.0)
    dtype = attrs.get("dtype", pb.FP32)
    if inputs.get("ShapeTensor") or inputs.get("ShapeTensorList"):
        # a shape known at run time: the value as a one-element tensor, then
        # pd_op.full_with_tensor (as Paddle's translator writes it)
        held = w.scratch(f"{out}.value", dtype, [1])
        _full(w, held, [1], value, dtype, where)
        spent = {k: v for k, v in attrs.items() if k not in ("value", "str_value")}
        w.mapped("pd_op.full_with_tensor", old_type, {**inputs, "ValueTensor": [held]},
                 outputs, spent, op_registry.get_op_def(old_type), where)
        return True
    _full(w, out, [int(d) for d in attrs.get("shape", [])], value, dtype, where)
    return True


def _full(w: Writer, name: str, shape: list[int], value: float, dtype: int, where) -> None:
    (result,) = w.bind([name])
    w.emit("pd_op.full", [], [result], [
        {"N": "shape", "AT": _attr("1.a_intarray", shape)},
        {"N": "value", "AT": _attr("0.a_f64", float(value))},
        {"N": "dtype", "AT": encode({"#": "1.a_dtype"}, dtype, where)},
        {"N": "place", "AT": _attr("1.a_place", [0, 0, ""])}])


# Fluid's places for set_value's attribute value (older programs: the one of these set)
_SET_VALUE_VALUES = ("values", "fp32_values", "fp64_values", "int32_values", "int64_values",
                     "bool_values")


def _set_value(w: Writer, old_type, inputs, outputs, attrs, where) -> bool:
    """set_value -> pd_op.set_value_with_tensor (a ValueTensor) or pd_op.set_value (the
    value as PIR's `values` scalars, which Paddle 3 assigns in Input's type: Fluid's
    dtype must give the same numbers, and an older program's typed list moves to
    `values`, shaped `shape` or flat)."""
    x = inputs.get("Input", [None])[0]
    if x is None:
        w.problems.append(f"{where}: set_value has no Input")
        return True
    values = next((list(attrs[k]) for k in _SET_VALUE_VALUES if attrs.get(k)), [])
    spent = {k: v for k, v in attrs.items() if k not in _SET_VALUE_VALUES and k != "dtype"}
    if not spent.get("steps") and not inputs.get("StepsTensorList"):
        spent["steps"] = [1] * len(spent.get("axes", []))  # Fluid's default stride
    opdef = op_registry.get_op_def(old_type)
    if inputs.get("ValueTensor"):
        w.mapped("pd_op.set_value_with_tensor", old_type, inputs, outputs, spent, opdef, where)
        return True
    if not values:
        w.problems.append(f"{where}: set_value has neither ValueTensor nor values")
        return True
    theirs = np.asarray(values, dtype=np.float64).astype(to_numpy_dtype(w.dtype(x)))
    ours = np.asarray(values).astype(to_numpy_dtype(attrs.get("dtype", pb.FP32))).astype(
        theirs.dtype)
    if not np.array_equal(ours, theirs, equal_nan=True):
        w.problems.append(f"{where}: set_value's values {values} in its dtype "
                          f"{attrs.get('dtype')} are not the same numbers in Input {x!r}'s "
                          f"type, in which PIR's set_value assigns them")
        return True
    if not spent.get("shape"):
        spent["shape"] = [len(values)]
    w.mapped("pd_op.set_value", old_type, inputs, outputs, {**spent, "values": values}, opdef,
             where)
    return True


LOWERED: dict[str, Callable[..., bool]] = {
    **CONTROL_FLOW,
    "mul": _mul,
    "fill_constant": _fill_constant,
    "set_value": _set_value,
    **{entry.type: _broadcast for entry in OPS.values() if entry.fixed.get("axis") == -1},
}
