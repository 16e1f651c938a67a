"""sequence_conv (+ _grad): a 1-D convolution over the steps of each sequence.

For a sequence s of the last LoD level with rows x_0..x_{L-1} (width D), a
context of C = contextLength rows starting at c0 = contextStart:

    col[t] = [x_{t+c0}, x_{t+c0+1}, ..., x_{t+c0+C-1}]      (a [C * D] row)
    Out[t] = col[t] @ Filter                                (Filter: [C * D, M])

where x_j is a zero row when j falls outside [0, L): the window never
crosses into a neighbouring sequence (Paddle's context_project with
paddingTrainable=False). Out has X's rows and LoD and M columns.

The kernel gathers every window through one index matrix (a zero row stands
for the padding) and does one matmul; the gradient is one matmul back to the
windows and C shifted scatter-adds (each window position maps rows one to one).

    dFilter = col^T @ dOut,    dcol = dOut @ Filter^T,    dX[j] = sum of dcol entries that read x_j

Only contextStride = 1 and paddingTrainable = False exist, as in Paddle's
kernel (a trainable padding is refused at build time).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.limits import check_temporary
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import require_lod

_ATTRS = [
    Attr("contextLength", "int", 3, "C: the rows in a window (the filter height)"),
    Attr("contextStart", "int", 0, "c0: the window of row t starts at row t + c0 (may be < 0)"),
    Attr("contextStride", "int", 1, "the step between windows; only 1 is supported"),
    Attr("paddingTrainable", "bool", False, "learned padding rows; only False is supported"),
]

sequence_conv = register_op(
    "sequence_conv",
    inputs=[In("X", "[T, D] rows of sequences (LoD >= 1)"),
            In("PaddingData", "learned padding rows (unsupported)", dispensable=True),
            In("Filter", "[C * D, M]")],
    outputs=[Out("Out", "[T, M], X's LoD")],
    attrs=_ATTRS,
    doc=__doc__,
)


def _check(ctx) -> tuple[tuple[int, ...], tuple[int, ...]]:
    require_lod(ctx, "X")
    length = ctx.attr("contextLength")
    ctx.enforce(length > 0, lambda: f"contextLength must be > 0, got {length}")
    ctx.enforce(ctx.attr("contextStride") == 1,
                lambda: f"Currently, sequence_conv only supports contextStride=1, got "
                f"{ctx.attr('contextStride')}")
    ctx.enforce(not ctx.attr("paddingTrainable"),
                "sequence_conv supports only paddingTrainable=False (zero padding)",
                hint="the sequence_conv layer always pads with zeros")
    x, w = ctx.input_shape("X"), ctx.input_shape("Filter")
    ctx.enforce(len(x) == 2 and len(w) == 2,
                lambda: f"Input(X) and Input(Filter) must be 2-D, got X {shape_str(x)} and Filter "
                f"{shape_str(w)}")
    want = length * x[1] if x[1] >= 0 else -1
    ctx.enforce(dims_match(w[0], want), lambda:
                f"Filter's height must be contextLength * X's width = {length} * {x[1]}, got "
                f"Filter {shape_str(w)}")
    return x, w


@sequence_conv.infer_shape
def _(ctx):
    x, w = _check(ctx)
    ctx.set_output("Out", (x[0], w[1]), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def window_index(offsets: np.ndarray, start: int, length: int) -> np.ndarray:
    """[T, C] int64: the row each window position reads, or T (a zero row) outside the sequence."""
    rows = int(offsets[-1])
    check_temporary("the context window index", (rows, length), np.int64)
    lengths = np.diff(offsets)
    seq_start = np.repeat(offsets[:-1], lengths)             # the first row of each row's sequence
    seq_end = np.repeat(offsets[1:], lengths)
    src = np.arange(rows, dtype=np.int64)[:, None] + (start + np.arange(length, dtype=np.int64))
    inside = (src >= seq_start[:, None]) & (src < seq_end[:, None])
    return np.where(inside, src, rows)


def gather_windows(x: np.ndarray, index: np.ndarray) -> np.ndarray:
    """[T, C * D]: the windows' rows side by side (zero rows for padding)."""
    check_temporary("the context windows", (x.shape[0], index.shape[1] * x.shape[1]), x.dtype)
    padded = np.concatenate([x, np.zeros((1, x.shape[1]), dtype=x.dtype)])
    return padded[index].reshape(x.shape[0], -1)


@sequence_conv.kernel(dtypes=FLOATS, lod=True)
def sequence_conv_kernel(attrs, x: LoDTensor, padding, w: LoDTensor):
    index = window_index(x.offsets[-1], attrs["contextStart"], attrs["contextLength"])
    out = gather_windows(x.numpy(), index) @ w.numpy()
    return LoDTensor.unchecked(out, x.offsets)


@sequence_conv.grad_maker
def _(g):
    return [g.grad_op("sequence_conv_grad",
                      inputs={"X": g.input("X"), "Filter": g.input("Filter"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X"),
                               "Filter@GRAD": g.input_grad("Filter")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


sequence_conv_grad = register_op(
    "sequence_conv_grad",
    inputs=[In("X"), In("Filter"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True), Out("Filter@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    doc="dX and dFilter of sequence_conv (see the forward op).",
)


@sequence_conv_grad.infer_shape
def _(ctx):
    x, w = _check(ctx)
    ctx.set_output("X@GRAD", x, ctx.input_dtype("X"))
    ctx.share_lod("X", "X@GRAD")
    ctx.set_output("Filter@GRAD", w, ctx.input_dtype("Filter"))


@sequence_conv_grad.kernel(dtypes=FLOATS, lod=True)
def sequence_conv_grad_kernel(attrs, x: LoDTensor, w: LoDTensor, dout: LoDTensor):
    xa, wa, d = x.numpy(), w.numpy(), dout.numpy()
    rows, width = xa.shape
    index = window_index(x.offsets[-1], attrs["contextStart"], attrs["contextLength"])
    d_filter = gather_windows(xa, index).T @ d
    dcol = (d @ wa.T).reshape(rows, -1, width)
    dx = np.zeros((rows + 1, width), dtype=d.dtype)
    # For one window position k, distinct rows read distinct sources, so a buffered
    # fancy-index += is exact; only the padding row (discarded) collects several.
    for k in range(index.shape[1]):
        dx[index[:, k]] += dcol[:, k]
    return LoDTensor.unchecked(dx[:rows], x.offsets), LoDTensor.unchecked(d_filter)
