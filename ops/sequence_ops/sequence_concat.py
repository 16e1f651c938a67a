"""sequence_concat (+ _grad): concatenate 1-level sequence batches sequence by sequence.

Every input holds the same number n of sequences; Out's i-th sequence is the
i-th sequence of X[0], then that of X[1], and so on (Paddle's example):

    X[0].lod = [[0, 3, 5]], X[0] = [1, 2, 3, 4, 5]
    X[1].lod = [[0, 2, 4]], X[1] = [6, 7, 8, 9]
    -> Out.lod = [[0, 5, 9]], Out = [1, 2, 3, 6, 7, 4, 5, 8, 9]

Inputs must agree in dtype and in the dims after the first. Gradient: each
dX[k] is the rows of dOut that came from X[k].
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import dims_match
from paddle_ir.ops.registry import FLOATS, NUMERIC, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import (
    lengths_of,
    lod_error,
    offsets_of,
    require_lod,
)

sequence_concat = register_op(
    "sequence_concat",
    inputs=[In("X", "1-level LoDTensors with the same number of sequences", duplicable=True)],
    outputs=[Out("Out", "the sequences concatenated pairwise; 1 LoD level")],
    doc=__doc__,
)


@sequence_concat.infer_shape
def _(ctx):
    count = ctx.input_count("X")
    ctx.enforce(count >= 1, "sequence_concat requires at least one input X")
    shapes = ctx.input_shapes("X")
    first, dtype = shapes[0], ctx.input_dtype("X")
    for k in range(count):
        require_lod(ctx, "X", k, exactly=1)
        shape = shapes[k]
        ctx.enforce(len(shape) == len(first)
                    and all(dims_match(a, b) for a, b in zip(shape[1:], first[1:], strict=True)),
                    lambda: f"sequence_concat requires inputs with the same dims after the "
                    f"first, got "
                    f"X[0] {list(first)} and X[{k}] {list(shape)}")
        ctx.enforce(ctx.input_dtype("X", k) == dtype,
                    lambda: f"sequence_concat requires inputs of one dtype, got X[0] {dtype} and "
                    f"X[{k}] {ctx.input_dtype('X', k)}")
    rows = -1 if any(s[0] < 0 for s in shapes) else sum(s[0] for s in shapes)
    ctx.set_output("Out", (rows,) + tuple(first[1:]), dtype)
    ctx.set_output_lod_level("Out", 1)


def destinations(offsets: list[np.ndarray], op_type: str) -> tuple[list[np.ndarray], np.ndarray]:
    """(for each input, the Out row of each of its rows; Out's offsets)."""
    counts = {o.size - 1 for o in offsets}
    if len(counts) != 1:
        raise lod_error(
            op_type,
            "sequence_concat requires inputs with the same number of sequences, got "
            + ", ".join(f"X[{k}] {o.size - 1}" for k, o in enumerate(offsets)),
            hint="the i-th sequences of all inputs are joined into Out's i-th sequence: feed "
                 "each input as create_lod_tensor(data, [[lengths]]) with as many lengths")
    lengths = [lengths_of(o) for o in offsets]
    out_offsets = offsets_of(np.sum(lengths, axis=0))
    dests, before = [], out_offsets[:-1].copy()
    for o, n in zip(offsets, lengths, strict=True):
        # Row r of sequence i goes to Out's sequence i, after the earlier inputs' rows.
        dests.append(np.arange(int(o[-1]), dtype=np.int64) + np.repeat(before - o[:-1], n))
        before += n
    return dests, out_offsets


@sequence_concat.kernel(dtypes=NUMERIC, lod=True)
def sequence_concat_kernel(attrs, xs: list[LoDTensor]):
    dests, out_offsets = destinations([x.offsets[0] for x in xs], "sequence_concat")
    first = xs[0].numpy()
    out = np.empty((int(out_offsets[-1]),) + first.shape[1:], dtype=first.dtype)
    for x, dest in zip(xs, dests, strict=True):
        out[dest] = x.numpy()
    return LoDTensor.unchecked(out, (out_offsets,))


@sequence_concat.grad_maker
def _(g):
    return [g.grad_op("sequence_concat_grad",
                      inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


sequence_concat_grad = register_op(
    "sequence_concat_grad",
    inputs=[In("X", duplicable=True), In("Out@GRAD")],
    outputs=[Out("X@GRAD", duplicable=True, dispensable=True)],
    key_inputs=["Out@GRAD"],
    doc="dX[k] = the rows of dOut that sequence_concat took from X[k], with X[k]'s LoD.",
)


@sequence_concat_grad.infer_shape
def _(ctx):
    # One gradient per input position: the kernel writes every one of them.
    ctx.enforce(ctx.output_names("X@GRAD") == [] or
                len(ctx.output_names("X@GRAD")) == ctx.input_count("X"),
                "X@GRAD must bind one variable per input X (or none)")
    for k in range(ctx.input_count("X")):
        require_lod(ctx, "X", k, exactly=1)
        ctx.set_output("X@GRAD", ctx.input_shape("X", k), ctx.input_dtype("Out@GRAD"), i=k)
        ctx.share_lod("X", "X@GRAD", i=k, j=k)


@sequence_concat_grad.kernel(dtypes=FLOATS, lod=True)
def sequence_concat_grad_kernel(attrs, xs: list[LoDTensor], dout: LoDTensor):
    dests, _ = destinations([x.offsets[0] for x in xs], "sequence_concat_grad")
    d = dout.numpy()
    return [LoDTensor.unchecked(d[dest], x.offsets) for x, dest in zip(xs, dests, strict=True)]
