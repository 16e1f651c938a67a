"""dpsgd: differentially private SGD (Abadi et al., CCS16) as Paddle's kernel computes it.

    norm  = ||Grad||_2 over the whole tensor
    scale = norm / clip if norm > clip else 1
    noise = one draw of N(0, sigma^2), shared by every element
    Param -= lr * (Grad / scale + noise / batch_size)

The single shared draw is Paddle's (its kernel draws one Gaussian number per
step, not one per element); `seed` 0 draws fresh randomness each step, any
other seed the same number each step, as Paddle's kernel does with a fixed
seed. Dense gradients only, as in Paddle.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import infer_optimizer, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

dpsgd = register_op(
    "dpsgd",
    inputs=[In("Param"), In("Grad"), In("LearningRate", "a one-element tensor")],
    outputs=[Out("ParamOut", "the Param variable, updated in place")],
    attrs=[Attr("clip", "float", 10.0, "the gradient's L2 norm is clipped to this"),
           Attr("batch_size", "float", 16.0, "divides the noise"),
           Attr("sigma", "float", 1.0, "the noise's standard deviation"),
           Attr("seed", "int", 0, "0: fresh randomness each step; else this fixed seed")],
    key_inputs=["Grad"],
    dtype_from="Param",
    doc=__doc__,
)
dpsgd.infer_shape(lambda ctx: infer_optimizer(ctx))


@dpsgd.kernel(dtypes=FLOATS)
def dpsgd_dense(attrs, param, grad, learning_rate):
    # Paddle accumulates the norm in float32 whatever the parameter's type.
    norm = np.float32(np.sqrt(np.sum(np.square(grad, dtype=np.float32), dtype=np.float32)))
    clip = np.float32(attrs["clip"])
    scale = norm / clip if norm > clip else np.float32(1.0)
    rng = np.random.default_rng(attrs["seed"] if attrs["seed"] else None)
    noise = np.float32(rng.standard_normal()) * np.float32(attrs["sigma"])
    dtype = param.dtype.type
    lr = scalar(learning_rate, param.dtype)
    param -= lr * (grad / dtype(scale) + dtype(noise) / dtype(attrs["batch_size"]))
    return param
