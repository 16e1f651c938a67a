"""Ops that make tensors from attributes: fill_constant, fill, uniform_random,
gaussian_random.

    fill   Out = the `value` list (floats) cast to `dtype`, laid out in `shape`; it must
           hold exactly prod(shape) values

They take no inputs; their kernel dtype comes from the `dtype` attribute (a
DataType number). A non-zero `seed` makes the random ops deterministic; seed 0
draws fresh entropy, as in Paddle. Initializers in the startup program use them.
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.core.dtypes import DataType, convert_dtype, from_numpy_dtype, to_numpy_dtype
from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op


def check_distribution(ctx) -> None:
    """The random ops' parameters, said in the user's terms (numpy says only "scale < 0" or
    "high - low < 0"): std >= 0, min <= max."""
    attrs = ctx.attrs
    if "std" in attrs:
        ctx.enforce(attrs["std"] >= 0, lambda: f"std must be >= 0 (a standard deviation), got "
                                       f"{attrs['std']}")
    if "min" in attrs and "max" in attrs:
        ctx.enforce(attrs["min"] <= attrs["max"],
                    lambda: f"min must be <= max, got min={attrs['min']} and max={attrs['max']}")


def _infer_from_attrs(ctx):
    shape = ctx.attr("shape")
    ctx.enforce(all(d >= 0 for d in shape),
                lambda: f"shape must be fully known (no -1), got {list(shape)}")
    check_distribution(ctx)
    ctx.set_output("Out", shape, to_numpy_dtype(ctx.attr("dtype")))


fill_constant = register_op(
    "fill_constant",
    inputs=[In("ShapeTensor", "an int tensor: the shape, overrides `shape`", dispensable=True),
            In("ShapeTensorList", "int tensors [1], one per dim (Paddle 2.x: a shape that "
               "depends on the batch)", duplicable=True, dispensable=True),
            In("ValueTensor", "a one-element tensor: the value, overrides the attributes",
               dispensable=True)],
    outputs=[Out("Out")],
    attrs=[
        Attr("shape", "longs", [], "the output shape"),
        Attr("dtype", "int", DataType.FP32, "the output DataType"),
        Attr("value", "float", 0.0, "the value of every element (a float32 in the desc)"),
        Attr("str_value", "string", "", "the exact value as text; used instead of `value` "
             "when not empty (as Paddle does), so int64 2**24+1 and float64 0.1 survive"),
    ],
    key_inputs=[],
    dtype_from="attr:dtype",
    doc="Out = a tensor of `shape` and `dtype` with every element equal to `str_value` "
        "(parsed in `dtype`) when it is set, else `value`. ShapeTensor, then "
        "ShapeTensorList, override `shape`; ValueTensor overrides the value.",
)


def value_problem(value, dtype: np.dtype) -> str | None:
    """Why `value` cannot be an element of `dtype` (numpy would wrap it silently), or None.

    An integer dtype takes finite values whose integer part (Paddle truncates) is in its
    range; a float dtype takes NaN, the infinities and finite values it can represent
    without overflowing to infinity.
    """
    if dtype.kind in "iu":
        if isinstance(value, float) and not math.isfinite(value):
            return f"{value} is not a number {dtype.name} can hold"
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            return f"{value} is outside {dtype.name}'s range [{info.min}, {info.max}]"
    elif dtype.kind == "f" and math.isfinite(value):
        largest = float(np.finfo(dtype).max)
        if abs(value) > largest:
            return f"{value} overflows {dtype.name} (its largest value is {largest:g})"
    return None


@fill_constant.infer_shape
def _(ctx):
    # (BF16 is held as its raw uint16 bits: no numpy range says what it can hold)
    if not ctx.has_input("ValueTensor") and ctx.attr("dtype") != DataType.BF16:
        dtype = to_numpy_dtype(ctx.attr("dtype"))
        try:
            problem = value_problem(_constant(ctx.attrs, dtype), dtype)
        except ValueError as exc:
            problem = str(exc)
        ctx.enforce(problem is None,
                    lambda: f"the value {problem}; numpy would store another number",
                    hint="choose a value the dtype holds, or a wider dtype")
    if ctx.has_input("ShapeTensor") or ctx.has_input("ShapeTensorList"):
        count = (ctx.input_shape("ShapeTensor")[0] if ctx.has_input("ShapeTensor")
                 else ctx.input_count("ShapeTensorList"))
        ctx.set_output("Out", [-1] * max(count, 0), to_numpy_dtype(ctx.attr("dtype")))
        return
    _infer_from_attrs(ctx)


def constant_value_text(value, dtype) -> str:
    """`value` as the exact text fill_constant's `str_value` holds for `dtype`."""
    kind = np.dtype(dtype).kind
    if kind == "b":
        return "true" if value else "false"
    if kind in "iu" and math.isfinite(value):
        return str(int(value))
    return repr(float(value))  # the shortest text that reads back as the same double


