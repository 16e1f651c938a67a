"""hash: Fluid's feature hashing of integer ids with XXH64, as `layers.hash` uses it.

For each row r of X (the last dim's values, as their bytes in memory: int32 or int64,
little-endian) and each i in 0 .. num_hash-1:

    Out[r, i, 0] = XXH64(bytes of row r, seed=i) mod mod_by

Out is [X.shape[:-1], num_hash, 1] with X's dtype and X's LoD. XXH64 comes from
the `xxhash` package (the reference implementation's bindings), so the ids match
Paddle's bit for bit; another hash would send ids to other buckets silently.

Paddle's kernel walks only X.shape[0] rows, leaving the rest of Out unset when X
has rank > 2; here every row (the product of the leading dims) is hashed.
"""

from __future__ import annotations

import numpy as np
import xxhash

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import INTS, Attr, In, Out, register_op

hash_op = register_op(
    "hash",
    inputs=[In("X", "int32/int64 ids [..., K]: each row of K ids is hashed as one key")],
    outputs=[Out("Out", "[..., num_hash, 1]: the bucket of each row per hash seed")],
    attrs=[Attr("num_hash", "int", 1, "how many hashes (seeds 0 .. num_hash-1) per row"),
           Attr("mod_by", "long", 100000, "the number of buckets")],
    doc=__doc__,
)


@hash_op.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) >= 2, lambda: f"X must have rank >= 2 (rows of ids), got {shape_str(x)}")
    ctx.enforce(ctx.input_dtype("X") in INTS,
                lambda: f"X must hold int32 or int64 ids, got {ctx.input_dtype('X')}")
    ctx.enforce(ctx.attr("num_hash") >= 1,
                lambda: f"num_hash must be >= 1, got {ctx.attr('num_hash')}")
    ctx.enforce(ctx.attr("mod_by") >= 1, lambda: f"mod_by must be >= 1, got {ctx.attr('mod_by')}")
    ctx.set_output("Out", tuple(x[:-1]) + (ctx.attr("num_hash"), 1), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


@hash_op.kernel(dtypes=INTS)
def hash_kernel(attrs, x):
    num_hash, mod_by = attrs["num_hash"], attrs["mod_by"]
    rows = np.ascontiguousarray(x.reshape(-1, x.shape[-1]), dtype=x.dtype.newbyteorder("<"))
    out = np.empty((rows.shape[0], num_hash), np.uint64)
    for r, row in enumerate(rows):
        key = row.tobytes()
        for seed in range(num_hash):
            out[r, seed] = xxhash.xxh64_intdigest(key, seed=seed)
    # uint64 % mod_by as in Paddle's C++ (mod_by converted to unsigned), then cast to X's type
    out %= np.uint64(mod_by)
    return out.astype(x.dtype).reshape(x.shape[:-1] + (num_hash, 1))
