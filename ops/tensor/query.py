"""Ops that read what a tensor is rather than compute with it (no gradient):

    shape        Out = Input's shape, int32 [rank]
    size         Out = Input's element count, int64 [1]
    isfinite / isinf / isnan           Out = [1] bool: all finite / any inf / any nan
    isfinite_v2, isinf_v2, isnan_v2    Out = the elementwise test, bool, X's shape
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, In, Out, register_op
from paddle_ir.ops.simple_op import register_simple

# -- shape / size ----------------------------------------------------------------------------

register_simple(
    "shape", [In("Input", "any tensor (only its shape is read)")], [Out("Out", "int32 [rank]")],
    [], lambda ctx: ctx.set_output("Out", (len(ctx.input_shape("Input")),), np.int32),
    lambda attrs, x: np.asarray(x.shape, dtype=np.int32), dtypes=ALL_DTYPES, doc=__doc__)

register_simple(
    "size", [In("Input", "any tensor")], [Out("Out", "int64 [1]")], [],
    lambda ctx: ctx.set_output("Out", (1,), np.int64),
    lambda attrs, x: np.asarray([x.size], dtype=np.int64), dtypes=ALL_DTYPES, doc=__doc__)


# -- isfinite / isinf / isnan ----------------------------------------------------------------

for _op, _fn, _what in (("isfinite", lambda x: np.isfinite(x).all(), "every element finite"),
                        ("isinf", lambda x: np.isinf(x).any(), "some element +-inf"),
                        ("isnan", lambda x: np.isnan(x).any(), "some element NaN")):
    register_simple(
        _op, [In("X")], [Out("Out", f"[1] bool: {_what}")], [],
        lambda ctx: ctx.set_output("Out", (1,), np.bool_),
        lambda attrs, x, _f=_fn: np.asarray([bool(_f(x))]), dtypes=FLOATS, doc=__doc__)


# -- isnan_v2, isinf_v2, isfinite_v2 ---------------------------------------------------------

for _name, _fn in (("isnan_v2", np.isnan), ("isinf_v2", np.isinf),
                   ("isfinite_v2", np.isfinite)):
    _op = register_op(_name, inputs=[In("X")], outputs=[Out("Out", "bool, X's shape")],
                      doc=f"Out = {_fn.__name__}(X), elementwise.")

    @_op.infer_shape
    def _(ctx):
        ctx.set_output("Out", ctx.input_shape("X"), np.bool_)

    def _kernel(attrs, x, fn=_fn):
        if x.dtype.kind not in "fc":  # integers are always finite
            return np.full(x.shape, fn is np.isfinite)
        return fn(x)

    _op.kernel(dtypes=ALL_DTYPES)(_kernel)
