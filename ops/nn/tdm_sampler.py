"""tdm_sampler: per-layer positive and negative node samples along TDM tree paths.

Travel [num_items, layer_nums] holds each item's path (its ancestor node in
every layer, 0 as padding); Layer [num_nodes, 1] lists the nodes of all
layers, layer l at rows layer_offset_lod[l] .. layer_offset_lod[l + 1] - 1 (Paddle 2.x
and 3.x name the attribute layer_offset; either spelling is taken).
For each item id i of X ([B] or [B, 1]) and each layer l, with p = Travel[i, l]:

    if output_positive: p, label 1, mask 1
    then neg_samples_num_list[l] distinct layer rows drawn uniformly among
    those whose node is not p: their nodes, label 0, mask 1
    (when p == 0, the padding: all of the layer's slots 0 with mask 0)

Out, Labels and Mask are [B, sum_l (neg_samples_num_list[l] + output_positive)]
of the `dtype` attribute (2 int32, 3 int64). No gradient.

Sampling: `seed` != 0 gives the same samples on every run (Paddle builds its
samplers from the seed at each run); 0 draws from fresh entropy. The draws
come from numpy's generator, so the negatives are not Paddle's (its
std::mt19937_64 stream); what is sampled from and how (uniform, without
repeats, never the positive) is the same. Paddle's check that a positive lies
within its layer's id range is kept; ids and rows outside the tables are
refused (Paddle reads out of bounds or loops for ever on some of them).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import to_numpy_dtype
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import INTS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import lod_error

tdm_sampler = register_op(
    "tdm_sampler",
    inputs=[In("X", "int32/int64 item ids, [B] or [B, 1]"),
            In("Travel", "int32/int64 [num_items, layer_nums]: each item's path, 0 padded"),
            In("Layer", "int32/int64 [num_nodes, 1]: the nodes of every layer, in layer order")],
    outputs=[Out("Out", "[B, samples] sampled node ids"),
             Out("Labels", "[B, samples]: 1 for the positive, 0 for negatives"),
             Out("Mask", "[B, samples]: 0 for padding")],
    attrs=[Attr("output_positive", "bool", True, "put each layer's positive first"),
           Attr("neg_samples_num_list", "ints", [], "negatives per layer"),
           Attr("layer_offset_lod", "ints", [], "Layer's row offsets, layer_nums + 1 of them"),
           Attr("layer_offset", "ints", [], "Paddle 2.x and 3.x's name for layer_offset_lod "
                                            "(used when layer_offset_lod is empty)"),
           Attr("seed", "int", 0, "0: fresh entropy; otherwise the same samples every run"),
           Attr("dtype", "int", 2, "the outputs' data type: 2 int32, 3 int64")],
    key_inputs=["X"],
    doc=__doc__,
)


def _layer_offsets(get) -> list[int]:
    """Layer's row offsets, under Paddle 1.8's name or the later one."""
    return list(get("layer_offset_lod")) or list(get("layer_offset"))


def _sample_width(attrs) -> int:
    return sum(n + int(attrs["output_positive"]) for n in attrs["neg_samples_num_list"])


@tdm_sampler.infer_shape
def _(ctx):
    negs, offsets = list(ctx.attr("neg_samples_num_list")), _layer_offsets(ctx.attr)
    code = ctx.attr("dtype")
    ctx.enforce(code in (2, 3), lambda: f"dtype must be 2 (int32) or 3 (int64), got {code}")
    ctx.enforce(len(negs) > 0 and all(n >= 0 for n in negs),
                lambda: f"neg_samples_num_list must give a count >= 0 per layer, got {negs}")
    ctx.enforce(len(offsets) == len(negs) + 1 and offsets[0] >= 0
                and all(a <= b for a, b in zip(offsets, offsets[1:], strict=False)), lambda:
                f"layer_offset_lod must be {len(negs) + 1} ascending row offsets (one more than "
                f"neg_samples_num_list), got {offsets}")
    for layer, (n, lo, hi) in enumerate(zip(negs, offsets, offsets[1:], strict=False)):
        ctx.enforce(n <= hi - lo - 1, lambda:
                    f"neg_samples_num_list[{layer}] must be <= the layer's {hi - lo} nodes - 1 "
                    f"(the positive is excluded), got {n}")
    for slot in ("X", "Travel", "Layer"):
        ctx.enforce(ctx.input_dtype(slot) in INTS,
                    lambda: f"{slot} must be int32 or int64, got {ctx.input_dtype(slot)}")
    ctx.enforce(ctx.input_dtype("Travel") == ctx.input_dtype("Layer"), lambda:
                f"Travel and Layer must have the same dtype, got {ctx.input_dtype('Travel')} "
                f"and {ctx.input_dtype('Layer')}")
    x, travel, layer = (ctx.input_shape(s) for s in ("X", "Travel", "Layer"))
    ctx.enforce(len(x) in (1, 2) and (len(x) == 1 or x[1] in (1, -1)),
                lambda: f"X must be [B] or [B, 1] (one item id per row), got {shape_str(x)}")
    ctx.enforce(len(travel) == 2 and travel[1] in (len(negs), -1),
                lambda: f"Travel must be [num_items, {len(negs)}] (one node per layer), got "
                f"{shape_str(travel)}")
    ctx.enforce(len(layer) in (1, 2) and (layer[0] < 0 or layer[0] >= offsets[-1]),
                lambda: f"Layer must list at least layer_offset_lod[-1] = {offsets[-1]} nodes, got "
                f"{shape_str(layer)}")
    for slot in ("Out", "Labels", "Mask"):
        ctx.set_output(slot, (x[0], sum(negs) + len(negs) * int(ctx.attr("output_positive"))),
                       to_numpy_dtype(code))


@tdm_sampler.kernel(dtypes=INTS, lod=True)
def tdm_sampler_kernel(attrs, x, travel, layer):
    negs, offsets = list(attrs["neg_samples_num_list"]), _layer_offsets(attrs.__getitem__)
    positive = int(attrs["output_positive"])
    ids = x.numpy().reshape(-1).astype(np.int64)
    paths, nodes = travel.numpy().astype(np.int64), layer.numpy().reshape(-1).astype(np.int64)
    bad = (ids < 0) | (ids >= paths.shape[0])
    if bad.any():
        raise lod_error("tdm_sampler", f"X's item ids must be in [0, {paths.shape[0]}) "
                                       f"(Travel's rows), got {int(ids[bad][0])}")
    rng = np.random.default_rng(attrs["seed"] or None)
    width = _sample_width(attrs)
    out = np.zeros((ids.size, width), np.int64)
    labels, mask = np.zeros_like(out), np.zeros_like(out)
    for row, item in enumerate(ids):
        col = 0
        for layer_i, n_neg in enumerate(negs):
            lo, hi = offsets[layer_i], offsets[layer_i + 1]
            p = int(paths[item, layer_i])
            if p == 0:  # padding: the layer's slots stay 0 with mask 0
                col += n_neg + positive
                continue
            if not lo <= p <= hi:  # Paddle's check: node ids against the row offsets
                raise lod_error("tdm_sampler",
                                f"Travel[{int(item)}, {layer_i}] = {p} must be a node of layer "
                                f"{layer_i}, in [{lo}, {hi}] (Paddle's check against "
                                f"layer_offset_lod)")
            if positive:
                out[row, col], labels[row, col], mask[row, col] = p, 1, 1
                col += 1
            candidates = np.flatnonzero(nodes[lo:hi] != p)
            if candidates.size < n_neg:
                raise lod_error("tdm_sampler",
                                f"layer {layer_i} has {candidates.size} nodes other than the "
                                f"positive {p}, fewer than the {n_neg} negatives asked for")
            picked = rng.choice(candidates, size=n_neg, replace=False)
            out[row, col:col + n_neg] = nodes[lo + picked]
            mask[row, col:col + n_neg] = 1
            col += n_neg
    dtype = to_numpy_dtype(attrs["dtype"])
    shape = (x.shape[0], width)
    return tuple(LoDTensor.unchecked(a.reshape(shape).astype(dtype)) for a in (out, labels, mask))
