"""Sampling, indexing, image-patch and sequence-decoding ops of Fluid 1.7:

    gaussian_random_batch_size_like / uniform_random_batch_size_like
                     random values of `shape` with one dim taken from Input's batch
    mean_iou         per-class IoU = correct / (correct + wrong) of int predictions, and
                     their mean over classes that occur (OutWrong/OutCorrect the counts)
    multiplex        Out[i] = X[Ids[i]][i]; gradient routed to the chosen input
    random_crop      each instance's trailing dims cropped to `shape` at a random place
    sampling_id      one class id per row drawn from the row's probabilities
    shard_index      x - shard_id * shard_size if x falls in shard shard_id, else ignore_value
    gather_tree      beam-search backtracking: the full id path of every final beam
    ctc_align        per sequence: merge repeated ids (merge_repeated), then drop `blank`
    sequence_erase   per sequence: drop the ids listed in `tokens`
    edit_distance    Levenshtein distance of each hypothesis to its reference sequence
                     (divided by the reference length when normalized)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import to_numpy_dtype
from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import ALL_DTYPES, INTS, NUMERIC, Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import (
    lengths_of,
    offsets_of,
    require_lod,
    segment_ids,
)
from paddle_ir.ops.simple_op import register_simple
from paddle_ir.ops.tensor.fill import _rng, check_distribution

# -- *_random_batch_size_like ----------------------------------------------------------------

_BATCH_LIKE = [Attr("shape", "ints", [], "the output shape; output_dim_idx is replaced"),
               Attr("input_dim_idx", "int", 0, "Input's dim to copy"),
               Attr("output_dim_idx", "int", 0, "the output dim it becomes"),
               Attr("dtype", "int", 5, "the output DataType"),
               Attr("seed", "int", 0, "0: random; else fixed")]


def _batch_shape(attrs_or_ctx, in_shape):
    get = attrs_or_ctx.attr if hasattr(attrs_or_ctx, "attr") else attrs_or_ctx.__getitem__
    shape = list(get("shape"))
    shape[get("output_dim_idx")] = in_shape[get("input_dim_idx")]
    return shape


def _infer_batch_like(ctx):
    in_shape = ctx.input_shape("Input")
    i, o = ctx.attr("input_dim_idx"), ctx.attr("output_dim_idx")
    ctx.enforce(0 <= i < len(in_shape) and 0 <= o < len(ctx.attr("shape")),
                f"input_dim_idx {i} / output_dim_idx {o} out of range")
    check_distribution(ctx)
    ctx.set_output("Out", _batch_shape(ctx, in_shape), to_numpy_dtype(ctx.attr("dtype")))


for _name, _extra, _draw in (
    ("gaussian_random_batch_size_like",
     [Attr("mean", "float", 0.0, "the mean"), Attr("std", "float", 1.0, "the deviation")],
     lambda a, g, s: g.normal(a["mean"], a["std"], size=s)),
    ("uniform_random_batch_size_like",
     [Attr("min", "float", -1.0, "inclusive"), Attr("max", "float", 1.0, "exclusive")],
     lambda a, g, s: g.uniform(a["min"], a["max"], size=s)),
):
    _op = register_simple(
        _name, [In("Input", "its batch dim sizes Out")], [Out("Out", "random values")],
        _BATCH_LIKE + _extra, _infer_batch_like,
        lambda attrs, x, _d=_draw: _d(attrs, _rng(attrs["seed"]), _batch_shape(
            attrs, x.shape)).astype(to_numpy_dtype(attrs["dtype"])),
        dtypes=ALL_DTYPES, doc=__doc__)
    _op.dtype_from = "Input"


# -- mean_iou --------------------------------------------------------------------------------

def _infer_mean_iou(ctx):
    c = ctx.attr("num_classes")
    ctx.enforce(c >= 1, f"num_classes must be >= 1, got {c}")
    ctx.set_output("OutMeanIou", (1,), np.float32)
    ctx.set_output("OutWrong", (c,), np.int32)
    ctx.set_output("OutCorrect", (c,), np.int32)


def _mean_iou(attrs, pred, label):
    c = attrs["num_classes"]
    p, lab = pred.reshape(-1).astype(np.int64), label.reshape(-1).astype(np.int64)
    if p.size and (min(p.min(), lab.min()) < 0 or max(p.max(), lab.max()) >= c):
        raise KernelError(f"mean_iou: classes must lie in [0, {c})")
    right = p == lab
    correct = np.bincount(p[right], minlength=c)
    wrong = np.bincount(p[~right], minlength=c) + np.bincount(lab[~right], minlength=c)
    denom = correct + wrong
    present = denom > 0
    iou = correct[present] / denom[present]
    mean = iou.mean() if iou.size else 0.0
    return (np.array([mean], np.float32), wrong.astype(np.int32), correct.astype(np.int32))


register_simple(
    "mean_iou", [In("Predictions", "int class ids"), In("Labels", "int class ids")],
    [Out("OutMeanIou", "[1] float32"), Out("OutWrong", "[C] int32"),
     Out("OutCorrect", "[C] int32")], [Attr("num_classes", "int", 2, "C")],
    _infer_mean_iou, _mean_iou, dtypes=INTS, doc=__doc__)


# -- multiplex -------------------------------------------------------------------------------

def _infer_multiplex(ctx):
    shapes = ctx.input_shapes("X")
    ctx.enforce(len(shapes) >= 2, f"multiplex needs at least 2 inputs, got {len(shapes)}")
    ctx.enforce(all(list(s) == list(shapes[0]) for s in shapes),
                f"every X must have one shape, got {[list(s) for s in shapes]}")
    ctx.enforce(ctx.input_dtype("Ids") in INTS, "Ids must be int32 or int64")
    ctx.set_output("Out", shapes[0], ctx.input_dtype("X"))


def _choice(ids, count, rows):
    k = ids.reshape(-1).astype(np.int64)
    if k.size != rows or (k.size and (k.min() < 0 or k.max() >= count)):
        raise KernelError(f"multiplex: Ids must hold {rows} indices in [0, {count})")
    return k


def _multiplex(attrs, ids, xs):
    stacked = np.stack(xs)
    k = _choice(ids, len(xs), stacked.shape[1])
    return stacked[k, np.arange(k.size)]


def _multiplex_grad(attrs, ids, xs, dout):
    k = _choice(ids, len(xs), dout.shape[0])
    return [np.where((k == j).reshape((-1,) + (1,) * (dout.ndim - 1)), dout, 0).astype(
        dout.dtype) for j in range(len(xs))]


register_simple(
    "multiplex", [In("Ids", "[N, 1] int: which X each row takes"),
                  In("X", "the candidates", duplicable=True)],
    [Out("Out", "X[0]'s shape")], [], _infer_multiplex, _multiplex, backward=_multiplex_grad,
    wrt=["X"], key_input="X", doc=__doc__)


# -- random_crop -----------------------------------------------------------------------------

def _infer_random_crop(ctx):
    x, shape = list(ctx.input_shape("X")), list(ctx.attr("shape"))
    ctx.enforce(0 < len(shape) <= len(x), f"shape must crop X's trailing dims, got {shape} "
                f"for X {x}")
    lead = len(x) - len(shape)
    ctx.enforce(all(d < 0 or s <= d for d, s in zip(x[lead:], shape, strict=True)),
                f"crop shape {shape} exceeds X's dims {x[lead:]}")
    ctx.set_output("Out", x[:lead] + shape, ctx.input_dtype("X"))
    ctx.set_output("SeedOut", (1,), np.int64)


def _random_crop(attrs, x, seed):
    shape = list(attrs["shape"])
    lead = x.ndim - len(shape)
    # A negative seed is taken as its 64-bit pattern (numpy refuses it; C++ casts it).
    gen = np.random.default_rng(int(np.asarray(seed).reshape(-1)[0]) % 2**64)
    batch = x.reshape((-1,) + x.shape[lead:])
    out = np.empty((batch.shape[0],) + tuple(shape), dtype=x.dtype)
    starts = [gen.integers(0, d - s + 1, size=batch.shape[0])
              for d, s in zip(x.shape[lead:], shape, strict=True)]
    grids = np.meshgrid(*[np.arange(s) for s in shape], indexing="ij")
    index = [np.arange(batch.shape[0]).reshape((-1,) + (1,) * len(shape))]
    index += [st.reshape((-1,) + (1,) * len(shape)) + g[None] for st, g in zip(starts, grids,
                                                                              strict=True)]
    out[...] = batch[tuple(index)]
    next_seed = np.asarray([gen.integers(1, 2 ** 31)], dtype=np.int64)
    return out.reshape(x.shape[:lead] + tuple(shape)), next_seed


register_simple(
    "random_crop", [In("X"), In("Seed", "int64 [1]")],
    [Out("Out", "cropped"), Out("SeedOut", "the next seed")],
    [Attr("shape", "ints", [], "the crop of X's trailing dims")],
    _infer_random_crop, _random_crop, dtypes=NUMERIC, doc=__doc__)


# -- sampling_id -----------------------------------------------------------------------------

def _infer_sampling_id(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 2 and x[1] != 0, f"X must be [N, C] probabilities with C >= 1, got "
                                           f"{list(x)}")
    ctx.enforce(ctx.attr("min") <= ctx.attr("max"),
                f"min must be <= max, got min={ctx.attr('min')} and max={ctx.attr('max')}")
    ctx.set_output("Out", (x[0],), np.int64)


def _sampling_id(attrs, x):
    gen = _rng(attrs["seed"])
    r = gen.uniform(attrs["min"], attrs["max"], size=(x.shape[0], 1))
    cum = np.cumsum(x, axis=1)
    ids = (cum < r).sum(axis=1)  # the first class whose cumulative probability reaches r
    return np.minimum(ids, x.shape[1] - 1).astype(np.int64)


register_simple(
    "sampling_id", [In("X", "[N, C] probabilities")], [Out("Out", "int64 [N]")],
    [Attr("min", "float", 0.0, "r's lower bound"), Attr("max", "float", 1.0, "r's upper"),
     Attr("seed", "int", 0, "0: random")],
    lambda ctx: _infer_sampling_id(ctx), _sampling_id,
    doc=__doc__)


# -- shard_index -----------------------------------------------------------------------------

def _infer_shard(ctx):
    n, s, i = ctx.attr("index_num"), ctx.attr("nshards"), ctx.attr("shard_id")
    ctx.enforce(n > 0 and s > 0 and 0 <= i < s,
                f"need index_num > 0, nshards > 0 and 0 <= shard_id < nshards, got "
                f"{n}, {s}, {i}")
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


def _shard(attrs, x):
    size = (attrs["index_num"] + attrs["nshards"] - 1) // attrs["nshards"]
    mine = x // size == attrs["shard_id"]
    return np.where(mine, x - attrs["shard_id"] * size, attrs["ignore_value"]).astype(x.dtype)


register_simple(
    "shard_index", [In("X", "int ids")], [Out("Out", "ids local to the shard")],
    [Attr("index_num", "int", 0, "the id range"), Attr("nshards", "int", 0, "shards"),
     Attr("shard_id", "int", 0, "this shard"), Attr("ignore_value", "int", -1, "elsewhere")],
    _infer_shard, _shard, dtypes=INTS, doc=__doc__)


# -- gather_tree -----------------------------------------------------------------------------

def _infer_gather_tree(ctx):
    ids, parents = ctx.input_shape("Ids"), ctx.input_shape("Parents")
    ctx.enforce(len(ids) == 3 and list(ids) == list(parents),
                f"Ids and Parents must be [T, B, beam] alike, got {list(ids)}, {list(parents)}")
    ctx.set_output("Out", ids, ctx.input_dtype("Ids"))


def _gather_tree(attrs, ids, parents):
    steps = ids.shape[0]
    out = np.empty_like(ids)
    if steps == 0:
        return out
    beam = np.broadcast_to(np.arange(ids.shape[2]), ids.shape[1:]).copy()
    batch = np.arange(ids.shape[1])[:, None]
    if parents.size and (parents.min() < 0 or parents.max() >= ids.shape[2]):
        raise KernelError(f"gather_tree: Parents holds beam indices in [{int(parents.min())}, "
                          f"{int(parents.max())}], outside [0, {ids.shape[2]}) (the beam width)")
    for t in range(steps - 1, -1, -1):  # one vectorised step per time step
        out[t] = ids[t][batch, beam]
        beam = parents[t][batch, beam]
    return out


register_simple(
    "gather_tree", [In("Ids", "[T, B, beam]"), In("Parents", "[T, B, beam]")],
    [Out("Out", "[T, B, beam] full paths")], [], _infer_gather_tree, _gather_tree,
    dtypes=INTS, doc=__doc__)


# -- ctc_align / sequence_erase / edit_distance ----------------------------------------------

def _keep_per_sequence(x: LoDTensor, keep: np.ndarray) -> LoDTensor:
    offsets = x.offsets[-1]
    kept = np.bincount(segment_ids(offsets)[keep], minlength=offsets.size - 1)
    return LoDTensor.unchecked(x.numpy()[keep], x.offsets[:-1] + (offsets_of(kept),))


def _ctc_align(attrs, x: LoDTensor) -> LoDTensor:
    ids = x.numpy().reshape(-1)
    offsets = x.offsets[-1]
    starts = np.zeros(ids.size, dtype=bool)
    starts[offsets[:-1][lengths_of(offsets) > 0]] = True
    repeat = np.zeros(ids.size, dtype=bool)
    repeat[1:] = ids[1:] == ids[:-1]
    keep = ids != attrs["blank"]
    if attrs["merge_repeated"]:
        keep &= ~(repeat & ~starts)
    return _keep_per_sequence(x, keep)


def _infer_lod_ids(ctx, slot="Input", out="Output"):
    require_lod(ctx, slot)
    shape = ctx.input_shape(slot)
    ctx.set_output(out, (-1,) + tuple(shape[1:]), ctx.input_dtype(slot))
    ctx.set_output_lod_level(out, ctx.input_lod_level(slot))


register_simple(
    "ctc_align", [In("Input", "int ids [T, 1] with a LoD")], [Out("Output", "aligned ids")],
    [Attr("blank", "int", 0, "the blank id"),
     Attr("merge_repeated", "bool", True, "merge runs of one id")],
    _infer_lod_ids, _ctc_align, dtypes=INTS, lod=True, doc=__doc__)

register_simple(
    "sequence_erase", [In("X", "int ids [T, 1] with a LoD")], [Out("Out", "the kept ids")],
    [Attr("tokens", "ints", [], "the ids to drop")],
    lambda ctx: _infer_lod_ids(ctx, "X", "Out"),
    lambda attrs, x: _keep_per_sequence(x, ~np.isin(x.numpy().reshape(-1), attrs["tokens"])),
    dtypes=INTS, lod=True, doc=__doc__)


def levenshtein(a: np.ndarray, b: np.ndarray) -> int:
    """The edit distance, one vectorised row of the table per element of a."""
    prev = np.arange(b.size + 1)
    cols = np.arange(1, b.size + 1)
    for i, token in enumerate(a.tolist(), start=1):
        # diagonal/up candidates, then the left-to-right insertions as a running minimum
        best = np.minimum(prev[1:] + 1, prev[:-1] + (b != token))
        row = np.empty_like(prev)
        row[0] = i
        row[1:] = np.minimum.accumulate(np.concatenate([[i], best]) - np.arange(b.size + 1))[
            1:] + cols
        prev = row
    return int(prev[-1])


def _edit_distance(attrs, hyps: LoDTensor, refs: LoDTensor):
    ho, ro = hyps.offsets[-1], refs.offsets[-1]
    if ho.size != ro.size:
        raise KernelError(f"edit_distance: Hyps has {ho.size - 1} sequences but Refs has "
                          f"{ro.size - 1}")
    h, r = hyps.numpy().reshape(-1), refs.numpy().reshape(-1)
    out = np.zeros((ho.size - 1, 1), dtype=np.float32)
    for k in range(ho.size - 1):
        d = float(levenshtein(h[ho[k]:ho[k + 1]], r[ro[k]:ro[k + 1]]))
        ref_len = ro[k + 1] - ro[k]
        if attrs["normalized"]:
            if ref_len == 0:
                raise KernelError("edit_distance: a reference sequence is empty, so the "
                                  "normalized distance is undefined")
            d /= ref_len
        out[k, 0] = d
    return LoDTensor.unchecked(out), LoDTensor.unchecked(np.asarray([ho.size - 1], dtype=np.int64))


def _infer_edit_distance(ctx):
    require_lod(ctx, "Hyps")
    require_lod(ctx, "Refs")
    ctx.set_output("Out", (-1, 1), np.float32)
    ctx.set_output("SequenceNum", (1,), np.int64)


register_simple(
    "edit_distance", [In("Hyps", "int ids with a LoD"), In("Refs", "int ids with a LoD")],
    [Out("Out", "[nseq, 1] float32"), Out("SequenceNum", "int64 [1]")],
    [Attr("normalized", "bool", False, "divide by the reference length")],
    _infer_edit_distance, _edit_distance, dtypes=INTS, lod=True, doc=__doc__)
