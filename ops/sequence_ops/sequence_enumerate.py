"""sequence_enumerate: Out[j] = X[j : j + win_size] within j's sequence (int ids, [N, 1]),
pad_value past the sequence's end; Out [N, win_size], X's LoD. No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import INTS, Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import lengths_of, require_lod
from paddle_ir.ops.simple_op import register_simple


def _infer_enumerate(ctx):
    require_lod(ctx, "X")
    shape = ctx.input_shape("X")
    ctx.enforce(len(shape) == 2 and shape[1] in (1, -1),
                lambda: f"X must be [N, 1], got {list(shape)}")
    ctx.enforce(ctx.attr("win_size") >= 1,
                lambda: f"win_size must be >= 1, got {ctx.attr('win_size')}")
    ctx.set_output("Out", (shape[0], ctx.attr("win_size")), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def _enumerate(attrs, x: LoDTensor) -> LoDTensor:
    ids, offsets = x.numpy().reshape(-1), x.offsets[-1]
    win = attrs["win_size"]
    n = ids.size
    pos = np.arange(n)[:, None] + np.arange(win)[None, :]
    end = np.repeat(offsets[1:], lengths_of(offsets))[:, None]
    inside = pos < end
    out = np.where(inside, ids[np.minimum(pos, max(n - 1, 0))] if n else 0, attrs["pad_value"])
    return LoDTensor.unchecked(out.astype(ids.dtype).reshape(n, win), x.offsets)


register_simple(
    "sequence_enumerate", [In("X", "int ids [N, 1] with a LoD")], [Out("Out", "[N, win_size]")],
    [Attr("win_size", "int", 2, "the window"), Attr("pad_value", "int", 0, "past the end")],
    _infer_enumerate, _enumerate, dtypes=INTS, lod=True, doc=__doc__)
