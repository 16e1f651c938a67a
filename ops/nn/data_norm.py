"""data_norm (+ _grad): normalise each column of X [N, C] by summary statistics kept
as parameters (CTR models' data normalisation, Paddle's data_norm_op.cc).

    Means  = BatchSum / BatchSize
    Scales = sqrt(BatchSize / BatchSquareSum)
    Y      = (X - Means) * Scales                       (per column)
           * scale_w + bias                              (enable_scale_and_shift)

With slot_dim > 0, X's columns are slots of slot_dim values whose first value is the
slot's "show" count: a slot whose show is 0 (|show| < 1e-7) gives Y = 0 there.

The grad op gives dX, and for scale_w and bias their gradients; for BatchSize,
BatchSum and BatchSquareSum it gives this batch's summary statistics (not
derivatives), which the optimizer or parameter server folds into the summary
(Paddle's device kernels: s = s * summary_decay_rate + statistic):

    BatchSize@GRAD      = N
    BatchSum@GRAD       = sum_n X
    BatchSquareSum@GRAD = sum_n (X - Means)^2 + N * epsilon
    with slot_dim > 0, over the rows whose slot shows (n_c of them, when >= 1):
        1, sum X / n_c, sum (X - Means)^2 / n_c + n_c * epsilon   (else 0, 0, 0)
    dX      = dY * Scales (* scale_w with enable_scale_and_shift; then 0 in slots
              that do not show when slot_dim > 0)
    dscale_w = sum_n dY * (X - Means) * Scales,  dbias = sum_n dY  (over showing slots)

As in Paddle's CPU kernels, dX without enable_scale_and_shift is dY * Scales even in
slots that do not show (where Y is 0). sync_stats (all-reduce across GPUs) changes
nothing in a single-process run. No kernel writes the summary parameters back in place
(Paddle's CPU kernel does not either; its GPU and XPU kernels do).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.grad import grad_name
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_SHOW_ZERO = 1e-7  # Paddle's min_precision: |show| below it counts as 0
_STATS = ("BatchSize", "BatchSum", "BatchSquareSum")
_ATTRS = [
    Attr("epsilon", "float", 1e-4, "added (times the count) to the square sum's statistic"),
    Attr("slot_dim", "int", -1, "> 0: X's columns are slots of this many, show first"),
    Attr("summary_decay_rate", "float", 0.9999999,
         "the decay the summary update applies (used by the optimizer, not here)"),
    Attr("enable_scale_and_shift", "bool", False, "apply scale_w and bias after"),
    Attr("data_layout", "string", "NCHW", "NCHW or NHWC (the same for a 2-D X)"),
    Attr("sync_stats", "bool", False, "all-reduce the statistics across GPUs (no-op here)"),
]

data_norm = register_op(
    "data_norm",
    inputs=[In("X", "[N, C]"), In("BatchSize", "[C]"), In("BatchSum", "[C]"),
            In("BatchSquareSum", "[C]"),
            In("scale_w", "[C], with enable_scale_and_shift", dispensable=True),
            In("bias", "[C], with enable_scale_and_shift", dispensable=True)],
    outputs=[Out("Y", "X's shape"), Out("Means", "[C]"), Out("Scales", "[C]")],
    attrs=_ATTRS,
    key_inputs=["X"],
    doc=__doc__,
)


@data_norm.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 2, lambda: f"X must be 2-D [N, C], got {shape_str(x)}")
    c = x[1]
    layout = ctx.attr("data_layout")
    ctx.enforce(layout in ("NCHW", "NHWC", "AnyLayout"),
                lambda: f"data_layout must be NCHW or NHWC, got {layout!r}")
    eps = ctx.attr("epsilon")
    ctx.enforce(0.0 <= eps <= 0.001, lambda: f"epsilon must be in [0, 0.001], got {eps}")
    slot_dim = ctx.attr("slot_dim")
    ctx.enforce(slot_dim <= 0 or c < 0 or c % slot_dim == 0,
                lambda: f"slot_dim {slot_dim} must divide X's {c} columns")
    scaled = ctx.attr("enable_scale_and_shift")
    slots = _STATS + (("scale_w", "bias") if scaled else ())
    if scaled:
        ctx.enforce(ctx.has_input("scale_w") and ctx.has_input("bias"),
                    "enable_scale_and_shift needs the inputs scale_w and bias")
    for slot in slots:
        shape = ctx.input_shape(slot)
        ctx.enforce(len(shape) == 1 and dims_match(shape[0], c),
                    lambda: f"{slot} must be [{c}] (one per column of X {shape_str(x)}), got "
                    f"{shape_str(shape)}")
        ctx.enforce(ctx.input_dtype(slot) == ctx.input_dtype("X"), lambda:
                    f"{slot} must be {ctx.input_dtype('X')} as X, got {ctx.input_dtype(slot)}")
    ctx.set_output("Y", x, ctx.input_dtype("X"))
    ctx.set_output("Means", [c], ctx.input_dtype("X"))
    ctx.set_output("Scales", [c], ctx.input_dtype("X"))
    ctx.share_lod("X", "Y")


def _shows(attrs, x: np.ndarray) -> np.ndarray | None:
    """[N, C] bool: whether each entry's slot shows (None without slot_dim)."""
    slot_dim = attrs["slot_dim"]
    if slot_dim <= 0 or x.shape[0] == 0:
        return None
    show = x[:, ::slot_dim]
    showing = ~((show > -_SHOW_ZERO) & (show < _SHOW_ZERO))
    return np.repeat(showing, slot_dim, axis=1)


