"""Storage rule and SELECTED_ROWS kernels of elementwise_add / _sub / _mul.

    X             Y             add, sub                 mul              div
    SELECTED_ROWS SELECTED_ROWS SELECTED_ROWS (merged)   SELECTED_ROWS    dense (fallback)
    SELECTED_ROWS dense         dense (rows added in)    SR if Y has one  dense (fallback)
                                                         element, else dense
    dense         SELECTED_ROWS dense (rows added in)    dense (fallback) dense (fallback)

Zero rows stay zero under +, - and * of two row-sparse operands, so those
stay SELECTED_ROWS (MXNet's elemwise_add(rsp, rsp) -> rsp); an operand that is
dense everywhere makes Out dense (`a + ones`). The mixed add/sub kernels start
from the dense operand and add the stored rows in, never densifying the
sparse one. A SELECTED_ROWS operand that a sparse kernel reads is never
broadcast: its shape must be Out's. Every other mix (div, mul with a dense
operand, CSR operands) runs through the op's densify fallback.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from paddle_ir.core.kinds import STYPE_SELECTED_ROWS
from paddle_ir.core.segments import merge_rows
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.broadcast import aligned_y_shape, broadcast_shapes
from paddle_ir.ops.context import LOD_TENSOR, SELECTED_ROWS, dims_match, shape_str
from paddle_ir.ops.registry import DENSE
from paddle_ir.ops.storage import unique_rows

# Ops whose (SELECTED_ROWS, SELECTED_ROWS) result is SELECTED_ROWS, and ops with
# kernels for one SELECTED_ROWS operand beside a dense one.
SPARSE_PAIR_OPS = ("elementwise_add", "elementwise_sub", "elementwise_mul")
MIXED_OPS = ("elementwise_add", "elementwise_sub")


def storage_rule(op_type: str):
    """The var-type rule of `op_type`: Out is SELECTED_ROWS iff both operands are and the
    op keeps zeros zero."""

    def infer_var_type(ctx):
        x_sr = ctx.input_var_type("X") == SELECTED_ROWS
        y_sr = ctx.input_var_type("Y") == SELECTED_ROWS
        both = x_sr and y_sr and op_type in SPARSE_PAIR_OPS
        if op_type == "elementwise_mul" and x_sr and not y_sr and _one_element(ctx, "Y"):
            ctx.set_output_type("Out", SELECTED_ROWS)  # rows times a scalar: still row-sparse
            return
        if both or ((x_sr or y_sr) and op_type in MIXED_OPS):
            _check_not_broadcast(ctx, [s for s, sr in (("X", x_sr), ("Y", y_sr)) if sr])
        ctx.set_output_type("Out", SELECTED_ROWS if both else LOD_TENSOR)

    return infer_var_type


def _one_element(ctx, slot: str) -> bool:
    shape = ctx.input_shape(slot)
    return all(d == 1 for d in shape)


def _check_not_broadcast(ctx, slots) -> None:
    out = broadcast_shapes(ctx.input_shape("X"), ctx.input_shape("Y"), ctx.attr("axis"))
    if isinstance(out, str):
        return  # InferShape reports shapes that do not broadcast at all
    for slot in slots:
        shape = ctx.input_shape(slot)
        if len(shape) != len(out) or not all(dims_match(a, b) for a, b in zip(shape, out,
                                                                             strict=True)):
            ctx.fail_var_type(
                f"{slot} is SELECTED_ROWS, so it must have Out's shape {shape_str(out)} (a "
                f"row-sparse operand is never broadcast), got {slot}.shape={shape_str(shape)}",
                hint=f"cast_storage({slot.lower()}, 'dense') first")


def _aligned(y: np.ndarray, x_ndim: int, axis: int) -> np.ndarray:
    if axis == -1 or y.ndim == x_ndim:
        return y
    return y.reshape(aligned_y_shape(x_ndim, y.shape, axis))


def _merged(rows, value, height) -> SelectedRows:
    rows, value = merge_rows(rows, value)
    return SelectedRows.unchecked(rows, value, height)


def add_sr_sr(attrs, x: SelectedRows, y: SelectedRows) -> SelectedRows:
    return _merged(np.concatenate([x.rows, y.rows]), np.concatenate([x.value, y.value]),
                   x.height)


def sub_sr_sr(attrs, x: SelectedRows, y: SelectedRows) -> SelectedRows:
    return _merged(np.concatenate([x.rows, y.rows]), np.concatenate([x.value, -y.value]),
                   x.height)


def mul_sr_sr(attrs, x: SelectedRows, y: SelectedRows) -> SelectedRows:
    """Only rows stored in both operands can be non-zero."""
    xm, ym = unique_rows(x), unique_rows(y)
    rows, xi, yi = np.intersect1d(xm.rows, ym.rows, assume_unique=True, return_indices=True)
    return SelectedRows.unchecked(rows.astype(np.int64, copy=False), xm.value[xi] * ym.value[yi],
                              x.height)


def mul_sr_dense(attrs, x: SelectedRows, y: np.ndarray):
    """A SelectedRows times a one-element tensor stays row-sparse (gradient clipping scales
    sparse gradients so); any other dense Y gives the dense product."""
    if y.size == 1:
        return SelectedRows.unchecked(x.rows, x.value * y.reshape(()), x.height)
    return x.to_dense() * _aligned(y, len(x.shape), attrs["axis"])


def _mixed(name: str, sign_sparse: int, sparse_is_x: bool, negate_dense: bool) -> Callable:
    """(+/-) dense (+/-) stored rows, for one SelectedRows operand and one dense operand."""

    def kernel(attrs, x, y):
        sr, dense = (x, y) if sparse_is_x else (y, x)
        out = np.empty(sr.shape, dtype=sr.dtype)
        if sparse_is_x:
            dense = _aligned(dense, len(sr.shape), attrs["axis"])
        out[...] = -dense if negate_dense else dense
        merged = unique_rows(sr)
        if sign_sparse > 0:
            out[merged.rows] += merged.value
        else:
            out[merged.rows] -= merged.value
        return out

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def sparse_kernels(op_type: str) -> dict[tuple[str, str], Callable]:
    """{(X storage, Y storage): kernel} for the sparse combinations `op_type` computes."""
    sr, dense = STYPE_SELECTED_ROWS, DENSE
    if op_type == "elementwise_add":
        return {(sr, sr): add_sr_sr,
                (sr, dense): _mixed("add_sr_dense", +1, True, False),
                (dense, sr): _mixed("add_dense_sr", +1, False, False)}
    if op_type == "elementwise_sub":
        return {(sr, sr): sub_sr_sr,
                (sr, dense): _mixed("sub_sr_dense", +1, True, True),
                (dense, sr): _mixed("sub_dense_sr", -1, False, False)}
    if op_type == "elementwise_mul":
        return {(sr, sr): mul_sr_sr, (sr, dense): mul_sr_dense}
    return {}
