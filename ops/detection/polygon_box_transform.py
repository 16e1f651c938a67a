"""polygon_box_transform: EAST's geometry map from offsets to absolute coordinates.

Input [N, G, H, W] (G even: x, y offsets of a polygon's vertices, in 1/4 pixels of the
map); Output[n, g, h, w] = 4 w - Input[n, g, h, w] for even g (x), 4 h - Input[...] for
odd g (y). No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, In, Out, register_op

polygon_box_transform = register_op(
    "polygon_box_transform",
    inputs=[In("Input", "[N, G, H, W], G even: x, y offsets")],
    outputs=[Out("Output", "[N, G, H, W]")],
    doc=__doc__,
)


@polygon_box_transform.infer_shape
def _(ctx):
    x = ctx.input_shape("Input")
    ctx.enforce(len(x) == 4, lambda: f"Input must be [N, G, H, W], got {shape_str(x)}")
    ctx.enforce(x[1] < 0 or x[1] % 2 == 0, lambda:
                f"Input must have an even number of geometry channels (x, y pairs), got {x[1]}")
    ctx.set_output("Output", x, ctx.input_dtype("Input"))


@polygon_box_transform.kernel(dtypes=FLOATS)
def polygon_box_transform_kernel(attrs, x):
    _, g, h, w = x.shape
    grid = np.empty((g, h, w), x.dtype)
    grid[0::2] = 4 * np.arange(w, dtype=x.dtype)[None, None, :]
    grid[1::2] = 4 * np.arange(h, dtype=x.dtype)[None, :, None]
    return grid[None] - x
