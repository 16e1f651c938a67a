"""chunk_eval: precision, recall and F1 of the chunks found in tag sequences (no gradient).

A tag id encodes a tag type and a chunk type:

    tag_type = label % num_tag_types,   chunk_type = label // num_tag_types

with num_tag_types 2 (IOB: Begin 0, Inside 1; IOE: Inside 0, End 1), 4
(IOBES: Begin 0, Inside 1, End 2, Single 3) or 1 (plain: a chunk is a run of
one chunk type). chunk_type == num_chunk_types is "outside" (O). Walking a
sequence, a chunk ends and another begins by Paddle's rules (ChunkEnd /
ChunkBegin of its chunk_eval op); a chunk is (first step, last step, type).

    NumInferChunks / NumLabelChunks = chunks in Inference / Label whose type is not excluded
    NumCorrectChunks = chunks (not excluded) found identically in both
    Precision = correct / infer, Recall = correct / label (0 when the count is 0),
    F1 = 2 P R / (P + R) (0 when nothing is correct)

Sequences come from the LoD of Inference and Label (it must be the same) or,
given SeqLength, from the rows of padded [N, L] (or [N, L, 1]) inputs.
The chunks of all sequences are found at once: the begin and end rules are
vectorised over every step with the previous step's tag (none at a sequence start).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import INTS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import lod_error, offsets_of

# scheme: (num_tag_types, begin, inside, end, single); -1 = the scheme has no such tag
SCHEMES = {"IOB": (2, 0, 1, -1, -1), "IOE": (2, -1, 0, 1, -1), "IOBES": (4, 0, 1, 2, 3),
           "plain": (1, -1, -1, -1, -1)}

chunk_eval = register_op(
    "chunk_eval",
    inputs=[In("Inference", "int64 [T, 1] predicted tags (LoD), or [N, L] with SeqLength"),
            In("Label", "int64, the true tags, Inference's shape and LoD"),
            In("SeqLength", "int64 [N]: lengths of a padded batch", dispensable=True)],
    outputs=[Out("Precision", "float32 [1]"), Out("Recall", "float32 [1]"),
             Out("F1-Score", "float32 [1]"), Out("NumInferChunks", "int64 [1]"),
             Out("NumLabelChunks", "int64 [1]"), Out("NumCorrectChunks", "int64 [1]")],
    attrs=[Attr("num_chunk_types", "int", doc="chunk types; this id is 'outside'"),
           Attr("chunk_scheme", "string", "IOB", "IOB, IOE, IOBES or plain"),
           Attr("excluded_chunk_types", "ints", [], "chunk types not counted")],
    doc=__doc__,
)


@chunk_eval.infer_shape
def _(ctx):
    scheme = ctx.attr("chunk_scheme")
    ctx.enforce(scheme in SCHEMES, lambda: f"chunk_scheme must be one of {', '.join(SCHEMES)}, got "
                                   f"{scheme!r}")
    infer, label = ctx.input_shape("Inference"), ctx.input_shape("Label")
    ctx.enforce(infer == label, lambda: f"Inference's shape must be the same as Label's shape, got "
                                f"{shape_str(infer)} and {shape_str(label)}")
    if not ctx.has_input("SeqLength"):
        ctx.enforce(ctx.input_lod_level("Inference") >= 1 and ctx.input_lod_level("Label") >= 1,
                    "Inference and Label of chunk_eval must be sequences (lod_level >= 1) when "
                    "SeqLength is not given")
    for slot in ("Precision", "Recall", "F1-Score"):
        ctx.set_output(slot, (1,), np.float32)
    for slot in ("NumInferChunks", "NumLabelChunks", "NumCorrectChunks"):
        ctx.set_output(slot, (1,), np.int64)


def chunks(tags: np.ndarray, offsets: np.ndarray, num_chunk_types: int, scheme: str):
    """(begin, end, type) arrays of every chunk, begin/end as flat row numbers."""
    num_tag_types, begin_tag, inside_tag, end_tag, single_tag = SCHEMES[scheme]
    other = num_chunk_types
    tag, ctype = tags % num_tag_types, tags // num_tag_types
    prev_tag, prev_type = np.empty_like(tag), np.empty_like(ctype)
    prev_tag[1:], prev_type[1:] = tag[:-1], ctype[:-1]
    starts = offsets[:-1][np.diff(offsets) > 0]
    prev_tag[starts], prev_type[starts] = -1, other      # nothing precedes a sequence's first step

    def one_of(values, *wanted):
        return np.isin(values, [w for w in wanted if w >= 0])

    same = (ctype == prev_type) & (prev_type != other) & (ctype != other)
    ends = (prev_type != other) & ((ctype == other) | (ctype != prev_type) | (
        same & ((one_of(prev_tag, begin_tag, inside_tag) & one_of(tag, begin_tag, single_tag))
                | one_of(prev_tag, end_tag, single_tag))))
    begins = np.where(prev_type == other, ctype != other, (ctype != other) & (
        (ctype != prev_type) | one_of(tag, begin_tag, single_tag)
        | (one_of(tag, inside_tag, end_tag) & one_of(prev_tag, end_tag, single_tag))))
    # A chunk begun at b runs up to the step before the next end mark (or its sequence's end).
    first = np.flatnonzero(begins)
    stops = np.union1d(np.flatnonzero(ends), offsets[1:])
    last = stops[np.searchsorted(stops, first, side="right")] - 1
    return first, last, ctype[first]


def _keys(first, last, ctype, excluded, rows: int, num_types: int) -> np.ndarray:
    """One int64 per counted chunk, equal for equal (begin, end, type)."""
    keep = ~np.isin(ctype, excluded)
    return (first[keep] * (rows + 1) + last[keep]) * (num_types + 1) + ctype[keep]


chunk_eval.grad_maker(lambda g: [])  # a metric: no gradient


@chunk_eval.kernel(dtypes=INTS, lod=True)
def chunk_eval_kernel(attrs, inference, label, seq_length):
    infer, gold = inference.numpy(), label.numpy()
    if seq_length is None:
        if not inference.offsets or not label.offsets:
            raise lod_error("chunk_eval", "Inference and Label need a LoD at run time (or give "
                                          "SeqLength for padded inputs)")
        offsets = label.offsets[-1]
        if not np.array_equal(offsets, inference.offsets[-1]):
            raise lod_error("chunk_eval", f"Input(Inference) and Input(Label) should have the "
                                          f"same LoD, got {inference.lod()} and {label.lod()}")
        infer, gold = infer.reshape(-1), gold.reshape(-1)
    else:
        lengths = np.asarray(seq_length.numpy()).reshape(-1).astype(np.int64)
        n, steps = infer.shape[0], infer.shape[1]
        valid = np.arange(steps)[None, :] < lengths[:, None]
        infer, gold = infer.reshape(n, steps)[valid], gold.reshape(n, steps)[valid]
        offsets = offsets_of(lengths)
    num_types, scheme = attrs["num_chunk_types"], attrs["chunk_scheme"]
    limit = num_types * SCHEMES[scheme][0]
    for name, tags in (("Inference", infer), ("Label", gold)):
        if tags.size and (tags.min() < 0 or tags.max() > limit):
            raise lod_error("chunk_eval", f"The value of Input({name}) should be in [0, {limit}] "
                                          f"(chunk types {num_types} * tag types), got "
                                          f"{int(tags.min())}..{int(tags.max())}")
    excluded = np.asarray(attrs["excluded_chunk_types"], dtype=np.int64)
    rows = infer.size
    got, want = (_keys(*chunks(tags.astype(np.int64), offsets, num_types, scheme), excluded,
                       rows, num_types) for tags in (infer, gold))
    n_infer, n_label = got.size, want.size
    n_correct = np.intersect1d(got, want).size
    precision = n_correct / n_infer if n_infer else 0.0
    recall = n_correct / n_label if n_label else 0.0
    f1 = 2 * precision * recall / (precision + recall) if n_correct else 0.0
    floats = [np.array([v], dtype=np.float32) for v in (precision, recall, f1)]
    counts = [np.array([v], dtype=np.int64) for v in (n_infer, n_label, n_correct)]
    return tuple(floats + counts)
