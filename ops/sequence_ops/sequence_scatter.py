"""sequence_scatter (+ _grad): Out = X; Out[i, Ids[j]] += Updates[j] for j in sequence i of
Ids. The gradient passes dOut to X and gathers dOut[i, Ids[j]] for Updates.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import FLOATS, INTS, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import lod_error, require_lod, segment_ids
from paddle_ir.ops.simple_op import register_simple


def _infer_scatter(ctx):
    require_lod(ctx, "Ids")
    ctx.enforce(ctx.input_dtype("Ids") in INTS, "Ids must be int32 or int64")
    x, ids, upd = ctx.input_shape("X"), ctx.input_shape("Ids"), ctx.input_shape("Updates")
    ctx.enforce(len(x) == 2, lambda: f"X must be [n, D], got {list(x)}")
    ctx.enforce(ids[0] < 0 or upd[0] < 0 or ids[0] == upd[0], lambda:
                f"Updates must have one row per id, got Ids {list(ids)} and Updates {list(upd)}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))


def _scatter_coords(x_shape, ids: LoDTensor, updates_rows: int):
    offsets = ids.offsets[-1]
    cols = ids.numpy().reshape(-1).astype(np.int64)
    rows = segment_ids(offsets)
    if offsets.size - 1 != x_shape[0] or cols.size != updates_rows:
        raise lod_error("sequence_scatter",
                        f"Ids must have one sequence per row of X ({x_shape[0]}) and one id per "
                        f"row of Updates ({updates_rows}), got {offsets.size - 1} sequences "
                        f"and {cols.size} ids")
    if cols.size and (cols.min() < 0 or cols.max() >= x_shape[1]):
        raise lod_error("sequence_scatter", f"Ids must lie in [0, {x_shape[1]})")
    return rows, cols


def _seq_scatter(attrs, x: LoDTensor, ids: LoDTensor, updates: LoDTensor) -> LoDTensor:
    out = x.numpy().copy()
    rows, cols = _scatter_coords(out.shape, ids, updates.shape[0])
    np.add.at(out, (rows, cols), updates.numpy().reshape(-1))
    return LoDTensor.unchecked(out, x.offsets)


def _seq_scatter_grad(attrs, x, ids, updates, dout):
    d = dout.numpy()
    rows, cols = _scatter_coords(d.shape, ids, updates.shape[0])
    return (LoDTensor.unchecked(d.copy(), x.offsets),
            LoDTensor.unchecked(d[rows, cols].reshape(updates.shape), updates.offsets))


register_simple(
    "sequence_scatter", [In("X", "[n, D]"), In("Ids", "[M, 1] int with a LoD"),
                         In("Updates", "[M, 1], Ids' LoD")], [Out("Out", "X's shape")], [],
    _infer_scatter, _seq_scatter, backward=_seq_scatter_grad, wrt=["X", "Updates"],
    dtypes=FLOATS, lod=True, doc=__doc__)
