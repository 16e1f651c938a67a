"""Element types: the schema's `DataType` numbers and their numpy dtypes.

numpy has no bfloat16, and PaddlePaddle has no uint16, so BF16 tensors are
held as `np.uint16` arrays of raw bfloat16 bits: the mapping stays one to one
and the bytes stay exactly Paddle's.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import DataTypeError
from paddle_ir.proto import framework_pb2 as pb

DataType = pb.DataType

_TO_NUMPY: dict[int, np.dtype] = {
    pb.BOOL: np.dtype(np.bool_),
    pb.INT16: np.dtype(np.int16),
    pb.INT32: np.dtype(np.int32),
    pb.INT64: np.dtype(np.int64),
    pb.FP16: np.dtype(np.float16),
    pb.FP32: np.dtype(np.float32),
    pb.FP64: np.dtype(np.float64),
    pb.UINT8: np.dtype(np.uint8),
    pb.INT8: np.dtype(np.int8),
    pb.BF16: np.dtype(np.uint16),
    pb.COMPLEX64: np.dtype(np.complex64),
    pb.COMPLEX128: np.dtype(np.complex128),
}
_FROM_NUMPY: dict[np.dtype, int] = {v: k for k, v in _TO_NUMPY.items()}

# Names users write in layers (`dtype="float32"`), as Paddle accepts them.
_ALIASES = {"bfloat16": pb.BF16, "bf16": pb.BF16, "fp32": pb.FP32, "fp64": pb.FP64,
            "fp16": pb.FP16, "float": pb.FP32, "double": pb.FP64}


def to_numpy_dtype(data_type: int) -> np.dtype:
    """The numpy dtype that holds elements of schema type `data_type`."""
    try:
        return _TO_NUMPY[data_type]
    except KeyError:
        raise DataTypeError(
            f"unknown DataType {data_type}; expected one of "
            f"{sorted(_TO_NUMPY)} ({', '.join(DataType.Name(k) for k in sorted(_TO_NUMPY))})"
        ) from None


def from_numpy_dtype(dtype) -> int:
    """The schema DataType of a numpy dtype (or anything np.dtype accepts)."""
    dt = np.dtype(dtype)
    try:
        return _FROM_NUMPY[dt]
    except KeyError:
        raise DataTypeError(
            f"numpy dtype {dt} has no paddle-ir DataType; supported: "
            f"{', '.join(str(d) for d in _FROM_NUMPY)}"
        ) from None


def convert_dtype(dtype) -> np.dtype:
    """Normalise a user's dtype (str, numpy dtype, or DataType number) to numpy."""
    if isinstance(dtype, str) and dtype.lower() in _ALIASES:
        return _TO_NUMPY[_ALIASES[dtype.lower()]]
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool):
        return to_numpy_dtype(int(dtype))
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise DataTypeError(f"cannot understand dtype {dtype!r}") from None
    from_numpy_dtype(dt)  # reject dtypes the schema cannot describe
    return dt


def dtype_name(dtype) -> str:
    """A short name for messages and dumps: 'float32', 'int64', 'bfloat16'."""
    dt = np.dtype(dtype)
    return "bfloat16" if dt == np.uint16 else dt.name


def element_size(data_type: int) -> int:
    return to_numpy_dtype(data_type).itemsize


FLOAT_DTYPES = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))


class FluidVarDesc:
    """Fluid's `core.VarDesc.VarType` names (dtype=fluid.core.VarDesc.VarType.FP32).

    The element types are this schema's DataType numbers (Paddle's own), which
    every `dtype=` argument accepts; LOD_TENSOR and SELECTED_ROWS are this
    schema's variable types.
    """

    class VarType:
        pass


for _name in ("BOOL", "INT16", "INT32", "INT64", "FP16", "FP32", "FP64", "UINT8", "INT8",
              "BF16", "COMPLEX64", "COMPLEX128"):
    setattr(FluidVarDesc.VarType, _name, getattr(pb, _name))
FluidVarDesc.VarType.LOD_TENSOR = pb.VarDesc.LOD_TENSOR
FluidVarDesc.VarType.SELECTED_ROWS = pb.VarDesc.SELECTED_ROWS
