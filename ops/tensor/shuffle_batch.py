"""shuffle_batch (+ _grad): the rows of X (every position of its leading dims, each a
vector of its last dim) in a random order.

    ShuffleIdx = a random permutation of the R = prod(X.shape[:-1]) rows (int64 [R])
    Out        = X's rows in that order, X's shape
    SeedOut    = the next seed (int64 [1]), for the next run to feed back as Seed
    dX[ShuffleIdx[i]] = dOut[i]

The permutation comes from the seed: the Seed input's value when it is non-zero, else
the startup_seed attribute, else fresh entropy. The generator is numpy's, not the C++
standard library's Paddle uses, so a given seed permutes differently from Paddle; the
gradient follows ShuffleIdx either way.
"""

from __future__ import annotations

import math

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, Attr, In, Out, register_op

shuffle_batch = register_op(
    "shuffle_batch",
    inputs=[In("X"), In("Seed", "int64 [1]: the seed (0: the attribute's)")],
    outputs=[Out("Out", "X's rows shuffled"), Out("ShuffleIdx", "int64: the permutation"),
             Out("SeedOut", "int64 [1]: the next seed")],
    attrs=[Attr("startup_seed", "int", 0, "the seed when the Seed input holds 0")],
    doc=__doc__,
)


@shuffle_batch.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) >= 1, lambda: f"X must have rank >= 1, got {shape_str(x)}")
    rows = -1 if any(d < 0 for d in x[:-1]) else math.prod(x[:-1])
    ctx.set_output("Out", x, ctx.input_dtype("X"))
    ctx.set_output("ShuffleIdx", (rows,), np.int64)
    ctx.set_output("SeedOut", (1,), np.int64)


@shuffle_batch.kernel(dtypes=ALL_DTYPES)
def shuffle_batch_kernel(attrs, x, seed):
    value = int(np.asarray(seed).reshape(-1)[0]) if seed is not None and seed.size else 0
    value = value or attrs["startup_seed"]
    gen = np.random.default_rng(value % 2 ** 64 if value else None)
    rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    perm = gen.permutation(rows.shape[0]).astype(np.int64)
    next_seed = np.asarray([gen.integers(1, 2 ** 31)], np.int64)
    return rows[perm].reshape(x.shape), perm, next_seed


@shuffle_batch.grad_maker
def _(g):
    return [g.grad_op("shuffle_batch_grad",
                      inputs={"ShuffleIdx": g.output("ShuffleIdx"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


shuffle_batch_grad = register_op(
    "shuffle_batch_grad",
    inputs=[In("ShuffleIdx"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    key_inputs=["Out@GRAD"],
    doc="dX[ShuffleIdx[i]] = dOut[i] (rows).",
)


@shuffle_batch_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("Out@GRAD"), ctx.input_dtype("Out@GRAD"))


@shuffle_batch_grad.kernel(dtypes=FLOATS)
def shuffle_batch_grad_kernel(attrs, perm, dout):
    rows = dout.reshape(-1, dout.shape[-1])
    dx = np.empty_like(rows)
    dx[perm] = rows
    return dx.reshape(dout.shape)
