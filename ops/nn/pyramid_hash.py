"""pyramid_hash (+ _grad): hashed embeddings of every n-gram of each id sequence (Paddle's
search_pyramid_hash, pyramid_hash_op.cc).

X holds int32 ids [N, 1] with one LoD level. For each sequence of w ids and each n-gram
length n = 2 .. min(pyramid_layer, w) (n-grams of n-1 = 1 .. pyramid_layer - 1 steps), in
order of n, then of position, the term is the n ids as float32 values; a kept term gives
one row of Out [rows, num_emb]:

    Out[row, k*r : (k+1)*r] = W_flat[p_k : p_k + r],   p_k = XXH32(term bytes, seed k*r)
                                                        mod space_len, r = rand_len

(W is [space_len + rand_len, 1], read flat). In training (is_training != 0) a term is
kept with probability 1 - drop_out_percent, drawn with glibc's rand_r from `seed` in the
order above (as Paddle draws them); otherwise every term is kept and Out is multiplied
by drop_out_percent (Paddle's inference scaling). A sequence with no kept term gives one
zero row. Out's LoD counts each sequence's rows. X_Temp_Out is X as float32; DropPos
holds the keep flags (int32, [N * pyramid_layer, 1], zero past the terms).

use_filter with a white or black list (Paddle's bloom filters in a float tensor) is
refused: paddle-ir does not read Paddle's bloom filter layout.

pyramid_hash_grad gives W@GRAD, the derivative: each row's slices of dOut added at the
W positions the row read (times drop_out_percent outside training). Paddle's own grad
kernel instead subtracts lr * that from W in place and gives no gradient; an optimizer
stepping W@GRAD (SGD at learning rate lr) makes the same update.
"""

from __future__ import annotations

import numpy as np
import xxhash

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_RAND_MAX = 2147483647
_ATTRS = [Attr("num_emb", "int", 0, "the embedding width, a multiple of rand_len"),
          Attr("space_len", "int", 0, "the hash space: W holds space_len + rand_len values"),
          Attr("pyramid_layer", "int", 2, "the longest n-gram + 1"),
          Attr("rand_len", "int", 0, "the values one hash reads"),
          Attr("drop_out_percent", "float", 0.0, "the share of terms dropped in training"),
          Attr("is_training", "int", 0, "drop terms (else scale by drop_out_percent)"),
          Attr("use_filter", "bool", True, "filter terms by the white and black lists"),
          Attr("white_list_len", "int", 0, "the white list's length"),
          Attr("black_list_len", "int", 0, "the black list's length"),
          Attr("seed", "int", 0, "rand_r's seed for the training dropout"),
          Attr("lr", "float", 0.0, "the learning rate Paddle's grad kernel applies itself"),
          Attr("distribute_update_vars", "string", "", "parameter-server tables (unused)")]

pyramid_hash = register_op(
    "pyramid_hash",
    inputs=[In("X", "int32 ids [N, 1], one LoD level"),
            In("W", "[space_len + rand_len, 1] the hashed embedding table"),
            In("WhiteList", "Paddle's bloom filter of kept terms", dispensable=True),
            In("BlackList", "Paddle's bloom filter of dropped terms", dispensable=True)],
    outputs=[Out("Out", "[rows, num_emb], one row per kept n-gram"),
             Out("DropPos", "int32 keep flags"), Out("X_Temp_Out", "X as float32")],
    attrs=_ATTRS,
    key_inputs=["W"],
    doc=__doc__,
)


@pyramid_hash.infer_shape
def _(ctx):
    x, w = ctx.input_shape("X"), ctx.input_shape("W")
    num_emb, rand_len, space = (ctx.attr(a) for a in ("num_emb", "rand_len", "space_len"))
    ctx.enforce(len(x) == 2 and x[1] in (1, -1), lambda: f"X must be int32 ids [N, 1], got "
                                                 f"{shape_str(x)}")
    ctx.enforce(ctx.input_dtype("X") == np.int32, lambda: f"X must be int32, got "
                                                  f"{ctx.input_dtype('X')}")
    ctx.enforce(rand_len > 0 and num_emb > 0 and num_emb % rand_len == 0 and space > 0,
                lambda: f"num_emb ({num_emb}) must be a positive multiple of rand_len ({rand_len}) "
                f"and space_len ({space}) positive")
    ctx.enforce(ctx.attr("pyramid_layer") >= 2,
                lambda: f"pyramid_layer must be >= 2, got {ctx.attr('pyramid_layer')}")
    ctx.enforce(len(w) == 2 and w[1] in (1, -1) and w[0] in (space + rand_len, -1),
                lambda: f"W must be [space_len + rand_len, 1] = [{space + rand_len}, 1], got "
                f"{shape_str(w)}")
    filtered = ctx.attr("use_filter") and (ctx.attr("white_list_len") > 0
                                           or ctx.attr("black_list_len") > 0)
    ctx.enforce(not filtered, "use_filter with a white or black list (Paddle's bloom "
                              "filters) is not supported")
    ctx.set_output("Out", [-1, num_emb], ctx.input_dtype("W"))
    ctx.set_output_lod_level("Out", 1)
    rows = x[0] * ctx.attr("pyramid_layer") if x[0] >= 0 else -1
    ctx.set_output("DropPos", [rows, 1], np.int32)
    ctx.set_output("X_Temp_Out", x, np.float32)


