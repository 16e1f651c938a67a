"""Fluid 1.7's indexing, padding, reshaping, clipping, reduction and random layers, each one
op from ops/tensor/gather_scatter.py, ops/shape_more.py, ops/math/clip.py, ops/reduce_more.py,
ops/sparse/selected_rows_ops.py or ops/tensor/fill.py, with Fluid's argument names and defaults."""

from __future__ import annotations

from paddle_ir.core.dtypes import convert_dtype, from_numpy_dtype
from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.layers.math import _reduce

__all__ = ["clip", "clip_by_norm", "crop", "crop_tensor", "expand_as", "gather", "gather_nd",
           "gaussian_random", "get_tensor_from_selected_rows", "merge_selected_rows", "pad",
           "pad2d", "pad_constant_like", "pixel_shuffle", "reduce_all", "reduce_any",
           "reduce_max", "reduce_min", "reduce_prod", "scatter", "scatter_nd", "scatter_nd_add",
           "shuffle_channel", "space_to_depth", "strided_slice", "uniform_random", "where"]


def _one(op_type: str, inputs: dict, attrs: dict | None = None, name=None, dtype=None,
         out_slot: str = "Out", stop_gradient: bool = False) -> Variable:
    helper = LayerHelper(op_type, name)
    first = next(iter(inputs.values()))
    out = helper.create_variable_for_type_inference(dtype or first.dtype,
                                                    stop_gradient=stop_gradient)
    helper.append_op(op_type, inputs=inputs, outputs={out_slot: out}, attrs=attrs)
    return out


def gather(input: Variable, index: Variable, overwrite: bool = True) -> Variable:  # noqa: A002
    """The rows input[index] (index int32/int64, [N] or [N, 1])."""
    return _one("gather", {"X": input, "Index": index}, {"overwrite": bool(overwrite)})


def gather_nd(input: Variable, index: Variable, name=None) -> Variable:  # noqa: A002
    """input[index[..., :]]: index's last dim picks input's leading coordinates."""
    return _one("gather_nd", {"X": input, "Index": index}, name=name)


def scatter(input: Variable, index: Variable, updates: Variable, name=None,  # noqa: A002
            overwrite: bool = True) -> Variable:
    """input with rows index replaced by updates (overwrite) or by their sums."""
    return _one("scatter", {"X": input, "Ids": index, "Updates": updates},
                {"overwrite": bool(overwrite)}, name)


def scatter_nd_add(ref: Variable, index: Variable, updates: Variable, name=None) -> Variable:
    """ref with updates added at the coordinates index[..., :] (duplicates accumulate)."""
    return _one("scatter_nd_add", {"X": ref, "Index": index, "Updates": updates}, name=name)


def scatter_nd(index: Variable, updates: Variable, shape, name=None) -> Variable:
    """zeros(shape) with updates added at index: scatter_nd_add into a fill_constant."""
    from paddle_ir.layers.tensor import fill_constant

    zeros = fill_constant(list(shape), updates.dtype, 0.0)
    return scatter_nd_add(zeros, index, updates, name)


def where(condition: Variable) -> Variable:
    """The int64 [n, rank] coordinates of condition's true elements (Fluid 1.7's where)."""
    return _one("where_index", {"Condition": condition}, dtype="int64", stop_gradient=True)


def pad(x: Variable, paddings, pad_value: float = 0.0, name=None) -> Variable:
    """x padded by paddings = [before_0, after_0, before_1, ...] with pad_value."""
    return _one("pad", {"X": x}, {"paddings": [int(p) for p in paddings],
                                  "pad_value": float(pad_value)}, name)


def pad_constant_like(x: Variable, y: Variable, pad_value: float = 0.0, name=None) -> Variable:
    """y padded at the end of each dim to x's shape."""
    return _one("pad_constant_like", {"X": x, "Y": y}, {"pad_value": float(pad_value)}, name,
                dtype=y.dtype)


def pad2d(input: Variable, paddings=(0, 0, 0, 0), mode: str = "constant",  # noqa: A002
          pad_value: float = 0.0, data_format: str = "NCHW", name=None) -> Variable:
    """A 4-D input padded by [top, bottom, left, right]: constant, reflect or edge."""
    return _one("pad2d", {"X": input}, {"paddings": [int(p) for p in paddings], "mode": mode,
                                        "pad_value": float(pad_value),
                                        "data_format": data_format}, name)


def _crop(op_type, x, shape, offsets, name):
    inputs, attrs = {"X": x}, {}
    if isinstance(shape, Variable):
        inputs["Y"] = shape
    elif shape is not None:
        attrs["shape"] = [int(d) for d in shape]
    if offsets is not None:
        attrs["offsets"] = [int(o) for o in offsets]
    return _one(op_type, inputs, attrs, name)


