"""cvm (+ _grad), the continuous value model of CTR features:
use_cvm: Y = X with Y0 = log(X0 + 1), Y1 = log(X1 + 1) - Y0; else Y = X[:, 2:].
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _infer_cvm(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 2, lambda: f"X must be [N, D], got {list(x)}")
    width = x[1] if ctx.attr("use_cvm") or x[1] < 0 else x[1] - 2
    ctx.set_output("Y", (x[0], width), ctx.input_dtype("X"))
    ctx.share_lod("X", "Y")


def _cvm(attrs, x, cvm):
    if not attrs["use_cvm"]:
        return x[:, 2:].copy()
    y = x.copy()
    y[:, 0] = np.log(x[:, 0] + 1)
    y[:, 1] = np.log(x[:, 1] + 1) - y[:, 0]
    return y


def _cvm_grad(attrs, x, cvm, dy):
    dx = np.zeros(x.shape, dtype=dy.dtype)
    dx[:, 2:] = dy[:, 2:] if attrs["use_cvm"] else dy
    dx[:, :2] = cvm[:, :2]  # Paddle's rule: the show/click columns take the CVM values
    return dx


register_simple(
    "cvm", [In("X", "[N, D], columns 0-1 show and click"), In("CVM", "[N, 2]")],
    [Out("Y", "[N, D] or [N, D - 2]")],
    [Attr("use_cvm", "bool", True, "transform the two columns (else drop them)")],
    _infer_cvm, _cvm, backward=_cvm_grad, wrt=["X"], out_slot="Y", doc=__doc__)