def rand_r(state: int) -> tuple[int, int]:
    """glibc's rand_r: (the next value in [0, RAND_MAX], the new state)."""
    value = 0
    for bits, mod in ((0, 2048), (10, 1024), (10, 1024)):
        state = (state * 1103515245 + 12345) & 0xFFFFFFFF
        value = (value << bits) ^ ((state // 65536) % mod)
    return value, state


def _terms(attrs, ids: np.ndarray, offsets):
    """Per sequence, its candidate terms in Paddle's order: (sequence, term bytes) with
    the keep flag drawn as Paddle draws it."""
    state = attrs["seed"] & 0xFFFFFFFF
    training, rate = attrs["is_training"] != 0, np.float32(attrs["drop_out_percent"])
    values = ids.astype(np.float32)
    found = []
    for s, (lo, hi) in enumerate(zip(offsets, offsets[1:], strict=False)):
        w = hi - lo
        for step in range(1, min(attrs["pyramid_layer"], w)):
            for start in range(w - step):
                keep = True
                if training:
                    draw, state = rand_r(state)
                    keep = not np.float32(draw) / np.float32(_RAND_MAX) < rate
                found.append((s, values[lo + start:lo + start + step + 1].tobytes(), keep))
    return found


def _positions(attrs, term: bytes) -> list[int]:
    r, space = attrs["rand_len"], attrs["space_len"]
    return [xxhash.xxh32_intdigest(term, seed=k) % space
            for k in range(0, attrs["num_emb"], r)]


def _layout(attrs, x: LoDTensor):
    if not x.offsets:
        raise KernelError("pyramid_hash: X must carry a LoD (one sequence of ids per "
                          "instance)")
    offsets = [int(o) for o in x.offsets[-1]]
    terms = _terms(attrs, x.numpy().reshape(-1), offsets)
    counts = np.zeros(len(offsets) - 1, np.int64)
    for s, _, keep in terms:
        counts[s] += keep
    return offsets, terms, counts


def _row_lod(counts: np.ndarray):
    return np.concatenate([[0], np.cumsum(np.maximum(counts, 1))]).astype(np.int64)


@pyramid_hash.kernel(dtypes=FLOATS, lod=True)
def pyramid_hash_kernel(attrs, x, w, white, black):
    weights = w.numpy().reshape(-1)
    offsets, terms, counts = _layout(attrs, x)
    lod = _row_lod(counts)
    out = np.zeros((int(lod[-1]), attrs["num_emb"]), weights.dtype)
    r = attrs["rand_len"]
    row = {s: int(lod[s]) for s in range(len(counts))}
    for s, term, keep in terms:
        if keep:
            for k, p in enumerate(_positions(attrs, term)):
                out[row[s], k * r:(k + 1) * r] = weights[p:p + r]
            row[s] += 1
    if attrs["is_training"] == 0:
        out *= weights.dtype.type(attrs["drop_out_percent"])
    flags = np.zeros((x.shape[0] * attrs["pyramid_layer"], 1), np.int32)
    flags[:len(terms), 0] = [keep for _, _, keep in terms]
    return (LoDTensor.unchecked(out, (lod,)), LoDTensor(flags),
            LoDTensor(x.numpy().astype(np.float32)))


@pyramid_hash.grad_maker
def _(g):
    return [g.grad_op("pyramid_hash_grad",
                      inputs={"X": g.input("X"), "W": g.input("W"),
                              "DropPos": g.output("DropPos"),
                              "X_Temp_Out": g.output("X_Temp_Out"),
                              "Out@GRAD": g.output_grad("Out")},
                      outputs={"W@GRAD": g.input_grad("W")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


pyramid_hash_grad = register_op(
    "pyramid_hash_grad",
    inputs=[In("X"), In("W"), In("DropPos"), In("X_Temp_Out"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", "never written (ids have no gradient)", dispensable=True),
             Out("W@GRAD", "the derivative of Out by W (paddle-ir's; see the op)",
                 dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Out@GRAD"],
    doc="W@GRAD: dOut's row slices added at the W positions each row read.",
)


@pyramid_hash_grad.infer_shape
def _(ctx):
    if ctx.has_output("W@GRAD"):
        ctx.set_output("W@GRAD", ctx.input_shape("W"), ctx.input_dtype("W"))


@pyramid_hash_grad.kernel(dtypes=FLOATS, lod=True)
def pyramid_hash_grad_kernel(attrs, x, w, drop_pos, x_temp, dout):
    grad = np.zeros(w.shape[0] * w.shape[1], dout.dtype)
    offsets, terms, counts = _layout(attrs, x)
    lod = _row_lod(counts)
    d = dout.numpy()
    flags = drop_pos.numpy().reshape(-1)
    r = attrs["rand_len"]
    row = {s: int(lod[s]) for s in range(len(counts))}
    for k_term, (s, term, _) in enumerate(terms):
        if flags[k_term]:  # the forward's keep flags, as Paddle's grad reads them
            for k, p in enumerate(_positions(attrs, term)):
                grad[p:p + r] += d[row[s], k * r:(k + 1) * r]
            row[s] += 1
    if attrs["is_training"] == 0:
        grad *= dout.dtype.type(attrs["drop_out_percent"])
    return None, LoDTensor(grad.reshape(w.shape))
