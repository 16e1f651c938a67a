"""linear_chain_crf (+ _grad) and crf_decoding: a linear-chain CRF over LoD sequences.

Transition [(D + 2), D] holds, as in Paddle, the start weights a (row 0), the
end weights b (row 1) and the tag-to-tag weights w (rows 2..). For emissions
x (one row of D tag scores per step) and tags s_1..s_L of one sequence:

    score(s) = a[s_1] + b[s_L] + sum_l x_l[s_l] + sum_{l>1} w[s_{l-1}, s_l]
    LogLikelihood = log Z - score(label),   Z = sum over all tag paths of exp(score)

so the op's LogLikelihood is the negative log-likelihood of each sequence
([num_sequences, 1]; 0 for an empty sequence), the loss to minimise. Its
other outputs are Paddle's: Alpha, the forward vectors of each step scaled
to sum to 1; EmissionExps = exp(x - max of its row); TransitionExps = exp(Transition).

crf_decoding gives the best path argmax_s score(s) per sequence (Viterbi;
ties go to the lowest tag), as an int64 [T, 1] column with Emission's LoD;
given Label, 1 where the path agrees with the label and 0 elsewhere.

Both take the sequences either from the LoD of Emission / Label or, when
Length is given, padded: Emission [N, L, D], Label [N, L] (or [N, L, 1]),
Length [N] int64 (then ViterbiPath is [N, L], zero past each length).

The sequences are processed together, padded to the longest: a step of the
forward, backward and Viterbi recursions is one numpy operation over [N, D, D].
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.segments import segment_sum
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import lod_error, offsets_of

linear_chain_crf = register_op(
    "linear_chain_crf",
    inputs=[In("Emission", "[T, D] unscaled tag scores with LoD, or [N, L, D] with Length"),
            In("Transition", "[D + 2, D]: start row, end row, then tag-to-tag weights"),
            In("Label", "int64 [T, 1] gold tags with LoD, or [N, L] with Length"),
            In("Length", "int64 [N]: sequence lengths of a padded batch", dispensable=True)],
    outputs=[Out("Alpha", "forward vectors scaled to sum 1 per step, Emission's shape"),
             Out("EmissionExps", "exp(Emission - its row max), Emission's shape"),
             Out("TransitionExps", "exp(Transition)"),
             Out("LogLikelihood", "[N, 1] negative log-likelihood of each sequence")],
    doc=__doc__,
)


def _check_crf(ctx, op_type: str) -> tuple[tuple[int, ...], int]:
    """Check Transition and Emission; return (Emission's shape, D)."""
    trans = ctx.input_shape("Transition")
    ctx.enforce(len(trans) == 2, lambda: f"Input(Transition) must be 2-D [D + 2, D], got "
                                 f"{shape_str(trans)}")
    d = trans[1]
    ctx.enforce(trans[0] < 0 or d < 0 or trans[0] == d + 2, lambda:
                f"Input(Transition) must be [D + 2, D] (start, end, then D rows of tag-to-tag "
                f"weights), got {shape_str(trans)}")
    emission = ctx.input_shape("Emission")
    padded = ctx.has_input("Length")
    want_rank = 3 if padded else 2
    ctx.enforce(len(emission) == want_rank,
                lambda: f"Input(Emission) must be {want_rank}-D "
                f"({'[N, L, D] with Length' if padded else '[T, D] with LoD'}), got "
                f"{shape_str(emission)}")
    ctx.enforce(emission[-1] < 0 or d < 0 or emission[-1] == d,
                lambda: f"the last dim of Input(Emission) must equal the tag number D = {d} of "
                f"Input(Transition), got Emission {shape_str(emission)}")
    if not padded:
        name = "Label" if ctx.has_input("Label") and op_type == "linear_chain_crf" else "Emission"
        ctx.enforce(ctx.input_lod_level(name) >= 1,
                    lambda: f"Input({name}) of {op_type} must be a sequence (lod_level >= 1) when "
                    f"Input(Length) is not given",
                    hint="feed a LoDTensor, or give Length for a padded [N, L, D] batch")
    return emission, d


@linear_chain_crf.infer_shape
def _(ctx):
    emission, _ = _check_crf(ctx, "linear_chain_crf")
    label = ctx.input_shape("Label")
    if ctx.has_input("Length"):
        ctx.enforce(len(label) == 2 or (len(label) == 3 and label[2] in (1, -1)),
                    lambda: f"Input(Label) must be [N, L] or [N, L, 1] in padding mode, got "
                    f"{shape_str(label)}")
    else:
        ctx.enforce(len(label) == 2 and label[1] in (1, -1),
                    lambda: f"Input(Label) must be [T, 1], got {shape_str(label)}")
    dtype = ctx.input_dtype("Emission")
    ctx.set_output("Alpha", emission, dtype)
    ctx.set_output("EmissionExps", emission, dtype)
    ctx.set_output("TransitionExps", ctx.input_shape("Transition"), dtype)
    ctx.set_output("LogLikelihood", (-1, 1), dtype)


# --- sequences as a padded batch -------------------------------------------------------------


class Batch:
    """The rows of N sequences laid out as [N, L]: `rows[n, t]` is the flat row of step t."""

    def __init__(self, offsets: np.ndarray):
        self.offsets = offsets
        self.lengths = np.diff(offsets)
        self.n = self.lengths.size
        self.steps = int(self.lengths.max()) if self.n else 0
        t = np.arange(self.steps)
        self.mask = t[None, :] < self.lengths[:, None]                        # [N, L]
        self.rows = np.where(self.mask, offsets[:-1, None] + t[None, :], 0)    # [N, L]
        self.last = np.maximum(self.lengths - 1, 0)

    def pad(self, flat: np.ndarray) -> np.ndarray:
        return flat[self.rows] if flat.shape[0] else np.zeros(self.rows.shape + flat.shape[1:],
                                                              flat.dtype)


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    peak = a.max(axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0)
    return np.log(np.exp(a - peak).sum(axis=axis)) + np.squeeze(peak, axis)


def _forward(x: np.ndarray, trans: np.ndarray, batch: Batch) -> np.ndarray:
    """log alpha [N, L, D]: log-sum of the scores of all paths ending in each tag at each step."""
    w = trans[2:]
    la = np.empty_like(x)
    if batch.steps:
        la[:, 0] = trans[0] + x[:, 0]
    for t in range(1, batch.steps):
        step = _logsumexp(la[:, t - 1, :, None] + w, axis=1) + x[:, t]
        la[:, t] = np.where(batch.mask[:, t, None], step, la[:, t - 1])
    return la


def _backward(x: np.ndarray, trans: np.ndarray, batch: Batch) -> np.ndarray:
    """log beta [N, L, D]: log-sum of the scores of the path suffixes after each tag."""
    w = trans[2:]
    lb = np.empty_like(x)
    for t in reversed(range(batch.steps)):
        if t + 1 < batch.steps:
            step = _logsumexp(w + (x[:, t + 1] + lb[:, t + 1])[:, None, :], axis=2)
        else:
            step = np.zeros_like(x[:, t])
        at_end = (batch.last == t)[:, None]
        lb[:, t] = np.where(at_end, trans[1], step)
    return lb


def _gold_score(x_flat, trans, labels, offsets) -> np.ndarray:
    """score(label) per sequence, summed over flat rows."""
    d = trans.shape[1]
    lengths = np.diff(offsets)
    rows = np.arange(labels.size)
    per_row = x_flat[rows, labels]
    starts = np.zeros(labels.size, dtype=bool)
    starts[offsets[:-1][lengths > 0]] = True
    follow = np.flatnonzero(~starts)
    per_row[follow] += trans[2:].reshape(-1)[labels[follow - 1] * d + labels[follow]]
    total = segment_sum(per_row[:, None], offsets)[:, 0]
    nonempty = lengths > 0
    total[nonempty] += trans[0, labels[offsets[:-1][nonempty]]] + \
        trans[1, labels[offsets[1:][nonempty] - 1]]
    return total


def flat_layout(emission: LoDTensor, label, length, op_type: str, label_slot: str = "Label"):
    """(x [T, D], labels [T] or None, offsets, rows of the flat x in the padded input or None)."""
    e = emission.numpy()
    if length is None:
        by_label = label is not None and op_type.startswith("linear_chain_crf")
        source = label if by_label else emission
        if not source.offsets:
            raise lod_error(op_type, f"Input({'Label' if source is label else 'Emission'}) of "
                                     f"{op_type} has no LoD at run time",
                            hint="feed a LoDTensor, or give Length for a padded batch")
        offsets = source.offsets[-1]
        if int(offsets[-1]) != e.shape[0]:
            raise lod_error(op_type, f"the LoD of {label_slot} covers {int(offsets[-1])} rows "
                                     f"but Emission has {e.shape[0]}")
        labels = None if label is None else label.numpy().reshape(-1).astype(np.int64)
        return e, labels, offsets, None
    lengths = np.asarray(length.numpy()).reshape(-1).astype(np.int64)
    n, steps, d = e.shape
    if lengths.size != n or (lengths.size and (lengths.min() < 0 or lengths.max() > steps)):
        raise lod_error(op_type, f"Input(Length) must hold {n} lengths in [0, {steps}], got "
                                 f"{lengths.tolist()}")
    offsets = offsets_of(lengths)
    flat_rows = (np.arange(n)[:, None] * steps + np.arange(steps)[None, :])[
        np.arange(steps)[None, :] < lengths[:, None]]
    x = e.reshape(n * steps, d)[flat_rows]
    labels = None
    if label is not None:
        labels = label.numpy().reshape(n * steps)[flat_rows].astype(np.int64)
    return x, labels, offsets, flat_rows


def _check_labels(labels: np.ndarray, d: int, op_type: str) -> None:
    if labels.size and (labels.min() < 0 or labels.max() >= d):
        raise lod_error(op_type, f"Input(Label) holds tags outside [0, {d}): min "
                                 f"{int(labels.min())}, max {int(labels.max())}")


def _unflatten(values: np.ndarray, flat_rows, shape) -> np.ndarray:
    if flat_rows is None:
        return values
    out = np.zeros((int(np.prod(shape[:-1])), shape[-1]), dtype=values.dtype)
    out[flat_rows] = values
    return out.reshape(shape)


@linear_chain_crf.kernel(dtypes=FLOATS, lod=True)
def linear_chain_crf_kernel(attrs, emission, transition, label, length):
    x_flat, labels, offsets, flat_rows = flat_layout(emission, label, length, "linear_chain_crf")
    trans = transition.numpy()
    _check_labels(labels, trans.shape[1], "linear_chain_crf")
    batch = Batch(offsets)
    la = _forward(batch.pad(x_flat), trans, batch)
    log_z = np.zeros(batch.n, dtype=x_flat.dtype)
    nonempty = batch.lengths > 0
    last = la[np.arange(batch.n), batch.last]
    log_z[nonempty] = _logsumexp(last + trans[1], axis=1)[nonempty]
    nll = (log_z - _gold_score(x_flat, trans, labels, offsets)).astype(x_flat.dtype)
    alpha_flat = np.empty_like(x_flat)
    alpha_flat[batch.rows[batch.mask]] = la[batch.mask]
    alpha_flat = np.exp(alpha_flat - _logsumexp(alpha_flat, axis=1)[:, None])
    exps = np.exp(x_flat - x_flat.max(axis=1, keepdims=True)) if x_flat.size else x_flat
    shape = emission.shape
    return (LoDTensor.unchecked(_unflatten(alpha_flat, flat_rows, shape)),
            LoDTensor.unchecked(_unflatten(exps, flat_rows, shape)),
            LoDTensor.unchecked(np.exp(trans)), LoDTensor.unchecked(nll.reshape(-1, 1)))


@linear_chain_crf.grad_maker
def _(g):
    return [g.grad_op("linear_chain_crf_grad",
                      inputs={"Emission": g.input("Emission"),
                              "Transition": g.input("Transition"), "Label": g.input("Label"),
                              "Length": g.input("Length"),
                              "LogLikelihood@GRAD": g.output_grad("LogLikelihood")},
                      outputs={"Emission@GRAD": g.input_grad("Emission"),
                               "Transition@GRAD": g.input_grad("Transition")})]


linear_chain_crf_grad = register_op(
    "linear_chain_crf_grad",
    inputs=[In("Emission"), In("Transition"), In("Label"), In("Length", dispensable=True),
            In("LogLikelihood@GRAD")],
    outputs=[Out("Emission@GRAD", dispensable=True), Out("Transition@GRAD", dispensable=True)],
    doc="""Gradients of the negative log-likelihood, g = dLogLikelihood per sequence:

    dEmission[t, j] = g * (P(s_t = j) - [label_t = j])
    dTransition[0] = g * (P(s_1) - onehot(label_1)), dTransition[1] likewise at the last step,
    dTransition[2 + i, j] = g * sum_t (P(s_{t-1} = i, s_t = j) - [label_{t-1} = i, label_t = j])

with the marginals P from a forward-backward pass in log space.""",
)


@linear_chain_crf_grad.infer_shape
def _(ctx):
    ctx.set_output("Emission@GRAD", ctx.input_shape("Emission"), ctx.input_dtype("Emission"))
    if not ctx.has_input("Length"):
        ctx.share_lod("Emission", "Emission@GRAD")
    ctx.set_output("Transition@GRAD", ctx.input_shape("Transition"),
                   ctx.input_dtype("Transition"))


@linear_chain_crf_grad.kernel(dtypes=FLOATS, lod=True)
def linear_chain_crf_grad_kernel(attrs, emission, transition, label, length, d_ll):
    x_flat, labels, offsets, flat_rows = flat_layout(emission, label, length,
                                                     "linear_chain_crf_grad")
    trans = transition.numpy()
    d = trans.shape[1]
    batch = Batch(offsets)
    x = batch.pad(x_flat)
    la, lb = _forward(x, trans, batch), _backward(x, trans, batch)
    idx = np.arange(batch.n)
    log_z = _logsumexp(la[idx, batch.last] + trans[1], axis=1)            # [N]
    g = d_ll.numpy().reshape(-1).astype(x_flat.dtype)
    gz = np.where(batch.lengths > 0, g, 0)
    marg = np.exp(la + lb - log_z[:, None, None]) * batch.mask[:, :, None]  # [N, L, D]
    gold = np.zeros_like(x_flat)
    gold[np.arange(labels.size), labels] = 1
    seq_of_row = np.repeat(idx, batch.lengths)
    dx_flat = (marg[batch.mask] - gold) * g[seq_of_row, None]
    d_trans = np.zeros_like(trans)
    nonempty = batch.lengths > 0
    first_rows, last_rows = offsets[:-1][nonempty], offsets[1:][nonempty] - 1
    d_trans[0] = ((marg[idx, 0] * gz[:, None]).sum(0)
                  - np.bincount(labels[first_rows], weights=g[nonempty], minlength=d))
    d_trans[1] = ((marg[idx, batch.last] * gz[:, None]).sum(0)
                  - np.bincount(labels[last_rows], weights=g[nonempty], minlength=d))
    w = trans[2:]
    for t in range(1, batch.steps):
        active = batch.mask[:, t]
        pair = la[:, t - 1, :, None] + w + (x[:, t] + lb[:, t])[:, None, :] - \
            log_z[:, None, None]
        d_trans[2:] += np.einsum("nij,n->ij", np.exp(pair), np.where(active, g, 0))
    follow = np.ones(labels.size, dtype=bool)
    follow[first_rows] = False
    follow = np.flatnonzero(follow)
    pairs = np.bincount(labels[follow - 1] * d + labels[follow], weights=g[seq_of_row[follow]],
                        minlength=d * d)
    d_trans[2:] -= pairs.reshape(d, d)
    return (LoDTensor.unchecked(_unflatten(dx_flat, flat_rows, emission.shape),
                            emission.offsets if length is None else ()),
            LoDTensor.unchecked(d_trans))


# --- crf_decoding --------------------------------------------------------------------------

crf_decoding = register_op(
    "crf_decoding",
    inputs=[In("Emission", "[T, D] tag scores with LoD, or [N, L, D] with Length"),
            In("Transition", "[D + 2, D], as linear_chain_crf's"),
            In("Label", "int64 [T, 1] (or [N, L]): compare the path with it", dispensable=True),
            In("Length", "int64 [N]: sequence lengths of a padded batch", dispensable=True)],
    outputs=[Out("ViterbiPath", "int64 [T, 1] best tags (Emission's LoD), or [N, L]; with "
                                "Label: 1 where right, 0 where wrong")],
    doc=__doc__,
)


@crf_decoding.infer_shape
def _(ctx):
    emission, _ = _check_crf(ctx, "crf_decoding")
    if ctx.has_input("Length"):
        ctx.set_output("ViterbiPath", emission[:2], np.int64)
        return
    ctx.set_output("ViterbiPath", (emission[0], 1), np.int64)
    ctx.share_lod("Emission", "ViterbiPath")


def viterbi(x: np.ndarray, trans: np.ndarray, batch: Batch) -> np.ndarray:
    """Best tag per step [N, L] (anything past a sequence's end)."""
    n, steps, d = x.shape
    w = trans[2:]
    score = trans[0] + x[:, 0] if steps else np.zeros((n, d), x.dtype)
    back = np.zeros((n, steps, d), dtype=np.int64)
    for t in range(1, steps):
        cand = score[:, :, None] + w                     # [N, from, to]
        best = cand.argmax(axis=1)                        # first maximum: the lowest tag
        step = np.take_along_axis(cand, best[:, None, :], axis=1)[:, 0] + x[:, t]
        active = batch.mask[:, t, None]
        score = np.where(active, step, score)
        back[:, t] = best
    idx = np.arange(n)
    path = np.zeros((n, steps), dtype=np.int64)
    if steps == 0:
        return path
    tag = (score + trans[1]).argmax(axis=1)
    for t in reversed(range(steps)):
        at_or_before_end = t <= batch.last
        path[:, t] = np.where(at_or_before_end, tag, 0)
        if t:
            tag = np.where(t <= batch.last, back[idx, t, tag], tag)
    return path


crf_decoding.grad_maker(lambda g: [])  # a decoded path has no gradient


@crf_decoding.kernel(dtypes=FLOATS, lod=True)
def crf_decoding_kernel(attrs, emission, transition, label, length):
    x_flat, labels, offsets, flat_rows = flat_layout(emission, label, length, "crf_decoding",
                                                     "Emission")
    batch = Batch(offsets)
    path = viterbi(batch.pad(x_flat), transition.numpy(), batch)[batch.mask]
    if labels is not None:
        if labels.size != path.size:
            raise lod_error("crf_decoding", f"Input(Label) has {labels.size} tags but Emission "
                                            f"has {path.size} steps")
        path = (path == labels).astype(np.int64)
    if flat_rows is None:
        return LoDTensor.unchecked(path.reshape(-1, 1), emission.offsets)
    return LoDTensor.unchecked(_unflatten(path[:, None], flat_rows, emission.shape[:2] + (1,))
                           .reshape(emission.shape[:2]))
