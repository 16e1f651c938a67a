"""Fluid's filled and repeated tensors: zeros, ones, zeros_like, sums, expand and unstack."""

from __future__ import annotations

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.layers.tensor import fill_constant

__all__ = ["expand", "ones", "sums", "unstack", "zeros", "zeros_like"]


def zeros(shape, dtype, force_cpu: bool = False) -> Variable:
    """A tensor of `shape` filled with 0 (force_cpu is accepted for Fluid's sake)."""
    return fill_constant(shape=shape, dtype=dtype, value=0.0, force_cpu=force_cpu)


def ones(shape, dtype, force_cpu: bool = False) -> Variable:
    """A tensor of `shape` filled with 1."""
    return fill_constant(shape=shape, dtype=dtype, value=1.0, force_cpu=force_cpu)


def zeros_like(x: Variable, out: Variable | None = None) -> Variable:
    """Zeros of x's shape and dtype (written into `out` when given)."""
    helper = LayerHelper("zeros_like")
    if out is None:
        out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("fill_any_like", inputs={"X": x}, outputs={"Out": out},
                     attrs={"value": 0.0, "dtype": -1})
    return out


def sums(input, out: Variable | None = None) -> Variable:  # noqa: A002
    """The elementwise sum of the list `input` (one `sum` op; into `out` when given)."""
    helper = LayerHelper("sum")
    inputs = list(input) if isinstance(input, (list, tuple)) else [input]
    if out is None:
        out = helper.create_variable_for_type_inference(inputs[0].dtype)
    helper.append_op("sum", inputs={"X": inputs}, outputs={"Out": out})
    return out


def expand(x: Variable, expand_times, name: str | None = None) -> Variable:
    """x tiled expand_times[i] times along each dim i (op `expand`)."""
    helper = LayerHelper("expand", name)
    times = [int(t) for t in expand_times]
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("expand", inputs={"X": x}, outputs={"Out": out},
                     attrs={"expand_times": times})
    return out


def unstack(x: Variable, axis: int = 0, num: int | None = None) -> list[Variable]:
    """The slices of x along `axis`, that dim removed (num: their count, else x.shape[axis])."""
    helper = LayerHelper("unstack")
    rank = len(x.shape)
    axis = axis + rank if axis < 0 else axis
    if num is None:
        if not 0 <= axis < rank or x.shape[axis] < 0:
            raise InvalidProgramError(
                f"unstack needs num, or a known dim {axis} of {x.name!r} (shape "
                f"{list(x.shape)})")
        num = x.shape[axis]
    outs = [helper.create_variable_for_type_inference(x.dtype) for _ in range(num)]
    helper.append_op("unstack", inputs={"X": x}, outputs={"Y": outs},
                     attrs={"axis": axis, "num": int(num)})
    return outs
