"""squeeze, unsqueeze, flatten and transpose (+ _grad): the forms without XShape that
Fluid 1.x programs (and some converted 2.x ones) still carry. Same shape rules as their
*2 twins in ops/tensor/shape_ops.py; their grad ops read X's shape from X (no buffer
needed).

    squeeze    Out = X without the listed size-1 dims (all of them when axes is empty)
    unsqueeze  Out = X with unit dims inserted at axes, one at a time
    flatten    Out = X as a matrix [prod(X.shape[:axis]), prod(X.shape[axis:])]
    transpose  Out = X with its dims permuted: Out.shape[i] = X.shape[axis[i]]
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.tensor.reshape import share_lod_if_rows_kept
from paddle_ir.ops.tensor.shape_ops import (
    flattened,
    infer_flatten,
    infer_unsqueeze,
    squeezed_shape,
    unsqueezed_shape,
)


def _reshape_grad(op_type: str, attr=None):
    """The grad maker of a reshape-like op; registers `op_type`_grad: dX = dOut in X's shape.
    `attr` is the forward attribute the grad op carries along (default: `axes`)."""
    attr = attr or Attr("axes", "ints", [])
    grad = register_op(
        op_type + "_grad",
        inputs=[In("X", no_need_buffer=True), In("Out@GRAD")],
        outputs=[Out("X@GRAD", dispensable=True)],
        attrs=[attr],
        key_inputs=["Out@GRAD"],
        doc="dX = dOut laid out in X's shape.",
    )

    @grad.infer_shape
    def _(ctx):
        ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))

    @grad.kernel(dtypes=FLOATS)
    def kernel(attrs, x, dout):
        return dout.reshape(x.shape)

    def maker(g):
        return [g.grad_op(op_type + "_grad",
                          inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                          outputs={"X@GRAD": g.input_grad("X")},
                          attrs={attr.name: g.attr(attr.name)})]
    return maker


# --- squeeze ----------------------------------------------------------------------------

squeeze = register_op(
    "squeeze",
    inputs=[In("X")],
    outputs=[Out("Out", "X without the listed size-1 dims")],
    attrs=[Attr("axes", "ints", [], "the size-1 dims to drop (empty: all)")],
    doc=__doc__,
)


@squeeze.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    for a in ctx.attr("axes"):
        ctx.enforce(-len(x) <= a < len(x),
                    lambda: f"axes holds {a}, outside [-{len(x)}, {len(x)}) for X {shape_str(x)}")
    out = squeezed_shape(x, ctx.attr("axes"), ctx.is_runtime)
    ctx.set_output("Out", out, ctx.input_dtype("X"))
    share_lod_if_rows_kept(ctx, x, out)


@squeeze.kernel(dtypes=ALL_DTYPES)
def squeeze_kernel(attrs, x):
    return x.reshape(squeezed_shape(x.shape, attrs["axes"], True))


squeeze.grad_maker(_reshape_grad("squeeze"))


# --- unsqueeze --------------------------------------------------------------------------

unsqueeze = register_op(
    "unsqueeze",
    inputs=[In("X"),
            In("AxesTensor", "an int tensor of axes; overrides the attribute", dispensable=True),
            In("AxesTensorList", "int tensors [1], one per axis", duplicable=True,
               dispensable=True)],
    outputs=[Out("Out", "X with unit dims inserted")],
    attrs=[Attr("axes", "ints", [], "where unit dims go, one at a time")],
    doc=__doc__,
)


unsqueeze.infer_shape(infer_unsqueeze)  # the same rule as unsqueeze2's


@unsqueeze.kernel(dtypes=ALL_DTYPES)
def unsqueeze_kernel(attrs, x, axes_t, axes_list):
    if axes_list:
        axes = [int(np.asarray(t).reshape(-1)[0]) for t in axes_list]
    elif axes_t is not None:
        axes = [int(v) for v in np.asarray(axes_t).reshape(-1)]
    else:
        axes = attrs["axes"]
    out = unsqueezed_shape(x.shape, axes)
    if isinstance(out, str):
        raise ValueError(f"unsqueeze: {out}")
    return x.reshape(out)


unsqueeze.grad_maker(_reshape_grad("unsqueeze"))


# --- flatten ----------------------------------------------------------------------------

_AXIS = Attr("axis", "int", 1, "X's dims before axis become the rows")

flatten = register_op(
    "flatten",
    inputs=[In("X")],
    outputs=[Out("Out", "[prod(X.shape[:axis]), prod(X.shape[axis:])]")],
    attrs=[_AXIS],
    doc=__doc__,
)


@flatten.infer_shape
def _(ctx):
    out = infer_flatten(ctx)
    share_lod_if_rows_kept(ctx, ctx.input_shape("X"), out)


@flatten.kernel(dtypes=ALL_DTYPES)
def flatten_kernel(attrs, x):
    return flattened(x, attrs["axis"])


flatten.grad_maker(_reshape_grad("flatten", _AXIS))


# --- transpose --------------------------------------------------------------------------

transpose = register_op(
    "transpose",
    inputs=[In("X")],
    outputs=[Out("Out", "X with its dims permuted")],
    attrs=[Attr("axis", "ints", [], "the permutation: Out's dim i is X's dim axis[i]"),
           Attr("data_format", "string", "AnyLayout", "Paddle's layout tag; no effect")],
    doc=__doc__,
)


@transpose.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    axis = list(ctx.attr("axis"))
    ctx.enforce(sorted(a % max(len(x), 1) for a in axis) == list(range(len(x))), lambda:
                f"axis must be a permutation of X's {len(x)} dims {shape_str(x)}, got {axis}")
    ctx.set_output("Out", [x[a] for a in axis], ctx.input_dtype("X"))


@transpose.kernel(dtypes=ALL_DTYPES)
def transpose_kernel(attrs, x):
    return np.ascontiguousarray(np.transpose(x, attrs["axis"]))


@transpose.grad_maker
def _(g):
    return [g.grad_op("transpose_grad", inputs={"Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")}, attrs={"axis": g.attr("axis")})]


transpose_grad = register_op(
    "transpose_grad",
    inputs=[In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("axis", "ints", [])],
    doc="dX = dOut with the inverse permutation.",
)


@transpose_grad.infer_shape
def _(ctx):
    d = ctx.input_shape("Out@GRAD")
    inverse = np.argsort([a % max(len(d), 1) for a in ctx.attr("axis")])
    ctx.set_output("X@GRAD", [d[a] for a in inverse], ctx.input_dtype("Out@GRAD"))


@transpose_grad.kernel(dtypes=FLOATS)
def transpose_grad_kernel(attrs, dout):
    inverse = np.argsort([a % dout.ndim for a in attrs["axis"]])
    return np.ascontiguousarray(np.transpose(dout, inverse))
