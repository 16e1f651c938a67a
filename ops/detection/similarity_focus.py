"""similarity_focus: for each index, the slice of X at it along `axis` is scanned greedily
for its largest remaining value whose row and column are both unused; every chosen (row, col)
is set to 1 across the axis (the masks of all indexes are OR-ed). No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _focus_2d(t: np.ndarray) -> np.ndarray:
    """The greedy row/column-exclusive picks of the largest values of a matrix."""
    mask = np.zeros(t.shape, dtype=bool)
    work = t.astype(np.float64).copy()
    for _ in range(min(t.shape)):
        r, c = np.unravel_index(np.argmax(work), work.shape)
        mask[r, c] = True
        work[r, :] = -np.inf
        work[:, c] = -np.inf
    return mask


def _similarity_focus(attrs, x):
    axis = attrs["axis"]
    out = np.zeros_like(x)
    moved = np.moveaxis(x, axis, 1)  # [N, A, B, C] with the focus axis at 1
    out_m = np.moveaxis(out, axis, 1)
    for n in range(x.shape[0]):
        union = np.zeros(moved.shape[2:], dtype=bool)
        for index in attrs["indexes"]:
            if not 0 <= index < moved.shape[1]:
                raise KernelError(f"similarity_focus: index {index} is out of range for "
                                  f"axis {axis} of size {moved.shape[1]}")
            union |= _focus_2d(moved[n, index])
        out_m[n, :, union] = 1
    return out


def _infer_focus(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 4, lambda: f"X must be 4-D, got {list(x)}")
    ctx.enforce(ctx.attr("axis") in (1, 2, 3),
                lambda: f"axis must be 1, 2 or 3, got {ctx.attr('axis')}")
    ctx.enforce(len(ctx.attr("indexes")) > 0, "indexes must not be empty")
    ctx.set_output("Out", x, ctx.input_dtype("X"))


register_simple(
    "similarity_focus", [In("X", "[N, A, B, C]")], [Out("Out", "a 0/1 mask of X's shape")],
    [Attr("axis", "int", 1, "1, 2 or 3"), Attr("indexes", "ints", [], "slices along axis")],
    _infer_focus, _similarity_focus, doc=__doc__)
