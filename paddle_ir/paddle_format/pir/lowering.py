"""Old-IR idioms PIR spells with other ops, rewritten as Paddle's own translator does
(paddle/fluid/ir_adaptor/translator/op_translator.cc): what write.py does before it
looks an op up in op_table.

- `mul` (Fluid's fc: X flattened to 2-D at x_num_col_dims) -> pd_op.matmul, after a
  reshape of X when its trailing dims are more than one;
- binary elementwise ops with an `axis` other than numpy's trailing alignment -> Y
  unsqueezed to line up at `axis`, then the op with axis -1;
- `fill_constant` -> pd_op.full; with a shape known at run time, the value as a
  pd_op.full then the table's pd_op.full_with_tensor.

Each function returns True when it wrote the op (or recorded why it cannot), False to
let write.py map it through the table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

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
    """Fluid aligns Y with X at `axis`; numpy (and PIR) at the trailing dims."""
    axis = attrs.get("axis", -1)
    x, y = inputs.get("X", [None])[0], inputs.get("Y", [None])[0]
    if axis == -1 or x is None or y is None:
        return _plain(w, old_type, inputs, outputs, attrs, where)
    xrank, yrank = len(w.dims(x)), len(w.dims(y))
    if axis < 0:
        axis += xrank
    trailing = xrank - axis - yrank
    if trailing < 0:
        w.problems.append(f"{where}: axis {attrs['axis']} puts Y (rank {yrank}) past the end "
                          f"of X (rank {xrank})")
        return True
    if trailing > 0 and yrank < xrank:
        ydims = w.dims(y)
        lined = w.scratch(f"{y}.at_axis{axis}", w.dtype(y), [*ydims, *[1] * trailing])
        w.mapped("pd_op.unsqueeze", "unsqueeze2", {"X": [y]}, {"Out": [lined]},
                 {"axes": list(range(yrank, yrank + trailing))},
                 op_registry.get_op_def("unsqueeze2"), where)
        inputs = {**inputs, "Y": [lined]}
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


LOWERED: dict[str, Callable[..., bool]] = {
    **CONTROL_FLOW,
    "mul": _mul,
    "fill_constant": _fill_constant,
    **{entry.type: _broadcast for entry in OPS.values() if entry.fixed.get("axis") == -1},
}
