"""CTC decoding and scoring over LoD sequences of int ids (no gradient):

    ctc_align        per sequence: merge repeated ids (merge_repeated), then drop `blank`
    (ctc_align also takes Paddle 1.6+'s padded form: Input [B, T] with InputLength, giving
    Output [B, T] filled with padding_value past each aligned length, and OutputLength)
    edit_distance    Levenshtein distance of each hypothesis to its reference sequence
                     (divided by the reference length when normalized); the sequences
                     are the LoD's, or, with HypsLength and RefsLength (Paddle 1.6+'s
                     padded form), row b of Hyps/Refs cut to its length
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import INTS, Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import (
    infer_lod_ids,
    keep_per_sequence,
    lengths_of,
    require_lod,
)
from paddle_ir.ops.simple_op import register_simple


def _align_row(attrs, ids: np.ndarray) -> np.ndarray:
    """One sequence's ids with repeats merged (merge_repeated) and blanks dropped."""
    keep = ids != attrs["blank"]
    if attrs["merge_repeated"] and ids.size:
        keep[1:] &= ids[1:] != ids[:-1]
    return ids[keep]


def _ctc_align(attrs, x: LoDTensor, input_length=None):
    if input_length is not None:  # the padded form: rows [B, T] cut to their lengths
        rows = x.numpy().reshape(x.shape[0], -1)
        lens = np.asarray(input_length.numpy()).reshape(-1).astype(np.int64)
        if lens.size != rows.shape[0] or (lens < 0).any() or (lens > rows.shape[1]).any():
            raise KernelError(f"ctc_align: InputLength must hold one length in [0, "
                              f"{rows.shape[1]}] per row of Input ({rows.shape[0]} rows), got "
                              f"{lens.tolist()}")
        out = np.full(rows.shape, attrs["padding_value"], rows.dtype)
        out_lens = np.zeros((rows.shape[0], 1), np.int64)
        for b in range(rows.shape[0]):
            kept = _align_row(attrs, rows[b, :lens[b]])
            out[b, :kept.size] = kept
            out_lens[b, 0] = kept.size
        return LoDTensor.unchecked(out), LoDTensor.unchecked(out_lens)
    ids = x.numpy().reshape(-1)
    offsets = x.offsets[-1]
    starts = np.zeros(ids.size, dtype=bool)
    starts[offsets[:-1][lengths_of(offsets) > 0]] = True
    repeat = np.zeros(ids.size, dtype=bool)
    repeat[1:] = ids[1:] == ids[:-1]
    keep = ids != attrs["blank"]
    if attrs["merge_repeated"]:
        keep &= ~(repeat & ~starts)
    return keep_per_sequence(x, keep), None


def _infer_ctc_align(ctx):
    if not ctx.has_input("InputLength"):
        infer_lod_ids(ctx)
        return
    shape = ctx.input_shape("Input")
    ctx.enforce(len(shape) == 2, lambda: f"with InputLength, Input must be padded ids [B, T], got "
                                 f"{list(shape)}")
    ctx.set_output("Output", shape, ctx.input_dtype("Input"))
    ctx.set_output("OutputLength", (shape[0], 1), np.int64)


register_simple(
    "ctc_align", [In("Input", "int ids [T, 1] with a LoD, or padded [B, T]"),
                  In("InputLength", "int64 [B, 1]: the padded form's lengths",
                     dispensable=True)],
    [Out("Output", "aligned ids (padded form: [B, T], padding_value past each length)"),
     Out("OutputLength", "int64 [B, 1]: the padded form's aligned lengths", dispensable=True)],
    [Attr("blank", "int", 0, "the blank id"),
     Attr("merge_repeated", "bool", True, "merge runs of one id"),
     Attr("padding_value", "int", 0, "fills the padded form's Output past each length")],
    _infer_ctc_align, _ctc_align, dtypes=INTS, lod=True, doc=__doc__)


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


def _padded_offsets(name: str, ids: np.ndarray, lengths) -> tuple[np.ndarray, np.ndarray]:
    """(flat ids, offsets) of the rows of padded ids [B, T] cut to their lengths."""
    lens = np.asarray(lengths.numpy()).reshape(-1).astype(np.int64)
    rows = ids.reshape(ids.shape[0], -1)
    if lens.size != rows.shape[0] or (lens < 0).any() or (lens > rows.shape[1]).any():
        raise KernelError(f"edit_distance: {name}Length must hold one length in [0, "
                          f"{rows.shape[1]}] per row of {name} ({rows.shape[0]} rows), got "
                          f"{lens.tolist()}")
    flat = np.concatenate([rows[b, :n] for b, n in enumerate(lens)]) if lens.size else rows[:0, 0]
    return flat, np.concatenate([[0], np.cumsum(lens)])


def _edit_distance(attrs, hyps: LoDTensor, refs: LoDTensor, hyps_len=None, refs_len=None):
    if hyps_len is not None:
        h, ho = _padded_offsets("Hyps", hyps.numpy(), hyps_len)
        r, ro = _padded_offsets("Refs", refs.numpy(), refs_len)
        return _distances(attrs, h, ho, r, ro)
    ho, ro = hyps.offsets[-1], refs.offsets[-1]
    return _distances(attrs, hyps.numpy().reshape(-1), ho, refs.numpy().reshape(-1), ro)


def _distances(attrs, h, ho, r, ro):
    if ho.size != ro.size:
        raise KernelError(f"edit_distance: Hyps has {ho.size - 1} sequences but Refs has "
                          f"{ro.size - 1}")
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
    padded = [ctx.has_input(s) for s in ("HypsLength", "RefsLength")]
    ctx.enforce(all(padded) or not any(padded), "give both HypsLength and RefsLength, or "
                                                "neither (then Hyps and Refs carry a LoD)")
    if all(padded):
        for slot in ("Hyps", "Refs"):
            shape = ctx.input_shape(slot)
            ctx.enforce(len(shape) == 2, lambda: f"{slot} must be padded ids [B, T] with "
                                         f"{slot}Length, got {list(shape)}")
    else:
        require_lod(ctx, "Hyps")
        require_lod(ctx, "Refs")
    ctx.set_output("Out", (-1, 1), np.float32)
    ctx.set_output("SequenceNum", (1,), np.int64)


register_simple(
    "edit_distance", [In("Hyps", "int ids with a LoD, or padded [B, T]"),
                      In("Refs", "int ids with a LoD, or padded [B, T]"),
                      In("HypsLength", "int64 [B]: each Hyps row's length", dispensable=True),
                      In("RefsLength", "int64 [B]: each Refs row's length", dispensable=True)],
    [Out("Out", "[nseq, 1] float32"), Out("SequenceNum", "int64 [1]")],
    [Attr("normalized", "bool", False, "divide by the reference length")],
    _infer_edit_distance, _edit_distance, dtypes=INTS, lod=True, doc=__doc__)
