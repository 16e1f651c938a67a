"""beam_search and beam_search_decode: one step of beam search over a 2-level LoD, and the
backtrace of the stored steps into sentences (Paddle's machine-translation decoder); and
gather_tree, the same backtrace over dense [T, B, beam] arrays.

beam_search. The rows of `scores` [M, K] are the live prefixes (one row per
prefix, K candidates each); its LoD level `level`, taken in absolute rows,
groups the rows by source sentence. For a row r with pre_ids[r] == end_id (a
finished prefix) the only candidate is (end_id, pre_scores[r]); otherwise its
candidates are (ids[r, k] (k when ids is absent), s) with

    s = scores[r, k]                          (is_accumulated=True)
    s = pre_scores[r] + log(scores[r, k])     (is_accumulated=False)

Each source keeps its beam_size best candidates (higher score first; on equal
scores the later row, then the earlier k, as Paddle orders them). A source
whose kept candidates are all end_id following an end_id is finished one step
after its last word and is pruned (it keeps nothing). Out:

    selected_ids, selected_scores  [S, 1], the kept candidates grouped by parent row
        LoD [[rows of each source, absolute: scores' level `level`], [children of each row]]
    parent_idx  int32 [S]: the parent row of each kept candidate

beam_search_decode. Ids and Scores are tensor arrays holding every step's
selected_ids / selected_scores (step 0: the start tokens, LoD [[1]*n, [1]*n]).
Each source's hypotheses are the candidates of the last step in which it is
still alive; each is traced back through its parents (a step's level-1 LoD
says which parent row a candidate extends) to step 0. A run of trailing
end_id tokens (a finished prefix carried forward) keeps its first one.

    SentenceIds, SentenceScores  [W] (1-D), LoD [[sentences per source], [words per sentence]]

with each source's sentences sorted by their last score, best first, and
every word's score the accumulated score at that step.

gather_tree. Ids and Parents are [T, B, beam] (a step's ids and the beam each extends):
Out[t, b, k] = the id at step t on the path that ends in beam k at the last step, read
backwards from T - 1 through Parents.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_allocation
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.tensor_array import LoDTensorArray
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, INTS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import (
    lod_error,
    offsets_of,
    segment_ids,
)
from paddle_ir.ops.simple_op import register_simple

beam_search = register_op(
    "beam_search",
    inputs=[In("pre_ids", "int64 [M, 1]: the last id of each prefix (LoD: the beam)"),
            In("pre_scores", "[M, 1]: the score of each prefix"),
            In("ids", "int64 [M, K]: candidate ids (absent: 0..K-1)", dispensable=True),
            In("scores", "[M, K] candidate scores, with the beam's 2-level LoD")],
    outputs=[Out("selected_ids", "int64 [S, 1], 2-level LoD"),
             Out("selected_scores", "[S, 1], selected_ids' LoD"),
             Out("parent_idx", "int32 [S]: the parent row of each selection", dispensable=True)],
    attrs=[Attr("level", "int", 0, "the LoD level of scores that groups rows by source"),
           Attr("beam_size", "int", doc="candidates kept per source"),
           Attr("end_id", "int", doc="the id that ends a sentence"),
           Attr("is_accumulated", "bool", True,
                "scores are accumulated; False: add log(scores) to pre_scores")],
    key_inputs=["scores"],
    doc=__doc__,
)


@beam_search.infer_shape
def _(ctx):
    scores = ctx.input_shape("scores")
    ctx.enforce(len(scores) == 2, lambda: f"Input(scores) must be [M, K], got {shape_str(scores)}")
    level = ctx.attr("level")
    lod_level = ctx.input_lod_level("scores")
    ctx.enforce(0 <= level < lod_level, lambda:
                f"Input(scores) needs a LoD level {level} (attribute level) to group its rows "
                f"by source, but it has lod_level {lod_level}",
                hint="feed init_ids / init_scores with a 2-level LoD, e.g. [[1] * n, [1] * n]")
    ctx.enforce(ctx.attr("beam_size") > 0,
                lambda: f"beam_size must be > 0, got {ctx.attr('beam_size')}")
    ctx.set_output("selected_ids", (-1, 1), np.int64)
    ctx.set_output("selected_scores", (-1, 1), ctx.input_dtype("scores"))
    ctx.set_output("parent_idx", (-1,), np.int32)
    for slot in ("selected_ids", "selected_scores"):
        ctx.set_output_lod_level(slot, 2)


def absolute_offsets(offsets, level: int) -> np.ndarray:
    """LoD level `level` as row offsets of the tensor (through the finer levels)."""
    out = np.asarray(offsets[level])
    for finer in offsets[level + 1:]:
        out = np.asarray(finer)[out]
    return out


@beam_search.kernel(dtypes=FLOATS, lod=True)
def beam_search_kernel(attrs, pre_ids, pre_scores, ids, scores):
    level, beam, end_id = attrs["level"], attrs["beam_size"], attrs["end_id"]
    if len(scores.offsets) <= level:
        raise lod_error("beam_search", f"Input(scores) has {len(scores.offsets)} LoD level(s) at "
                                       f"run time; level {level} groups its rows by source")
    s = scores.numpy()
    rows, width = s.shape
    high = absolute_offsets(scores.offsets, level)
    prev_id = pre_ids.numpy().reshape(-1).astype(np.int64)
    prev_score = pre_scores.numpy().reshape(-1).astype(s.dtype)
    if prev_id.size != rows or prev_score.size != rows:
        raise lod_error("beam_search", f"pre_ids and pre_scores must hold one entry per row of "
                                       f"scores ({rows}), got {prev_id.size} and "
                                       f"{prev_score.size}")
    cand_id = (np.broadcast_to(np.arange(width, dtype=np.int64), s.shape) if ids is None
               else ids.numpy().reshape(rows, width).astype(np.int64))
    cand_score = s if attrs["is_accumulated"] else prev_score[:, None] + np.log(s)
    finished = prev_id == end_id
    # A finished prefix has one candidate, (end_id, its score), in column 0.
    cand_id = np.where(finished[:, None], end_id, cand_id)
    cand_score = np.where(finished[:, None], prev_score[:, None], cand_score)
    valid = ~finished[:, None] | (np.arange(width) == 0)[None, :]
    row, col = np.nonzero(valid)
    score = cand_score[row, col]
    source = segment_ids(high)[row]
    # Best first per source: higher score, then the later row, then the earlier column.
    order = np.lexsort((col, -row, -score, source))
    group_start = np.searchsorted(source[order], source[order], side="left")
    kept = order[np.arange(order.size) - group_start < beam]
    # Prune the sources all of whose kept candidates extend a finished prefix with end_id.
    live = (cand_id[row[kept], col[kept]] != end_id) | ~finished[row[kept]]
    alive_source = np.bincount(source[kept], weights=live, minlength=high.size - 1) > 0
    kept = kept[alive_source[source[kept]]]
    kept = kept[np.lexsort((col[kept], -score[kept], row[kept]))]   # by parent, best first
    kept_row = row[kept]
    children = np.bincount(kept_row, minlength=rows)
    lod = (np.asarray(high, dtype=np.int64), offsets_of(children))
    sel_ids = cand_id[kept_row, col[kept]].reshape(-1, 1)
    sel_scores = score[kept].astype(s.dtype).reshape(-1, 1)
    return (LoDTensor.unchecked(sel_ids, lod), LoDTensor.unchecked(sel_scores, lod),
            kept_row.astype(np.int32))


beam_search.grad_maker(lambda g: [])

# --- beam_search_decode ----------------------------------------------------------------------

beam_search_decode = register_op(
    "beam_search_decode",
    inputs=[In("Ids", "tensor array of every step's selected_ids"),
            In("Scores", "tensor array of every step's selected_scores")],
    outputs=[Out("SentenceIds", "int64 [W], LoD [[sentences per source], [words]]"),
             Out("SentenceScores", "[W], SentenceIds' LoD")],
    attrs=[Attr("beam_size", "int", doc="hypotheses per source"),
           Attr("end_id", "int", doc="the id that ends a sentence")],
    key_inputs=[],
    doc=__doc__,
)


@beam_search_decode.infer_shape
def _(ctx):
    ctx.set_output("SentenceIds", (-1,), np.int64)
    ctx.set_output("SentenceScores", (-1,), ctx.input_dtype("Scores"))
    for slot in ("SentenceIds", "SentenceScores"):
        ctx.set_output_lod_level(slot, 2)


def _steps(ids: LoDTensorArray, scores: LoDTensorArray):
    steps = [(i, s) for i, s in zip(ids, scores, strict=False) if i is not None]
    if not steps or len(ids) != len(scores):
        raise lod_error("beam_search_decode", f"Ids and Scores must be non-empty arrays of one "
                                              f"length, got {len(ids)} and {len(scores)} steps")
    for k, (i, _) in enumerate(steps):
        if len(i.offsets) != 2:
            raise lod_error("beam_search_decode", f"step {k} of Ids has {len(i.offsets)} LoD "
                                                  f"levels; beam search steps have 2")
    return steps


@beam_search_decode.kernel(storage=[], dtypes=[np.float32], lod=True)
def beam_search_decode_kernel(attrs, ids: LoDTensorArray, scores: LoDTensorArray):
    end_id = attrs["end_id"]
    steps = _steps(ids, scores)
    num_src = steps[0][0].offsets[0].size - 1
    # Per step: each row's source, its parent row in the previous step, its id and score.
    source, parent, tok, val = [], [], [], []
    for i, s in steps:
        src_off, row_off = i.offsets
        source.append(segment_ids(np.asarray(row_off)[np.asarray(src_off)]))
        parent.append(segment_ids(np.asarray(row_off)))
        tok.append(i.numpy().reshape(-1).astype(np.int64))
        val.append(s.numpy().reshape(-1))
    # Each source's hypotheses start at the last step where it still has rows.
    alive = np.stack([np.bincount(src, minlength=num_src) > 0 for src in source])   # [T, N]
    last_step = np.where(alive.any(0), alive.shape[0] - 1 - alive[::-1].argmax(0), -1)
    starts = [np.flatnonzero(last_step[src] == t) for t, src in enumerate(source)]
    hyp_step = np.concatenate([np.full(r.size, t) for t, r in enumerate(starts)]).astype(int)
    hyp_row = np.concatenate(starts).astype(np.int64)
    hyp_src = np.concatenate([source[t][r] for t, r in enumerate(starts)]).astype(np.int64)
    n_hyp, n_steps = hyp_row.size, len(steps)
    # Hypotheses times steps: a product of the arrays' lengths and LoDs, not of one input.
    check_allocation("beam_search_decode", (n_hyp, n_steps), np.int64,
                     f"{n_hyp} hypotheses over {n_steps} steps of Ids")
    words = np.zeros((n_hyp, n_steps), dtype=np.int64)
    word_scores = np.zeros((n_hyp, n_steps), dtype=val[0].dtype)
    keep = np.zeros((n_hyp, n_steps), dtype=bool)
    row = hyp_row.copy()
    for t in reversed(range(n_steps)):
        active = hyp_step >= t
        if t < n_steps - 1:   # hypotheses that started later move to their parent rows
            moved = active & (hyp_step > t)
            row[moved] = parent[t + 1][row[moved]]
        cur = row[active]
        words[active, t], word_scores[active, t] = tok[t][cur], val[t][cur]
        # Keep a word unless it is end_id after a later word of the same hypothesis was kept.
        keep[active, t] = (tok[t][cur] != end_id) | ~keep[active, t + 1:].any(axis=1)
    final = word_scores[np.arange(n_hyp), hyp_step]
    order = np.lexsort((-final, hyp_src))
    words, word_scores, keep = words[order], word_scores[order], keep[order]
    lod = (offsets_of(np.bincount(hyp_src, minlength=num_src)), offsets_of(keep.sum(1)))
    return (LoDTensor.unchecked(words[keep], lod),
            LoDTensor.unchecked(word_scores[keep].astype(val[0].dtype), lod))


beam_search_decode.grad_maker(lambda g: [])


# --- gather_tree -----------------------------------------------------------------------------

def _infer_gather_tree(ctx):
    ids, parents = ctx.input_shape("Ids"), ctx.input_shape("Parents")
    ctx.enforce(len(ids) == 3 and list(ids) == list(parents), lambda:
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
