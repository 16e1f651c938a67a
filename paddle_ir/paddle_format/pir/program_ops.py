"""The PIR ops that shape a program rather than compute: parameters, data and fetch ops,
constants (pd_op.full, pd_op.full_int_array), vector regrouping (builtin.combine /
builtin.split) and shape64. translate.py hands each to its function here; everything
else goes through op_table.OPS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paddle_ir.core.dtypes import to_numpy_dtype
from paddle_ir.paddle_format.pir.document import PARAMETER_OP, Operation, ValueType
from paddle_ir.proto import framework_pb2 as pb

if TYPE_CHECKING:
    from paddle_ir.paddle_format.pir.translate import Translator

MAX_FOLDED = 4096  # a constant larger than this is never an attribute


@dataclass
class Constant:
    """A value whose elements are known when the program is read."""

    values: np.ndarray
    dtype: int
    var: str | None = None  # the variable it was written to, once an op read it as a tensor



def _parameter(t: Translator, op: Operation) -> None:
    rid, vtype = op.results[0]
    name = op.attrs["parameter_name"]
    t.declare(name, vtype, persistable=op.attrs.get("persistable", True))
    t.env[rid], t.types[rid] = name, vtype


def _data(t: Translator, op: Operation) -> None:
    name = op.attrs.get("name")
    if not isinstance(name, str) or not name or len(op.results) != 1:
        t.problems.append(f"{op.where()}: a data op needs a name and one result")
        return
    rid, vtype = op.results[0]
    t.declare(name, vtype)
    t.env[rid], t.types[rid] = name, vtype
    t.feeds.append(name)


def _fetch(t: Translator, op: Operation) -> None:
    col = op.attrs.get("col")
    if len(op.operands) != 1 or not isinstance(col, int):
        t.problems.append(f"{op.where()}: a fetch op needs one operand and a col")
        return
    value = t.value(op, 0)
    name = t.tensor(value, op.where()) if value is not None else None
    if name is not None:
        wanted = op.attrs.get("name")
        t.fetches.append((col, name, wanted if isinstance(wanted, str) and wanted else None))
    for k in range(len(op.results)):
        t.env[op.results[k][0]] = name


def _full(t: Translator, op: Operation) -> None:
    shape, value, dtype = op.attrs.get("shape"), op.attrs.get("value"), op.attrs.get("dtype")
    if (not isinstance(shape, list) or not all(isinstance(d, int) for d in shape)
            or not isinstance(value, (int, float)) or not isinstance(dtype, int)
            or dtype < 0 or len(op.results) != 1 or not _fits(value, dtype)):
        t.problems.append(f"{op.where()}: a full op needs shape (integers), value (a number "
                          f"its dtype holds) and dtype attributes and one result")
        return
    rid, vtype = op.results[0]
    numel = math.prod(shape)
    if any(d < 0 for d in shape) or numel > MAX_FOLDED:
        name = t.bind_result(op, 0)
        t.add_op("fill_constant", {}, {"Out": [name]},
                 {"shape": shape, "dtype": dtype, "value": float(value)}, op.where())
        return
    values = np.full(shape, value, dtype=to_numpy_dtype(dtype))
    t.env[rid], t.types[rid] = Constant(values, dtype), vtype


def _fits(value, dtype: int) -> bool:
    kind = to_numpy_dtype(dtype)
    if kind.kind in "iu":
        info = np.iinfo(kind)
        return bool(np.isfinite(value)) and info.min <= value <= info.max
    return True


def _full_int_array(t: Translator, op: Operation) -> None:
    value, dtype = op.attrs.get("value"), op.attrs.get("dtype", pb.INT64)
    if (not isinstance(value, list) or dtype not in (pb.INT32, pb.INT64)
            or not all(isinstance(v, int) and _fits(v, dtype) for v in value)
            or len(op.results) != 1):
        t.problems.append(f"{op.where()}: a full_int_array op needs an integer list value, "
                          f"an int32/int64 dtype and one result")
        return
    rid, vtype = op.results[0]
    t.env[rid] = Constant(np.asarray(value, dtype=to_numpy_dtype(dtype)), dtype)
    t.types[rid] = vtype


def _combine(t: Translator, op: Operation) -> None:
    values = [t.value(op, i) for i in range(len(op.operands))]
    for rid, vtype in op.results:
        t.env[rid], t.types[rid] = values, vtype


def _split(t: Translator, op: Operation) -> None:
    value = t.value(op, 0) if op.operands else None
    if not isinstance(value, list) or len(value) != len(op.results):
        if value is not None:
            t.problems.append(f"{op.where()}: splits a value that is not a vector of "
                              f"{len(op.results)}")
        for k in range(len(op.results)):
            t.bind_result(op, k)
        return
    for (rid, vtype), item in zip(op.results, value, strict=True):
        t.env[rid], t.types[rid] = item, vtype


def _shape64(t: Translator, op: Operation) -> None:
    """shape64 is shape with int64 elements: paddle-ir's shape (int32) then a cast."""
    if len(op.operands) != 1 or len(op.results) != 1:
        t.problems.append(f"{op.where()}: a shape64 op needs one operand and one result")
        for k in range(len(op.results)):
            t.bind_result(op, k)
        return
    value = t.value(op, 0)
    name = t.bind_result(op, 0)
    if value is None:
        return
    rank = len(op.results[0][1].dims) and op.results[0][1].dims[0]
    narrow = t.fresh(f"{name}.int32", ValueType("tensor", pb.INT32, (rank,)))
    t.add_op("shape", {"Input": [t.tensor(value, op.where())]}, {"Out": [narrow]}, {},
             op.where())
    t.add_op("cast", {"X": [narrow]}, {"Out": [name]},
             {"in_dtype": pb.INT32, "out_dtype": pb.INT64}, op.where())


PROGRAM_OPS = {
    PARAMETER_OP: _parameter,
    "pd_op.data": _data,
    "pd_op.feed": _data,
    "pd_op.fetch": _fetch,
    "pd_op.full": _full,
    "pd_op.full_int_array": _full_int_array,
    "builtin.combine": _combine,
    "builtin.split": _split,
    "pd_op.shape64": _shape64,
}
