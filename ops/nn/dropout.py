"""dropout (+ dropout_grad): zero each element with probability dropout_prob.

Training (is_test=False): Mask[i] = 1 with probability 1 - p (uint8), and

    downgrade_in_infer:  Out = X * Mask             (inference scales instead)
    upscale_in_train:    Out = X * Mask / (1 - p)   (p = 1 gives zeros)

Inference (is_test=True): downgrade_in_infer gives Out = X * (1 - p),
upscale_in_train gives Out = X; Mask is then empty ([0]). The mask is drawn
from a generator seeded by `seed` when fix_seed is set (the same mask every
run, as Paddle), by the int tensor input `Seed` when given, else afresh.

dX = dOut * Mask (downgrade_in_infer) or dOut * Mask / (1 - p)
(upscale_in_train); with is_test, dX = dOut * (1 - p) or dOut.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

IMPLEMENTATIONS = ("downgrade_in_infer", "upscale_in_train")
_ATTRS = [
    Attr("dropout_prob", "float", 0.5, "the probability of zeroing an element"),
    Attr("is_test", "bool", False, "inference: no mask, see the formulas"),
    Attr("fix_seed", "bool", False, "draw the mask from `seed` (the same mask every run)"),
    Attr("seed", "int", 0, "the seed used when fix_seed"),
    Attr("dropout_implementation", "string", "downgrade_in_infer",
         "downgrade_in_infer or upscale_in_train"),
]

dropout = register_op(
    "dropout",
    inputs=[In("X"), In("Seed", "an int tensor [1]: the seed (overrides the attributes)",
                        dispensable=True)],
    outputs=[Out("Out"), Out("Mask", "uint8, 1 where X is kept", dispensable=True)],
    attrs=_ATTRS,
    doc=__doc__,
)


def _check(ctx) -> None:
    impl = ctx.attr("dropout_implementation")
    ctx.enforce(impl in IMPLEMENTATIONS,
                lambda: f"dropout_implementation must be downgrade_in_infer or upscale_in_train, "
                f"got {impl!r}")
    p = ctx.attr("dropout_prob")
    ctx.enforce(0.0 <= p <= 1.0, lambda: f"dropout_prob must be in [0, 1], got {p}")


@dropout.infer_shape
def _(ctx):
    _check(ctx)
    x = ctx.input_shape("X")
    ctx.set_output("Out", x, ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")
    ctx.set_output("Mask", [0] if ctx.attr("is_test") else x, np.uint8)


def _generator(attrs, seed_t) -> np.random.Generator:
    if seed_t is not None:
        # A negative seed is taken as its 64-bit pattern (numpy refuses it; C++ casts it).
        return np.random.default_rng(int(np.asarray(seed_t).reshape(-1)[0]) % 2**64)
    return np.random.default_rng(attrs["seed"] if attrs["fix_seed"] else None)


def _keep_scale(attrs, dtype):
    """The factor a kept element is multiplied by in training."""
    p = attrs["dropout_prob"]
    if attrs["dropout_implementation"] == "upscale_in_train":
        return dtype.type(0 if p >= 1 else 1 / (1 - p))
    return dtype.type(1)


def _infer_scale(attrs, dtype):
    if attrs["dropout_implementation"] == "upscale_in_train":
        return dtype.type(1)
    return dtype.type(1 - attrs["dropout_prob"])


@dropout.kernel(dtypes=FLOATS)
def dropout_dense(attrs, x, seed_t):
    if attrs["is_test"]:
        return x * _infer_scale(attrs, x.dtype), np.zeros(0, np.uint8)
    p = attrs["dropout_prob"]
    mask = (_generator(attrs, seed_t).random(x.shape, dtype=np.float32) >= p).astype(np.uint8)
    return x * mask * _keep_scale(attrs, x.dtype), mask


@dropout.grad_maker
def _(g):
    return [g.grad_op("dropout_grad",
                      inputs={"Mask": g.output("Mask"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


dropout_grad = register_op(
    "dropout_grad",
    inputs=[In("Mask"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    doc="dX = dOut * Mask (scaled as the implementation says).",
)


@dropout_grad.infer_shape
def _(ctx):
    _check(ctx)
    ctx.set_output("X@GRAD", ctx.input_shape("Out@GRAD"), ctx.input_dtype("Out@GRAD"))
    ctx.share_lod("Out@GRAD", "X@GRAD")


@dropout_grad.kernel(dtypes=FLOATS)
def dropout_grad_dense(attrs, mask, dout):
    if attrs["is_test"]:
        return dout * _infer_scale(attrs, dout.dtype)
    return dout * mask * _keep_scale(attrs, dout.dtype)