@data_norm.kernel(dtypes=FLOATS)
def data_norm_kernel(attrs, x, size, total, square, scale_w, bias):
    means = total / size
    scales = np.sqrt(size / square)
    y = (x - means) * scales
    if attrs["enable_scale_and_shift"]:
        y = y * scale_w + bias
    shows = _shows(attrs, x)
    if shows is not None:
        y = np.where(shows, y, 0)
    return y.astype(x.dtype), means, scales


@data_norm.grad_maker
def _(g):
    scaled = g.attr("enable_scale_and_shift")
    outputs = {grad_name("X"): g.input_grad("X")}
    outputs.update({grad_name(s): g.input_grad(s) for s in _STATS})
    if scaled:
        outputs.update({grad_name(s): g.input_grad(s) for s in ("scale_w", "bias")})
    return [g.grad_op("data_norm_grad",
                      inputs={"X": g.input("X"), "Y@GRAD": g.output_grad("Y"),
                              "Means": g.output("Means"), "Scales": g.output("Scales"),
                              "scale_w": g.input("scale_w"), "bias": g.input("bias")},
                      outputs=outputs,
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


data_norm_grad = register_op(
    "data_norm_grad",
    inputs=[In("X"), In("Y@GRAD"), In("Means"), In("Scales"),
            In("scale_w", dispensable=True), In("bias", dispensable=True)],
    outputs=[Out(grad_name(s), dispensable=True)
             for s in ("X",) + _STATS + ("scale_w", "bias")],
    attrs=_ATTRS,
    key_inputs=["Y@GRAD"],
    doc="dX, dscale_w, dbias and the batch's summary statistics (data_norm's doc).",
)


@data_norm_grad.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    if ctx.has_output("X@GRAD"):
        ctx.set_output("X@GRAD", x, ctx.input_dtype("X"))
    for slot in _STATS + ("scale_w", "bias"):
        if ctx.has_output(grad_name(slot)):
            ctx.set_output(grad_name(slot), [x[1]], ctx.input_dtype("X"))


@data_norm_grad.kernel(dtypes=FLOATS)
def data_norm_grad_kernel(attrs, x, dy, means, scales, scale_w, bias):
    n = x.shape[0]
    eps = x.dtype.type(attrs["epsilon"])
    shows = _shows(attrs, x)
    scaled = attrs["enable_scale_and_shift"]
    dx = dy * scales * (scale_w if scaled else 1)
    centred = x - means
    if scaled and shows is not None:
        dx = np.where(shows, dx, 0)
    weight = shows if (scaled and shows is not None) else np.ones(x.shape, bool)
    dscale = (dy * centred * scales * weight).sum(axis=0) if scaled else None
    dbias = (dy * weight).sum(axis=0) if scaled else None
    if shows is None:
        d_size = np.full(x.shape[1], n, x.dtype)
        d_sum = x.sum(axis=0)
        d_square = (centred * centred).sum(axis=0) + d_size * eps
    else:
        count = shows.sum(axis=0).astype(x.dtype)
        total = np.where(shows, x, 0).sum(axis=0)
        square = np.where(shows, centred * centred, 0).sum(axis=0)
        seen = count >= 1
        safe = np.where(seen, count, 1)
        d_sum = np.where(seen, total / safe, 0)
        d_square = np.where(seen, square / safe + count * eps, 0)
        d_size = np.where(seen, 1, 0).astype(x.dtype)
    return (dx.astype(x.dtype), d_size, d_sum.astype(x.dtype), d_square.astype(x.dtype),
            dscale, dbias)
