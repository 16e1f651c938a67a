"""Reversing and rotating along axes (+ _grad):

    flip         Out = X reversed along each dim in axis;          dX = flip(dOut, axis)
                 (Paddle 1.8 names the attribute `dims`; either spelling is taken)
    roll         Out = X shifted by shifts[k] along axis[k] (cyclic; no axis: X flattened,
                 rolled, reshaped);                                  dX = roll(dOut, -shifts)
    reverse      Fluid 1.x's flip: Out = X reversed along each of `axis`; dX = reverse(dOut)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.simple_op import register_simple


def _same_shape_grad(op_type: str, fn, attrs=(), doc=""):
    """A grad op dX = fn(attrs, dOut) with dOut's shape, and the forward's grad maker."""
    grad = register_op(op_type + "_grad", inputs=[In("Out@GRAD")],
                       outputs=[Out("X@GRAD", dispensable=True)], attrs=list(attrs), doc=doc)

    @grad.infer_shape
    def _(ctx):
        ctx.set_output("X@GRAD", ctx.input_shape("Out@GRAD"), ctx.input_dtype("Out@GRAD"))

    grad.kernel(dtypes=FLOATS)(fn)

    def maker(g):
        return [g.grad_op(op_type + "_grad", inputs={"Out@GRAD": g.output_grad("Out")},
                          outputs={"X@GRAD": g.input_grad("X")},
                          attrs={a.name: g.attr(a.name) for a in attrs})]
    return maker


# --- flip -------------------------------------------------------------------------------

_FLIP_ATTRS = [Attr("axis", "ints", [], "the dims reversed"),
               Attr("dims", "ints", [], "Paddle 1.8's name for axis (used when axis is empty)")]
flip = register_op("flip", inputs=[In("X")], outputs=[Out("Out", "X reversed along axis")],
                   attrs=_FLIP_ATTRS, doc=__doc__)


def _flip_axes(get) -> list[int]:
    return list(get("axis")) or list(get("dims"))


@flip.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    for a in _flip_axes(ctx.attr):
        ctx.enforce(-len(x) <= a < len(x), lambda: f"axis holds {a}, outside X {shape_str(x)}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))


def _flip(attrs, x):
    axes = tuple(_flip_axes(attrs.__getitem__))
    return np.ascontiguousarray(np.flip(x, axis=axes)) if x.ndim else x.copy()


flip.kernel(dtypes=ALL_DTYPES)(_flip)
flip.grad_maker(_same_shape_grad("flip", _flip, _FLIP_ATTRS, "dX = flip(dOut, axis)."))


# --- roll -------------------------------------------------------------------------------

roll = register_op(
    "roll",
    inputs=[In("X"), In("ShiftsTensor", "an int tensor of shifts, overrides shifts",
                        dispensable=True)],
    outputs=[Out("Out", "X shifted cyclically")],
    attrs=[Attr("shifts", "longs", [], "the shift per listed dim"),
           Attr("axis", "longs", [], "the dims shifted (empty: X flattened)")],
    doc=__doc__,
)


@roll.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    axis = list(ctx.attr("axis"))
    if not ctx.has_input("ShiftsTensor"):
        shifts = list(ctx.attr("shifts"))
        ctx.enforce(len(shifts) == max(len(axis), 1) if not axis else len(shifts) == len(axis),
                    lambda: f"shifts {shifts} must hold one entry per axis {axis} "
                    f"(one without axis)")
    for a in axis:
        ctx.enforce(-len(x) <= a < len(x), lambda: f"axis holds {a}, outside X {shape_str(x)}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))


def _roll(x, shifts, axis):
    if not axis:
        return np.roll(x.reshape(-1), int(shifts[0])).reshape(x.shape)
    return np.roll(x, [int(s) for s in shifts], axis=[int(a) for a in axis])


@roll.kernel(dtypes=ALL_DTYPES)
def roll_kernel(attrs, x, shifts):
    shifts = attrs["shifts"] if shifts is None else np.asarray(shifts).reshape(-1).tolist()
    return _roll(x, shifts, attrs["axis"])


@roll.grad_maker
def _(g):
    inputs = {"X": g.input("X"), "Out@GRAD": g.output_grad("Out")}
    if g.input("ShiftsTensor"):
        inputs["ShiftsTensor"] = g.input("ShiftsTensor")
    return [g.grad_op("roll_grad", inputs=inputs, outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"shifts": g.attr("shifts"), "axis": g.attr("axis")})]


roll_grad = register_op(
    "roll_grad",
    inputs=[In("X", no_need_buffer=True), In("ShiftsTensor", dispensable=True),
            In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("shifts", "longs", []), Attr("axis", "longs", [])],
    key_inputs=["Out@GRAD"],
    doc="dX = roll(dOut, -shifts, axis).",
)


@roll_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@roll_grad.kernel(dtypes=FLOATS)
def roll_grad_kernel(attrs, x, shifts, dout):
    shifts = attrs["shifts"] if shifts is None else np.asarray(shifts).reshape(-1).tolist()
    return _roll(dout, [-int(s) for s in shifts], attrs["axis"])


# --- reverse ----------------------------------------------------------------------------

def _infer_reverse(ctx):
    rank = len(ctx.input_shape("X"))
    axes = ctx.attr("axis")
    ctx.enforce(len(axes) > 0 and all(-rank <= a < rank for a in axes),
                lambda: f"axis must list axes in [-{rank}, {rank}), got {list(axes)}")
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))


def _reverse(attrs, x):
    return np.flip(x, tuple(attrs["axis"])).copy()


register_simple(
    "reverse", [In("X")], [Out("Out", "X flipped along axis")],
    [Attr("axis", "ints", [], "the axes to flip")], _infer_reverse, _reverse,
    backward=lambda attrs, x, dout: _reverse(attrs, dout), wrt=["X"], dtypes=ALL_DTYPES,
    doc="Out = X with the order of its elements reversed along each of `axis`.")
