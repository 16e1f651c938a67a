"""sequence_erase: per sequence, drop the ids listed in `tokens` (int ids [T, 1] with a
LoD; no gradient).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import INTS, Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import infer_lod_ids, keep_per_sequence
from paddle_ir.ops.simple_op import register_simple

register_simple(
    "sequence_erase", [In("X", "int ids [T, 1] with a LoD")], [Out("Out", "the kept ids")],
    [Attr("tokens", "ints", [], "the ids to drop")],
    lambda ctx: infer_lod_ids(ctx, "X", "Out"),
    lambda attrs, x: keep_per_sequence(x, ~np.isin(x.numpy().reshape(-1), attrs["tokens"])),
    dtypes=INTS, lod=True, doc=__doc__)
