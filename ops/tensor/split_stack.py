"""split, stack and unbind (+ stack_grad, unbind_grad); split's gradient is a concat, as in
Paddle.

split: X cut along `axis` into the outputs Out[0..k). Either `num` > 0 equal
parts (X.shape[axis] must divide by it), or `sections` (one entry may be -1,
inferred from the rest). An `AxisTensor` input (an int tensor of one element)
overrides `axis`, and `SectionsTensorList` (one int tensor per section)
overrides `sections`; their values are known only at run time, so the dims
they decide are -1 at build time.

stack: Y = the inputs X[0..k) (one shape, one dtype) joined along a NEW axis
`axis` (in [-(rank+1), rank+1)); dX[i] = dY's slice i along that axis.

unbind: Out[k] = X.take(k, axis), one output per entry of X along axis (the axis removed);
dX = stack(dOut, axis).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op


def scalar_of(tensor) -> int:
    """The int held by a one-element tensor input (AxisTensor and the like)."""
    return int(np.asarray(tensor).reshape(-1)[0])


def axis_of(op_type: str, tensor, rank: int) -> int:
    """AxisTensor's value as an axis in [0, rank): a value its InferShape could not see."""
    values = np.asarray(tensor).reshape(-1)
    if values.size != 1 or not -rank <= int(values[0]) < rank:
        raise KernelError(f"{op_type}: AxisTensor must hold one axis in [{-rank}, {rank}) for "
                          f"inputs of rank {rank}, got {values.tolist()}")
    return int(values[0]) % rank


split = register_op(
    "split",
    inputs=[In("X"),
            In("AxisTensor", "an int tensor [1]; overrides axis", dispensable=True),
            In("SectionsTensorList", "int tensors [1]; override sections", duplicable=True,
               dispensable=True)],
    outputs=[Out("Out", "the parts, in order", duplicable=True)],
    attrs=[Attr("axis", "int", 0, "the axis to cut; negative counts from the end"),
           Attr("num", "int", 0, "cut into num equal parts (0: use sections)"),
           Attr("sections", "ints", [], "the parts' sizes along axis; one may be -1")],
    doc=__doc__,
)


