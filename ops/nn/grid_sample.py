"""Sampling an image at a grid of points (+ grads):

    affine_grid      Output[n, h, w] = Theta[n] @ [x_w, y_h, 1], with x, y on linspace(-1, 1)
                     over W and H (corners aligned); dTheta sums dOutput outer the base grid
    grid_sampler     Output[n, c, i, j] = bilinear sample of X[n, c] at Grid[n, i, j] = (x, y) in
                     [-1, 1], pixel (x + 1)(W - 1) / 2, (y + 1)(H - 1) / 2; zeros outside
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple

# -- affine_grid -----------------------------------------------------------------------------

def _base_grid(h: int, w: int) -> np.ndarray:
    ys, xs = np.meshgrid(np.linspace(-1, 1, h), np.linspace(-1, 1, w), indexing="ij")
    return np.stack([xs, ys, np.ones_like(xs)], axis=-1)  # [H, W, 3]


def _out_hw(attrs, shape_input):
    shape = (list(np.asarray(shape_input).reshape(-1)) if shape_input is not None
             else list(attrs["output_shape"]))
    if len(shape) != 4:
        raise KernelError(f"affine_grid: the output shape must be [N, C, H, W], got {shape}")
    h, w = int(shape[2]), int(shape[3])
    if h <= 0 or w <= 0:
        raise KernelError(f"affine_grid: the output height and width must be positive, got "
                          f"{[int(d) for d in shape]} (output_shape or OutputShape)")
    # OutputShape's values size the grid: InferShape cannot know them. [H, W, 3] float64
    # is the base grid, at least as large as one sample's output.
    check_allocation("affine_grid", (h, w, 3), np.float64, "output_shape or OutputShape")
    return h, w


def _affine_grid(attrs, theta, shape):
    h, w = _out_hw(attrs, shape)
    check_allocation("affine_grid", (theta.shape[0], h, w, 2), theta.dtype,
                     "output_shape or OutputShape and Theta's batch size")
    return np.einsum("hwk,njk->nhwj", _base_grid(h, w), theta).astype(theta.dtype)


def _affine_grid_grad(attrs, theta, shape, dout):
    h, w = _out_hw(attrs, shape)
    return np.einsum("nhwj,hwk->njk", dout, _base_grid(h, w)).astype(theta.dtype)


def _infer_affine_grid(ctx):
    theta = ctx.input_shape("Theta")
    ctx.enforce(len(theta) == 3 and list(theta[1:]) in ([2, 3], [-1, 3], [2, -1], [-1, -1]),
                lambda: f"Theta must be [N, 2, 3], got {list(theta)}")
    shape = list(ctx.attr("output_shape"))
    h, w = (shape[2], shape[3]) if len(shape) == 4 else (-1, -1)
    ctx.enforce(len(shape) == 4 or ctx.has_input("OutputShape"),
                "give output_shape [N, C, H, W] or an OutputShape input")
    ctx.set_output("Output", (theta[0], h, w, 2), ctx.input_dtype("Theta"))


register_simple(
    "affine_grid", [In("Theta", "[N, 2, 3]"),
                    In("OutputShape", "int [4] (else the attribute)", dispensable=True)],
    [Out("Output", "[N, H, W, 2] sampling grid")],
    [Attr("output_shape", "ints", [], "[N, C, H, W]")], _infer_affine_grid, _affine_grid,
    backward=_affine_grid_grad, wrt=["Theta"], out_slot="Output", doc=__doc__)


# -- grid_sampler ----------------------------------------------------------------------------

def _corners(x_shape, grid):
    h, w = x_shape[2], x_shape[3]
    px = (grid[..., 0] + 1) * (w - 1) / 2
    py = (grid[..., 1] + 1) * (h - 1) / 2
    x0, y0 = np.floor(px).astype(np.int64), np.floor(py).astype(np.int64)
    fx, fy = px - x0, py - y0
    corners = []
    for dy, dx, wy, wx in ((0, 0, 1 - fy, 1 - fx), (0, 1, 1 - fy, fx), (1, 0, fy, 1 - fx),
                           (1, 1, fy, fx)):
        yy, xx = y0 + dy, x0 + dx
        inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        corners.append((np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1), wy * wx * inside,
                        inside, dy, dx))
    return corners, fx, fy


def _gather(x, yy, xx):
    """x [N, C, H, W] at per-sample positions [N, H', W'] -> [N, C, H', W']."""
    n = np.arange(x.shape[0])[:, None, None]
    return x[n, :, yy, xx].transpose(0, 3, 1, 2)


def _grid_sample(attrs, x, grid):
    corners, _, _ = _corners(x.shape, grid)
    out = np.zeros((x.shape[0], x.shape[1]) + grid.shape[1:3], dtype=x.dtype)
    for yy, xx, weight, _, _, _ in corners:
        out += _gather(x, yy, xx) * weight[:, None]
    return out


def _grid_sample_grad(attrs, x, grid, dout):
    corners, fx, fy = _corners(x.shape, grid)
    h, w = x.shape[2], x.shape[3]
    dx = np.zeros_like(x)
    dgrid = np.zeros_like(grid)
    n = np.arange(x.shape[0])[:, None, None]
    for yy, xx, weight, inside, oy, ox in corners:
        contrib = dout * weight[:, None]  # [N, C, H', W']
        np.add.at(dx.transpose(0, 2, 3, 1), (n, yy, xx), contrib.transpose(0, 2, 3, 1))
        value = (_gather(x, yy, xx) * dout).sum(axis=1) * inside  # [N, H', W']
        # d weight / d px and d py for this corner
        dwx = (1 if ox else -1) * (fy if oy else 1 - fy)
        dwy = (1 if oy else -1) * (fx if ox else 1 - fx)
        dgrid[..., 0] += value * dwx * (w - 1) / 2
        dgrid[..., 1] += value * dwy * (h - 1) / 2
    return dx, dgrid


def _infer_grid_sampler(ctx):
    x, grid = ctx.input_shape("X"), ctx.input_shape("Grid")
    ctx.enforce(len(x) == 4 and len(grid) == 4 and grid[3] in (2, -1), lambda:
                f"X [N, C, H, W] and Grid [N, H', W', 2] expected, got {list(x)}, {list(grid)}")
    ctx.set_output("Output", (x[0], x[1], grid[1], grid[2]), ctx.input_dtype("X"))


register_simple(
    "grid_sampler", [In("X", "[N, C, H, W]"), In("Grid", "[N, H', W', 2] in [-1, 1]")],
    [Out("Output", "[N, C, H', W']")], [], _infer_grid_sampler, _grid_sample,
    backward=_grid_sample_grad, wrt=["X", "Grid"], out_slot="Output", doc=__doc__)
