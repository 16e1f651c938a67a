"""l1_norm (+ _grad): the sum of absolute values, as a [1] tensor.

    Out = sum(|X|);   dX = sign(X) * dOut
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import In, Out
from paddle_ir.ops.simple_op import register_simple


def _infer(ctx):
    ctx.set_output("Out", (1,), ctx.input_dtype("X"))


register_simple("l1_norm", [In("X")], [Out("Out", "[1]: sum(|X|)")], [], _infer,
                lambda attrs, x: np.asarray([np.abs(x).sum()], x.dtype),
                backward=lambda attrs, x, dout: (np.sign(x) * dout.reshape(())).astype(x.dtype),
                wrt=["X"], doc=__doc__)