def constant_attrs(shape, dtype, value) -> dict:
    """fill_constant's attributes for `value`, with the exact `str_value` beside `value`."""
    dtype = convert_dtype(dtype)
    return {"shape": [int(d) for d in shape], "dtype": from_numpy_dtype(dtype),
            "value": float(value), "str_value": constant_value_text(value, dtype)}


def _constant(attrs, dtype: np.dtype):
    text = attrs.get("str_value", "")
    if not text:
        return attrs["value"]
    if dtype.kind == "b":
        return text.strip().lower() in ("true", "1")
    try:
        if dtype.kind in "iu" and text.lstrip("+-").isdigit():
            return int(text)
        value = float(text)  # an integer dtype's "1e3", "nan": value_problem judges it
    except ValueError:
        raise ValueError(f"str_value {text[:40]!r} is not a number") from None
    return int(value) if dtype.kind in "iu" and math.isfinite(value) else value


@fill_constant.kernel(dtypes=ALL_DTYPES)
def fill_constant_kernel(attrs, shape_tensor=None, shape_list=None, value_tensor=None):
    dtype = to_numpy_dtype(attrs["dtype"])
    if shape_tensor is not None:
        shape, where = [int(d) for d in np.asarray(shape_tensor).reshape(-1)], "ShapeTensor"
    elif shape_list:
        shape = [int(np.asarray(t).reshape(-1)[0]) for t in shape_list]
        where = "ShapeTensorList"
    else:
        shape, where = attrs["shape"], "its shape attribute"
    check_allocation("fill_constant", shape, dtype, where)
    if value_tensor is not None:
        value = np.asarray(value_tensor).reshape(-1)[0].item()
        problem = (value_problem(value, dtype) if isinstance(value, (int, float))
                   and attrs["dtype"] != DataType.BF16 else None)
        if problem is not None:
            raise KernelError(f"fill_constant: ValueTensor holds {problem}; numpy would store "
                              f"another number")
        return np.full(shape, value, dtype=dtype)
    return np.full(shape, _constant(attrs, dtype), dtype=dtype)


fill = register_op(
    "fill",
    outputs=[Out("Out", "the values, shaped `shape`")],
    attrs=[Attr("value", "floats", [], "the values, row-major"),
           Attr("shape", "ints", [], "the output shape"),
           Attr("dtype", "int", int(DataType.FP32), "the output DataType"),
           Attr("force_cpu", "bool", False, "kept for Paddle programs (one place here)")],
    dtype_from="attr:dtype",
    doc=__doc__,
)


@fill.infer_shape
def _(ctx):
    shape, values = list(ctx.attr("shape")), ctx.attr("value")
    ctx.enforce(all(d >= 0 for d in shape),
                lambda: f"shape must be fully known (no -1), got {shape}")
    ctx.enforce(len(values) == math.prod(shape),
                lambda: f"value holds {len(values)} numbers, but shape {shape} needs "
                f"{math.prod(shape)}")
    ctx.set_output("Out", shape, to_numpy_dtype(ctx.attr("dtype")))


@fill.kernel(storage=[], dtypes=ALL_DTYPES)
def fill_kernel(attrs):
    dtype = to_numpy_dtype(attrs["dtype"])
    # Paddle stores the values as float32 and casts each one to the output type
    values = np.asarray(attrs["value"], np.float32)
    return values.astype(dtype).reshape(attrs["shape"])


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed if seed else None)


