"""filter_by_instag (+ _grad): keep the instances of Ins whose tag set meets Filter_tag.

Instance i is row i of Ins (is_lod False) or its i-th sequence (is_lod True);
its tags are the i-th sequence of Ins_tag. Out holds the kept instances' rows in
order, one sequence per instance; IndexMap [k, 3] = (row in Out, row in Ins, row
count) per kept instance and LossWeight [k, 1] = 1, both with LoD [0, 1, ..., k].
When nothing is kept, Out is one row of out_val_ifempty, IndexMap [[0, 1, 1]]
and LossWeight [[0]] (as Paddle). Gradient: dIns gets dOut's rows back at the
kept instances' rows, zeros elsewhere (all zeros in the empty case).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import NUMERIC, Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import (
    lengths_of,
    offsets_of,
    ranges_to_rows,
    require_lod,
    segment_ids,
)
from paddle_ir.ops.simple_op import register_simple


def _infer(ctx):
    require_lod(ctx, "Ins_tag")
    if ctx.attr("is_lod"):
        require_lod(ctx, "Ins")
    ins = ctx.input_shape("Ins")
    ctx.enforce(len(ins) == 2, lambda: f"Ins must be [rows, D], got {list(ins)}")
    ctx.set_output("Out", (-1, ins[1]), ctx.input_dtype("Ins"))
    ctx.set_output_lod_level("Out", 1)
    ctx.set_output("LossWeight", (-1, 1), np.float32)
    ctx.set_output_lod_level("LossWeight", 1)
    ctx.set_output("IndexMap", (-1, 3), np.int64)
    ctx.set_output_lod_level("IndexMap", 1)


def _instances(attrs, ins: LoDTensor):
    if attrs["is_lod"]:
        return ins.offsets[-1]
    return np.arange(ins.shape[0] + 1, dtype=np.int64)


def _kept(attrs, ins, tags, filter_tag):
    inst = _instances(attrs, ins)
    tag_offsets = tags.offsets[-1]
    if tag_offsets.size != inst.size:
        raise KernelError(f"filter_by_instag: Ins has {inst.size - 1} instances but Ins_tag "
                          f"has {tag_offsets.size - 1} tag lists")
    hit = np.isin(tags.numpy().reshape(-1), np.asarray(filter_tag).reshape(-1))
    kept = np.bincount(segment_ids(tag_offsets)[hit], minlength=inst.size - 1) > 0
    starts = inst[:-1][kept]
    counts = lengths_of(inst)[kept]
    return starts, counts


def _forward(attrs, ins: LoDTensor, tags: LoDTensor, filter_tag):
    starts, counts = _kept(attrs, ins, tags, filter_tag)
    arr = ins.numpy()
    k = starts.size
    if k == 0:
        out = np.full((1, arr.shape[1]), attrs["out_val_ifempty"], dtype=arr.dtype)
        one = (np.array([0, 1], np.int64),)
        return (LoDTensor.unchecked(out, one),
                LoDTensor.unchecked(np.zeros((1, 1), np.float32), one),
                LoDTensor.unchecked(np.array([[0, 1, 1]], np.int64), one))
    out_offsets = offsets_of(counts)
    index_map = np.stack([out_offsets[:-1], starts, counts], axis=1).astype(np.int64)
    per = (np.arange(k + 1, dtype=np.int64),)
    return (LoDTensor.unchecked(arr[ranges_to_rows(starts, counts)], (out_offsets,)),
            LoDTensor.unchecked(np.ones((k, 1), np.float32), per),
            LoDTensor.unchecked(index_map, per))


def _grad(attrs, ins, tags, filter_tag, loss_weight, index_map, dout):
    dx = np.zeros(ins.shape, dtype=dout.dtype)
    weight = loss_weight.numpy()
    if not (weight.size == 1 and weight.reshape(-1)[0] == 0):
        m = index_map.numpy()
        dx[ranges_to_rows(m[:, 1], m[:, 2])] = dout.numpy()
    return LoDTensor.unchecked(dx, ins.offsets)


register_simple(
    "filter_by_instag", [In("Ins", "[rows, D]"), In("Ins_tag", "int64 tags with a LoD"),
                         In("Filter_tag", "int64 [n] tags to keep")],
    [Out("Out", "the kept instances"), Out("LossWeight", "[k, 1] float32"),
     Out("IndexMap", "[k, 3] int64 (out row, in row, count)")],
    [Attr("is_lod", "bool", True, "Ins has one sequence per instance"),
     Attr("out_val_ifempty", "long", 0, "Out's value when nothing is kept")],
    _infer, _forward, backward=_grad, wrt=["Ins"], keep=["LossWeight", "IndexMap"],
    dtypes=NUMERIC, lod=True, doc=__doc__)