def _sections(ctx, size: int, count: int) -> list[int]:
    """The parts' sizes along the axis (-1 where unknown at build time)."""
    num, sections = ctx.attr("num"), list(ctx.attr("sections"))
    if ctx.has_input("SectionsTensorList"):
        return [-1] * count
    if num > 0:
        ctx.enforce(not sections, lambda: f"give num or sections, not both (num={num}, "
                                  f"sections={sections})")
        ctx.enforce(size < 0 or size % num == 0,
                    lambda: f"X.shape[axis]={size} does not divide into num={num} equal parts")
        return [-1 if size < 0 else size // num] * num
    ctx.enforce(bool(sections), "split needs num > 0 or a non-empty sections list")
    ctx.enforce(sections.count(-1) <= 1 and all(s >= -1 for s in sections),
                lambda: f"sections may hold one -1 and no other negative value, got {sections}")
    if -1 in sections and size >= 0:
        rest = size - sum(s for s in sections if s >= 0)
        ctx.enforce(rest >= 0, lambda: f"sections {sections} exceed X.shape[axis]={size}")
        sections[sections.index(-1)] = rest
    elif size >= 0:
        ctx.enforce(sum(sections) == size,
                    lambda: f"sections {sections} must add up to X.shape[axis]={size}")
    return sections


@split.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    count = len(ctx.output_names("Out"))
    dtype = ctx.input_dtype("X")
    if ctx.has_input("AxisTensor"):  # the axis is a run-time value: only the rank is known
        for i in range(count):
            ctx.set_output("Out", [-1] * len(x), dtype, i=i)
        return
    axis = ctx.attr("axis")
    ctx.enforce(-len(x) <= axis < len(x), lambda:
                f"axis must be in [-{len(x)}, {len(x)}) for X.shape={shape_str(x)}, got {axis}")
    axis %= len(x)
    sizes = _sections(ctx, x[axis], count)
    ctx.enforce(len(sizes) == count,
                lambda: f"split makes {len(sizes)} parts but Out lists {count} variables")
    for i, s in enumerate(sizes):
        shape = list(x)
        shape[axis] = s
        ctx.set_output("Out", shape, dtype, i=i)
        if axis != 0:
            ctx.share_lod("X", "Out", 0, i)


@split.kernel(dtypes=ALL_DTYPES)
def split_dense(attrs, x, axis_tensor, sections_tensors):
    axis = (axis_of("split", axis_tensor, x.ndim) if axis_tensor is not None
            else attrs["axis"] % x.ndim)
    if sections_tensors:
        sections = [scalar_of(t) for t in sections_tensors]
    elif attrs["num"] > 0:
        num = attrs["num"]
        if x.shape[axis] % num:
            return np.split(x, num, axis=axis)  # numpy's error names the uneven division
        sections = [x.shape[axis] // num] * num
    else:
        sections = list(attrs["sections"])
    if -1 in sections:
        sections[sections.index(-1)] = x.shape[axis] - (sum(sections) + 1)
    if sum(sections) != x.shape[axis] or min(sections) < 0:
        raise KernelError(f"split: sections {sections} do not cut X.shape[{axis}]="
                         f"{x.shape[axis]}")
    # Basic slices (views, as np.split gives) without np.split's per-call overhead: a
    # ShuffleNet unit's split cost 8 us of which 1 was the slicing.
    lead, parts, start = (slice(None),) * axis, [], 0
    for size in sections:
        parts.append(x[lead + (slice(start, start + size),)])
        start += size
    return parts


@split.grad_maker
def _(g):
    inputs = {"X": g.output_grad("Out")}
    if g.input("AxisTensor"):
        inputs["AxisTensor"] = g.input("AxisTensor")
    return [g.grad_op("concat", inputs=inputs, outputs={"Out": g.input_grad("X")},
                      attrs={"axis": g.attr("axis")})]


stack = register_op(
    "stack",
    inputs=[In("X", "tensors of one shape and dtype", duplicable=True)],
    outputs=[Out("Y", "rank + 1: the inputs along the new axis")],
    attrs=[Attr("axis", "int", 0, "where the new axis goes; negative counts from the end")],
    doc=__doc__,
)


def _stack_axis(ctx, rank: int) -> int:
    axis = ctx.attr("axis")
    ctx.enforce(-(rank + 1) <= axis < rank + 1, lambda:
                f"axis must be in [-{rank + 1}, {rank + 1}) to stack inputs of rank {rank}, "
                f"got {axis}")
    return axis % (rank + 1)


@stack.infer_shape
def _(ctx):
    shapes, names = ctx.input_shapes("X"), ctx.input_names("X")
    ctx.enforce(len(shapes) > 0, "X must hold at least one tensor")
    out = list(shapes[0])
    for name, shape in zip(names[1:], shapes[1:], strict=True):
        ctx.enforce(len(shape) == len(out) and all(map(dims_match, shape, out)),
                    lambda: f"all inputs must have one shape, but {names[0]} has "
                    f"{shape_str(shapes[0])} and {name} has {shape_str(shape)}")
        out = [max(a, b) for a, b in zip(out, shape, strict=True)]
    dtype = ctx.input_dtype("X")
    for i, name in enumerate(names):
        ctx.enforce(ctx.input_dtype("X", i) == dtype,
                    lambda: f"all inputs must have one dtype, but {names[0]} is {dtype} and {name} "
                    f"is {ctx.input_dtype('X', i)}", hint="insert a cast op")
    out.insert(_stack_axis(ctx, len(out)), len(shapes))
    ctx.set_output("Y", out, dtype)


@stack.kernel(dtypes=ALL_DTYPES)
def stack_dense(attrs, xs):
    return np.stack(xs, axis=attrs["axis"])


@stack.grad_maker
def _(g):
    return [g.grad_op("stack_grad", inputs={"Y@GRAD": g.output_grad("Y")},
                      outputs={"X@GRAD": g.input_grad("X")}, attrs={"axis": g.attr("axis")})]


stack_grad = register_op(
    "stack_grad",
    inputs=[In("Y@GRAD")],
    outputs=[Out("X@GRAD", duplicable=True, dispensable=True)],
    attrs=[Attr("axis", "int", 0)],
    doc="dX[i] = dY's slice i along axis.",
)


@stack_grad.infer_shape
def _(ctx):
    dy = ctx.input_shape("Y@GRAD")
    axis = _stack_axis(ctx, len(dy) - 1)
    shape = list(dy[:axis]) + list(dy[axis + 1:])
    for i in range(len(ctx.output_names("X@GRAD"))):
        ctx.set_output("X@GRAD", shape, ctx.input_dtype("Y@GRAD"), i=i)


@stack_grad.kernel(dtypes=FLOATS)
def stack_grad_dense(attrs, dy):
    axis = attrs["axis"] % dy.ndim
    return [np.take(dy, i, axis=axis) for i in range(dy.shape[axis])]


# --- unbind -----------------------------------------------------------------------------

unbind = register_op(
    "unbind",
    inputs=[In("X")],
    outputs=[Out("Out", "X.shape[axis] tensors of X's shape without axis", duplicable=True)],
    attrs=[Attr("axis", "int", 0, "the dim split (negative counts from the end)")],
    doc=__doc__,
)


@unbind.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    rank = len(x)
    axis = ctx.attr("axis")
    ctx.enforce(rank >= 1 and -rank <= axis < rank,
                lambda: f"axis must be in [{-rank}, {rank}) for X {shape_str(x)}, got {axis}")
    axis %= rank
    n = len(ctx.output_names("Out"))
    ctx.enforce(x[axis] < 0 or x[axis] == n,
                lambda: f"unbind needs X.shape[{axis}] = {x[axis]} outputs Out, got {n}")
    for k in range(n):
        ctx.set_output("Out", [d for j, d in enumerate(x) if j != axis], ctx.input_dtype("X"),
                       i=k)


@unbind.kernel(dtypes=ALL_DTYPES)
def unbind_kernel(attrs, x):
    axis = attrs["axis"] % x.ndim
    return [np.ascontiguousarray(np.take(x, k, axis=axis)) for k in range(x.shape[axis])]


@unbind.grad_maker
def _(g):
    return [g.grad_op("unbind_grad", inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")}, attrs={"axis": g.attr("axis")})]


unbind_grad = register_op(
    "unbind_grad",
    inputs=[In("X", no_need_buffer=True), In("Out@GRAD", duplicable=True)],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("axis", "int", 0)],
    key_inputs=["X"],
    doc="dX = stack(dOut, axis).",
)


@unbind_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@unbind_grad.kernel(dtypes=FLOATS)
def unbind_grad_kernel(attrs, x, douts):
    return np.stack(list(douts), axis=attrs["axis"] % x.ndim).astype(x.dtype, copy=False)