uniform_random = register_op(
    "uniform_random",
    outputs=[Out("Out")],
    attrs=[
        Attr("shape", "longs", [], "the output shape"),
        Attr("dtype", "int", DataType.FP32, "the output DataType"),
        Attr("min", "float", -1.0, "inclusive lower bound"),
        Attr("max", "float", 1.0, "exclusive upper bound"),
        Attr("seed", "int", 0, "0: random; otherwise a fixed seed"),
    ],
    dtype_from="attr:dtype",
    doc="Out ~ U[min, max), elementwise.",
)
uniform_random.infer_shape(_infer_from_attrs)


@uniform_random.kernel(dtypes=FLOATS)
def uniform_random_kernel(attrs):
    dtype = to_numpy_dtype(attrs["dtype"])
    check_allocation("uniform_random", attrs["shape"], np.float64, "its shape attribute")
    values = _rng(attrs["seed"]).uniform(attrs["min"], attrs["max"], size=attrs["shape"])
    return values.astype(dtype)


gaussian_random = register_op(
    "gaussian_random",
    outputs=[Out("Out")],
    attrs=[
        Attr("shape", "longs", [], "the output shape"),
        Attr("dtype", "int", DataType.FP32, "the output DataType"),
        Attr("mean", "float", 0.0),
        Attr("std", "float", 1.0),
        Attr("seed", "int", 0, "0: random; otherwise a fixed seed"),
    ],
    dtype_from="attr:dtype",
    doc="Out ~ N(mean, std^2), elementwise.",
)
gaussian_random.infer_shape(_infer_from_attrs)


@gaussian_random.kernel(dtypes=FLOATS)
def gaussian_random_kernel(attrs):
    dtype = to_numpy_dtype(attrs["dtype"])
    check_allocation("gaussian_random", attrs["shape"], np.float64, "its shape attribute")
    values = _rng(attrs["seed"]).normal(attrs["mean"], attrs["std"], size=attrs["shape"])
    return values.astype(dtype)


fill_constant_batch_size_like = register_op(
    "fill_constant_batch_size_like",
    inputs=[In("Input", "the tensor whose batch size Out takes")],
    outputs=[Out("Out")],
    attrs=[
        Attr("shape", "ints", [], "the output shape; its output_dim_idx entry is replaced"),
        Attr("dtype", "int", DataType.FP32, "the output DataType"),
        Attr("value", "float", 0.0, "the value of every element"),
        Attr("input_dim_idx", "int", 0, "the dim of Input to copy"),
        Attr("output_dim_idx", "int", 0, "the dim of Out it becomes"),
    ],
    key_inputs=[],
    dtype_from="attr:dtype",
    doc="Out = `value` everywhere, of `shape` with shape[output_dim_idx] = "
        "Input.shape[input_dim_idx] (a state as large as the batch). No gradient flows.",
)


@fill_constant_batch_size_like.infer_shape
def _(ctx):
    shape = list(ctx.attr("shape"))
    in_shape = ctx.input_shape("Input")
    i, o = ctx.attr("input_dim_idx"), ctx.attr("output_dim_idx")
    ctx.enforce(0 <= i < len(in_shape) and 0 <= o < len(shape),
                lambda: f"input_dim_idx {i} and output_dim_idx {o} must index Input "
                f"{list(in_shape)} and shape {shape}")
    shape[o] = in_shape[i]
    ctx.set_output("Out", shape, to_numpy_dtype(ctx.attr("dtype")))


@fill_constant_batch_size_like.kernel(storage=[], dtypes=ALL_DTYPES)
def fill_constant_batch_size_like_kernel(attrs, x):
    shape = list(attrs["shape"])
    shape[attrs["output_dim_idx"]] = x.shape[attrs["input_dim_idx"]]
    check_allocation("fill_constant_batch_size_like", shape, to_numpy_dtype(attrs["dtype"]),
                     "its shape attribute and Input's batch size")
    return np.full(shape, attrs["value"], dtype=to_numpy_dtype(attrs["dtype"]))


@fill_constant_batch_size_like.grad_maker
def _(g):
    return []
