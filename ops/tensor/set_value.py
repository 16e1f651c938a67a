"""set_value (+ _grad): slice assignment, `x[slices] = value` in a static graph
(paddle.static.setitem, Tensor.__setitem__).

    Out = Input, then Out[s_0, ..., s_n] = value broadcast to that region

where the region slices dim axes[k] as starts[k]:ends[k]:steps[k] (Python's rules:
negative counts from the end, out-of-range bounds clamp) and takes every entry of the
other dims. `value` is ValueTensor when bound, else the attribute values (Paddle 3.x: the
`values` list, written as SCALARS; older programs: the one of bool_values, fp32_values,
int32_values, int64_values, fp64_values that is set) reshaped to `shape`. A value is
shaped like the region without its decrease_axes (dims indexed by an integer) and with
unit dims at none_axes (None in the index). StartsTensorList, EndsTensorList and
StepsTensorList, when bound, override the matching attribute.

    dInput = dOut with the region zeroed;  dValueTensor = dOut's region summed to its shape
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import DataType, to_numpy_dtype
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.tensor.expand_v2 import sum_to_shape

_VALUE_ATTRS = ("values", "bool_values", "fp32_values", "int32_values", "int64_values",
                "fp64_values")
_ATTRS = [
    Attr("axes", "longs", [], "the sliced dims"),
    Attr("starts", "longs", [], "per sliced dim: the first index"),
    Attr("ends", "longs", [], "per sliced dim: the end (exclusive; clamps)"),
    Attr("steps", "longs", [], "per sliced dim: the stride (default 1)"),
    Attr("decrease_axes", "longs", [], "sliced dims indexed by an integer: absent in value"),
    Attr("none_axes", "longs", [], "unit dims the index adds (None): value may carry them"),
    Attr("dtype", "int", DataType.FP32, "the DataType of the attribute values"),
    Attr("shape", "longs", [], "the shape of the attribute values"),
    Attr("values", "float64s", [], "the value (Paddle 3.x stores SCALARS)"),
    Attr("bool_values", "ints", [], "the value (older programs): 0 and 1, as Paddle's ints"),
    Attr("fp32_values", "floats", [], "the value (older programs)"),
    Attr("int32_values", "ints", [], "the value (older programs)"),
    Attr("int64_values", "longs", [], "the value (older programs)"),
    Attr("fp64_values", "float64s", [], "the value (older programs)"),
]

set_value = register_op(
    "set_value",
    inputs=[In("Input"), In("ValueTensor", "the value, when not given as attributes",
                            dispensable=True),
            In("StartsTensorList", "int tensors [1]: starts", duplicable=True, dispensable=True),
            In("EndsTensorList", "int tensors [1]: ends", duplicable=True, dispensable=True),
            In("StepsTensorList", "int tensors [1]: steps", duplicable=True, dispensable=True)],
    outputs=[Out("Out", "Input with the region assigned")],
    attrs=_ATTRS,
    key_inputs=["Input"],
    doc=__doc__,
)


@set_value.infer_shape
def _(ctx):
    x = ctx.input_shape("Input")
    axes = list(ctx.attr("axes"))
    for name in ("starts", "ends", "steps"):
        given = list(ctx.attr(name))
        ctx.enforce(not given or len(given) == len(axes) or ctx.has_input(
            name.capitalize() + "TensorList"),
            lambda: f"{name} must hold one entry per axis ({len(axes)}), got {given}")
    for a in axes:
        ctx.enforce(-len(x) <= a < len(x), lambda: f"axes holds {a}, outside X's {len(x)} dims")
    ctx.set_output("Out", x, ctx.input_dtype("Input"))


def _ints(tensors, attr) -> list[int]:
    if tensors:
        return [int(np.asarray(t).reshape(-1)[0]) for t in tensors]
    return [int(v) for v in attr]


def region(attrs, shape, starts_t=None, ends_t=None, steps_t=None) -> tuple:
    """The index tuple of the assigned region of a tensor of `shape`."""
    axes = [int(a) % len(shape) for a in attrs["axes"]]
    starts, ends = _ints(starts_t, attrs["starts"]), _ints(ends_t, attrs["ends"])
    steps = _ints(steps_t, attrs["steps"]) or [1] * len(axes)
    if not len(starts) == len(ends) == len(steps) == len(axes):
        raise ValueError(f"set_value: starts {starts}, ends {ends} and steps {steps} must "
                         f"each hold one entry per axis in {axes}")
    if 0 in steps:
        raise ValueError(f"set_value: steps must not be 0, got {steps}")
    index = [slice(None)] * len(shape)
    for a, s, e, st in zip(axes, starts, ends, steps, strict=True):
        index[a] = slice(s, e, st)
    return tuple(index)


def _attr_value(attrs) -> np.ndarray:
    dtype = to_numpy_dtype(attrs["dtype"])
    values = next((attrs[n] for n in _VALUE_ATTRS if len(attrs[n])), [])
    return np.asarray(values, dtype=dtype).reshape([int(d) for d in attrs["shape"]] or [-1])


def fit_value(value: np.ndarray, target_shape, attrs) -> np.ndarray:
    """value broadcast to the region's shape (decrease_axes dropped, none_axes allowed)."""
    decrease = {int(a) % len(target_shape) for a in attrs["decrease_axes"]}
    reduced = [d for k, d in enumerate(target_shape) if k not in decrease]
    v = np.asarray(value)
    none_axes = [int(a) for a in attrs["none_axes"]]
    if none_axes and v.ndim == len(reduced) + len(none_axes):
        drop = tuple(a % v.ndim for a in none_axes if v.shape[a % v.ndim] == 1)
        v = v.squeeze(axis=drop)
    try:
        return np.broadcast_to(v, reduced).reshape(target_shape)
    except ValueError:
        raise ValueError(f"set_value: a value of shape {list(np.shape(value))} cannot be "
                         f"assigned to a region of shape {reduced}") from None