def crop(x: Variable, shape=None, offsets=None, name=None) -> Variable:
    """The box of `shape` (a list, or a Variable whose shape it is) at `offsets` (default 0s)."""
    return _crop("crop", x, shape, offsets, name)


def crop_tensor(x: Variable, shape=None, offsets=None, name=None) -> Variable:
    """As crop; a -1 in shape keeps the rest of that dim."""
    return _crop("crop_tensor", x, shape, offsets, name)


def strided_slice(input: Variable, axes, starts, ends, strides) -> Variable:  # noqa: A002
    """input[starts:ends:strides] on each of `axes`."""
    return _one("strided_slice", {"Input": input},
                {"axes": list(axes), "starts": list(starts), "ends": list(ends),
                 "strides": list(strides)})


def space_to_depth(x: Variable, blocksize: int, name=None) -> Variable:
    return _one("space_to_depth", {"X": x}, {"blocksize": int(blocksize)}, name)


def pixel_shuffle(x: Variable, upscale_factor: int) -> Variable:
    return _one("pixel_shuffle", {"X": x}, {"upscale_factor": int(upscale_factor)})


def shuffle_channel(x: Variable, group: int, name=None) -> Variable:
    return _one("shuffle_channel", {"X": x}, {"group": int(group)}, name)


def expand_as(x: Variable, target_tensor: Variable, name=None) -> Variable:
    """x tiled to target_tensor's shape (each target dim a multiple of x's)."""
    return _one("expand_as", {"X": x, "target_tensor": target_tensor}, name=name)


def clip(x: Variable, min: float, max: float, name=None) -> Variable:  # noqa: A002
    """x clipped to [min, max] (a SelectedRows stays SelectedRows)."""
    return _one("clip", {"X": x}, {"min": float(min), "max": float(max)}, name)


def clip_by_norm(x: Variable, max_norm: float, name=None) -> Variable:
    """x * max_norm / ||x||_2 when the norm exceeds max_norm, else x."""
    return _one("clip_by_norm", {"X": x}, {"max_norm": float(max_norm)}, name)


def merge_selected_rows(x: Variable, name=None) -> Variable:
    """A SelectedRows with sorted unique rows, duplicates summed."""
    return _one("merge_selected_rows", {"X": x}, name=name)


def get_tensor_from_selected_rows(x: Variable, name=None) -> Variable:
    """A SelectedRows' value tensor, [len(rows)] + dims[1:]."""
    return _one("get_tensor_from_selected_rows", {"X": x}, name=name)


def reduce_max(input: Variable, dim=None, keep_dim: bool = False, name=None):  # noqa: A002
    return _reduce("reduce_max", input, dim, keep_dim, name)


def reduce_min(input: Variable, dim=None, keep_dim: bool = False, name=None):  # noqa: A002
    return _reduce("reduce_min", input, dim, keep_dim, name)


def reduce_prod(input: Variable, dim=None, keep_dim: bool = False, name=None):  # noqa: A002
    return _reduce("reduce_prod", input, dim, keep_dim, name)


def reduce_all(input: Variable, dim=None, keep_dim: bool = False, name=None):  # noqa: A002
    """Logical and over `dim` of a bool tensor."""
    return _reduce("reduce_all", input, dim, keep_dim, name)


def reduce_any(input: Variable, dim=None, keep_dim: bool = False, name=None):  # noqa: A002
    """Logical or over `dim` of a bool tensor."""
    return _reduce("reduce_any", input, dim, keep_dim, name)


def _random(op_type: str, shape, dtype, attrs: dict) -> Variable:
    helper = LayerHelper(op_type)
    dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(op_type, outputs={"Out": out},
                     attrs={"shape": [int(d) for d in shape], "dtype": from_numpy_dtype(dtype),
                            **attrs})
    return out


def uniform_random(shape, dtype="float32", min: float = -1.0, max: float = 1.0,  # noqa: A002
                   seed: int = 0) -> Variable:
    """U[min, max) samples of `shape`, drawn each run (seed 0: a fresh seed)."""
    return _random("uniform_random", shape, dtype, {"min": float(min), "max": float(max),
                                                    "seed": int(seed)})


def gaussian_random(shape, mean: float = 0.0, std: float = 1.0, seed: int = 0,
                    dtype="float32") -> Variable:
    """N(mean, std^2) samples of `shape`, drawn each run."""
    return _random("gaussian_random", shape, dtype, {"mean": float(mean), "std": float(std),
                                                     "seed": int(seed)})
