"""truncated_gaussian_random: Out ~ N(mean, std^2) truncated to [mean - 2 std, mean + 2 std]
(draws outside the interval are drawn again), as Fluid's TruncatedNormal initializer."""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import DataType, to_numpy_dtype
from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.registry import FLOATS, Attr, Out, register_op
from paddle_ir.ops.tensor.fill import _infer_from_attrs, _rng

truncated_gaussian_random = register_op(
    "truncated_gaussian_random",
    outputs=[Out("Out")],
    attrs=[
        Attr("shape", "ints", [], "the output shape"),
        Attr("dtype", "int", DataType.FP32, "the output DataType"),
        Attr("mean", "float", 0.0),
        Attr("std", "float", 1.0),
        Attr("seed", "int", 0, "0: random; otherwise a fixed seed"),
    ],
    dtype_from="attr:dtype",
    doc=__doc__,
)
truncated_gaussian_random.infer_shape(_infer_from_attrs)


@truncated_gaussian_random.kernel(dtypes=FLOATS)
def truncated_gaussian_random_kernel(attrs):
    dtype = to_numpy_dtype(attrs["dtype"])
    check_allocation("truncated_gaussian_random", attrs["shape"], np.float64,
                     "its shape attribute")
    mean, std = attrs["mean"], attrs["std"]  # std >= 0: the shape rule refuses the rest
    rng = _rng(attrs["seed"])
    values = rng.standard_normal(size=attrs["shape"]).reshape(-1)
    outside = np.flatnonzero(np.abs(values) > 2.0)
    while outside.size:  # each round redraws the ~4.6% left outside: a few rounds
        values[outside] = rng.standard_normal(size=outside.size)
        outside = outside[np.abs(values[outside]) > 2.0]
    return (mean + std * values).reshape(attrs["shape"]).astype(dtype)