@set_value.kernel(dtypes=ALL_DTYPES)
def set_value_kernel(attrs, x, value, starts_t, ends_t, steps_t):
    out = x.copy()
    index = region(attrs, x.shape, starts_t, ends_t, steps_t)
    value = _attr_value(attrs) if value is None else value
    out[index] = fit_value(value, out[index].shape, attrs).astype(x.dtype, copy=False)
    return out


@set_value.grad_maker
def _(g):
    inputs = {"Out@GRAD": g.output_grad("Out")}
    for slot in ("ValueTensor", "StartsTensorList", "EndsTensorList", "StepsTensorList"):
        if g.input(slot):
            inputs[slot] = g.input(slot)
    return [g.grad_op("set_value_grad", inputs=inputs,
                      outputs={"Input@GRAD": g.input_grad("Input"),
                               "ValueTensor@GRAD": g.input_grad("ValueTensor")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS[:6]})]


set_value_grad = register_op(
    "set_value_grad",
    inputs=[In("Out@GRAD"), In("ValueTensor", no_need_buffer=True, dispensable=True),
            In("StartsTensorList", duplicable=True, dispensable=True),
            In("EndsTensorList", duplicable=True, dispensable=True),
            In("StepsTensorList", duplicable=True, dispensable=True)],
    outputs=[Out("Input@GRAD", dispensable=True), Out("ValueTensor@GRAD", dispensable=True)],
    attrs=_ATTRS[:6],
    key_inputs=["Out@GRAD"],
    doc="dInput = dOut with the region zeroed; dValueTensor = the region summed to its shape.",
)


@set_value_grad.infer_shape
def _(ctx):
    if ctx.has_output("Input@GRAD"):
        ctx.set_output("Input@GRAD", ctx.input_shape("Out@GRAD"), ctx.input_dtype("Out@GRAD"))
    if ctx.has_output("ValueTensor@GRAD"):
        ctx.set_output("ValueTensor@GRAD", ctx.input_shape("ValueTensor"),
                       ctx.input_dtype("ValueTensor"))


@set_value_grad.kernel(dtypes=FLOATS)
def set_value_grad_kernel(attrs, dout, value, starts_t, ends_t, steps_t):
    index = region(attrs, dout.shape, starts_t, ends_t, steps_t)
    dx = dout.copy()
    dx[index] = 0
    if value is None:
        return dx, None
    part = dout[index]
    decrease = {int(a) % dout.ndim for a in attrs["decrease_axes"]}
    part = part.reshape([d for k, d in enumerate(part.shape) if k not in decrease])
    if value.ndim > part.ndim:  # none_axes: value carries unit dims the region lacks
        part = part.reshape(value.shape) if part.size == value.size else part
    return dx, sum_to_shape(part, value.shape)
