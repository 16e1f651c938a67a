"""arg_max, arg_min: the index of the largest (smallest) element along `axis`, the first
one on ties.

    Out = argmax(X, axis), argmin(X, axis)   shape: X.shape without axis (1 with keepdims)

With `flatten`, X is taken as 1-D: Out is 0-D (or [1] * rank with keepdims),
as in Paddle 2.5+. `dtype` picks Out's type: 2 int32, 3 int64 (-1, the
default, means int64). No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import to_numpy_dtype
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import NUMERIC, Attr, In, Out, register_op

# Paddle's CPU kernels also search uint8 and int16
_SEARCHED = NUMERIC + (np.dtype(np.uint8), np.dtype(np.int16))


def _spec():
    return dict(
        inputs=[In("X")],
        outputs=[Out("Out", "int64 (or int32, see dtype) indices")],
        attrs=[Attr("axis", "long", 0, "the axis searched; negative counts from the end"),
               Attr("keepdims", "bool", False, "keep the searched axis as size 1"),
               Attr("flatten", "bool", False, "search X as one flat vector"),
               Attr("dtype", "int", -1, "Out's data type: 2 int32, 3 int64 (-1: int64)")],
        doc=__doc__)


arg_max = register_op("arg_max", **_spec())
arg_min = register_op("arg_min", **_spec())


def _out_dtype(code: int) -> np.dtype:
    return np.dtype(np.int64) if code == -1 else to_numpy_dtype(code)


@arg_min.infer_shape
@arg_max.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    code = ctx.attr("dtype")
    ctx.enforce(code in (-1, 2, 3), lambda: f"dtype must be 2 (int32) or 3 (int64), got {code}")
    keep = ctx.attr("keepdims")
    if ctx.attr("flatten"):
        ctx.set_output("Out", [1] * len(x) if keep else [], _out_dtype(code))
        return
    rank = max(len(x), 1)
    axis = ctx.attr("axis")
    ctx.enforce(-rank <= axis < rank,
                lambda: f"axis must be in [-{rank}, {rank}) for X.shape={shape_str(x)}, got {axis}")
    axis %= rank
    out = [1 if i == axis else d for i, d in enumerate(x)] if keep else \
        [d for i, d in enumerate(x) if i != axis]
    ctx.set_output("Out", out, _out_dtype(code))


def _search(find, name: str):
    """The kernel of the op that finds with `find` (np.argmax or np.argmin)."""

    def kernel(attrs, x):
        dtype = _out_dtype(attrs["dtype"])
        if attrs["flatten"]:
            index = np.asarray(find(x), dtype=dtype)
            return index.reshape([1] * x.ndim) if attrs["keepdims"] else index
        if x.ndim == 0:
            return np.zeros((), dtype=dtype)
        index = find(x, axis=int(attrs["axis"]), keepdims=attrs["keepdims"])
        return np.asarray(index, dtype=dtype)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


arg_max.kernel(dtypes=_SEARCHED)(_search(np.argmax, "arg_max_dense"))
arg_min.kernel(dtypes=_SEARCHED)(_search(np.argmin, "arg_min_dense"))
