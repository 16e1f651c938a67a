"""slice and strided_slice (+ grads): Out = Input[starts:ends] along `axes`, Paddle's
rules; strided_slice: Out = Input[starts:ends:strides] on `axes` (Python slicing rules),
its starts, ends and strides also given by tensors (StartsTensor/StartsTensorList, ...,
StridesTensorList; ops/tensor_attrs.py) that override the attributes at run time.

For each axis a in `axes` with start s and end e: a negative s or e counts
from the end (adds Input.shape[a]); both are then clamped to [0, dim], so
ends such as 2**31 - 1 mean "to the end"; an empty range gives a 0-sized dim.
`decrease_axis` drops those axes (each must come out of size 1); dropping every
axis gives a 0-D tensor, as Paddle 2.5+ does. `StartsTensor` / `EndsTensor`
(int tensors [len(axes)]) or `StartsTensorList` / `EndsTensorList` (one int
tensor [1] per axis) override the attributes; their values are known at run
time only, so the sliced dims are -1 at build time. `infer_flags` is Paddle's
record of which starts/ends came from tensors; it does not change results.

Out keeps Input's LoD unless axis 0 is sliced. dInput is zero except for the
sliced window, which holds dOut (for both ops).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.simple_op import register_simple
from paddle_ir.ops.tensor_attrs import (
    TensorAttr,
    overridden,
    tensor_attr_inputs,
    with_tensor_attrs,
)

_TENSOR_INPUTS = [
    In("StartsTensor", "int tensor [len(axes)]; overrides starts", dispensable=True),
    In("EndsTensor", "int tensor [len(axes)]; overrides ends", dispensable=True),
    In("StartsTensorList", "int tensors [1], one per axis", duplicable=True, dispensable=True),
    In("EndsTensorList", "int tensors [1], one per axis", duplicable=True, dispensable=True),
]
_ATTRS = [
    Attr("axes", "ints", [], "the axes to slice"),
    Attr("starts", "ints", [], "start per axis (negative counts from the end)"),
    Attr("ends", "ints", [], "end per axis, exclusive (negative counts from the end)"),
    Attr("infer_flags", "ints", [], "Paddle's build-time bookkeeping; no effect"),
    Attr("decrease_axis", "ints", [], "axes to drop from Out (each of size 1)"),
]

slice_op = register_op(
    "slice",
    inputs=[In("Input")] + _TENSOR_INPUTS,
    outputs=[Out("Out")],
    attrs=_ATTRS,
    doc=__doc__,
)


def clamp(start: int, end: int, dim: int) -> tuple[int, int]:
    """Paddle's normalisation of one axis' [start, end) against a dim of size `dim`."""
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    start = min(max(start, 0), dim)
    end = min(max(end, start), dim)
    return start, end


def _ints(tensor_value) -> list[int]:
    return [int(v) for v in np.asarray(tensor_value).reshape(-1)]


def _check_axes(ctx, rank: int) -> list[int]:
    axes, starts, ends = ctx.attr("axes"), ctx.attr("starts"), ctx.attr("ends")
    for a in axes:
        ctx.enforce(-rank <= a < rank,
                    lambda: f"axes {list(axes)} hold {a}, outside [-{rank}, {rank}) "
                                       f"for Input of rank {rank}")
    if not (ctx.has_input("StartsTensor") or ctx.has_input("StartsTensorList")):
        ctx.enforce(len(starts) == len(axes),
                    lambda: f"starts {list(starts)} must give one value per axis of {list(axes)}")
    if not (ctx.has_input("EndsTensor") or ctx.has_input("EndsTensorList")):
        ctx.enforce(len(ends) == len(axes),
                    lambda: f"ends {list(ends)} must give one value per axis of {list(axes)}")
    return [a % rank for a in axes]


@slice_op.infer_shape
def _(ctx):
    x = ctx.input_shape("Input")
    axes = _check_axes(ctx, len(x))
    from_tensors = any(ctx.has_input(s.name) for s in _TENSOR_INPUTS)
    out = list(x)
    for k, a in enumerate(axes):
        if from_tensors or x[a] < 0:
            out[a] = -1
        else:
            s, e = clamp(ctx.attr("starts")[k], ctx.attr("ends")[k], x[a])
            out[a] = e - s
    decrease = sorted({d % len(x) for d in ctx.attr("decrease_axis")}) if x else []
    for d in decrease:
        ctx.enforce(out[d] in (1, -1),
                    lambda: f"decrease_axis drops axis {d}, which must come out of size 1, but the "
                    f"slice gives {out[d]} (Input.shape={shape_str(x)})")
    out = [n for i, n in enumerate(out) if i not in decrease]
    ctx.set_output("Out", out, ctx.input_dtype("Input"))
    if 0 not in axes:
        ctx.share_lod("Input", "Out")


def window(attrs, shape, starts_t, ends_t, starts_list, ends_list) -> tuple[slice, ...]:
    """The index of the sliced window, from the attributes or the run-time tensors."""
    starts = (_ints(starts_t) if starts_t is not None
              else [_ints(t)[0] for t in starts_list] if starts_list else attrs["starts"])
    ends = (_ints(ends_t) if ends_t is not None
            else [_ints(t)[0] for t in ends_list] if ends_list else attrs["ends"])
    index = [slice(None)] * len(shape)
    for a, s, e in zip(attrs["axes"], starts, ends, strict=True):
        index[a] = slice(*clamp(s, e, shape[a]))
    return tuple(index)


@slice_op.kernel(dtypes=ALL_DTYPES)
def slice_dense(attrs, x, starts_t, ends_t, starts_list, ends_list):
    out = x[window(attrs, x.shape, starts_t, ends_t, starts_list, ends_list)]
    decrease = attrs["decrease_axis"]
    if decrease:
        out = out.reshape([n for i, n in enumerate(out.shape)
                           if i not in {d % x.ndim for d in decrease}])
    return np.array(out)  # a copy: Out must not alias Input


@slice_op.grad_maker
def _(g):
    inputs = {"Input": g.input("Input"), "Out@GRAD": g.output_grad("Out")}
    for slot in _TENSOR_INPUTS:
        if g.input(slot.name):
            inputs[slot.name] = g.input(slot.name)
    return [g.grad_op("slice_grad", inputs=inputs, outputs={"Input@GRAD": g.input_grad("Input")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


slice_grad = register_op(
    "slice_grad",
    inputs=[In("Input", "for its shape", no_need_buffer=True)] + _TENSOR_INPUTS
    + [In("Out@GRAD")],
    outputs=[Out("Input@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    doc="dInput = zeros with dOut written into the sliced window.",
)


@slice_grad.infer_shape
def _(ctx):
    ctx.set_output("Input@GRAD", ctx.input_shape("Input"), ctx.input_dtype("Out@GRAD"))
    ctx.share_lod("Input", "Input@GRAD")


@slice_grad.kernel(dtypes=FLOATS)
def slice_grad_dense(attrs, x, starts_t, ends_t, starts_list, ends_list, dout):
    dx = np.zeros(x.shape, dtype=dout.dtype)
    index = window(attrs, x.shape, starts_t, ends_t, starts_list, ends_list)
    dx[index] = dout.reshape(dx[index].shape)
    return dx


# -- strided_slice ---------------------------------------------------------------------------

# strided_slice's inputs that override attributes at run time (ops/tensor_attrs.py).
STRIDED_SLICE_TENSOR_ATTRS = (
    TensorAttr("starts", "ints", whole="StartsTensor", parts="StartsTensorList"),
    TensorAttr("ends", "ints", whole="EndsTensor", parts="EndsTensorList"),
    TensorAttr("strides", "ints", whole="StridesTensor", parts="StridesTensorList"),
)


def _slices(attrs, shape):
    lists = [attrs[k] for k in ("axes", "starts", "ends", "strides")]
    if len({len(v) for v in lists}) != 1 or 0 in attrs["strides"]:
        raise KernelError(f"strided_slice: axes, starts, ends and strides must have one length "
                          f"and no stride 0, got axes {lists[0]}, starts {lists[1]}, ends "
                          f"{lists[2]}, strides {lists[3]}")
    index = [slice(None)] * len(shape)
    for axis, start, end, stride in zip(attrs["axes"], attrs["starts"], attrs["ends"],
                                        attrs["strides"], strict=True):
        index[axis] = slice(start, end, stride)
    return tuple(index)


def _infer_strided(ctx):
    shape = list(ctx.input_shape("Input"))
    if overridden(ctx, STRIDED_SLICE_TENSOR_ATTRS):  # the sliced dims are known at run time
        for axis in ctx.attr("axes"):
            ctx.enforce(0 <= axis < len(shape), lambda: f"axis {axis} is out of range for rank "
                        f"{len(shape)}")
            shape[axis] = -1
        ctx.set_output("Out", shape, ctx.input_dtype("Input"))
        return
    lists = [ctx.attr(k) for k in ("axes", "starts", "ends", "strides")]
    ctx.enforce(len({len(v) for v in lists}) == 1,
                lambda: f"axes, starts, ends and strides must have one length, got "
                f"{[len(v) for v in lists]}")
    ctx.enforce(all(s != 0 for s in ctx.attr("strides")), "strides must not be 0")
    for axis, start, end, stride in zip(*lists, strict=True):
        ctx.enforce(0 <= axis < len(shape), lambda: f"axis {axis} is out of range for rank "
                    f"{len(shape)}")
        if shape[axis] >= 0:
            shape[axis] = len(range(*slice(start, end, stride).indices(shape[axis])))
    ctx.set_output("Out", shape, ctx.input_dtype("Input"))


def _strided_grad(attrs, x, dout):
    dx = np.zeros(x.shape, dtype=dout.dtype)
    dx[_slices(attrs, x.shape)] = dout
    return dx


register_simple(
    "strided_slice", [In("Input")] + tensor_attr_inputs(STRIDED_SLICE_TENSOR_ATTRS),
    [Out("Out", "the strided slice")],
    [Attr("axes", "ints", [], "the sliced axes"), Attr("starts", "ints", [], "per axis"),
     Attr("ends", "ints", [], "per axis, exclusive"), Attr("strides", "ints", [], "per axis")],
    _infer_strided,
    with_tensor_attrs("strided_slice", STRIDED_SLICE_TENSOR_ATTRS, 1,
                      lambda attrs, x: x[_slices(attrs, x.shape)].copy()),
    backward=with_tensor_attrs("strided_slice_grad", STRIDED_SLICE_TENSOR_ATTRS, 1,
                               _strided_grad),
    wrt=["Input"], dtypes=ALL_DTYPES, doc=__doc__)
