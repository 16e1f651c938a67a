"""warpctc (+ _grad), CTC: -log p(label | logits) per sequence, blank `blank`; the gradient
w.r.t. the logits (softmax - posterior occupancy) is computed with the loss.

The sequences are the LoD's of Logits [T, C] and Label, or, in Paddle 1.6+'s padded form,
given by LogitsLength and LabelLength: Logits [Tmax, B, C] (time-major), Label [B, Lmax],
sequence b being Logits[:LogitsLength[b], b] and Label[b, :LabelLength[b]]. WarpCTCGrad
then has Logits' padded shape (zeros past each length) and Loss is [B, 1].
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import INTS, Attr, In, Out
from paddle_ir.ops.sequence_ops.sequence_common import lengths_of, require_lod
from paddle_ir.ops.simple_op import register_simple


def _ctc_one(logp: np.ndarray, label: np.ndarray, blank: int):
    """(loss, d loss / d logits) for one sequence; logp [T, C] log-softmax."""
    steps = logp.shape[0]
    ext = np.full(2 * label.size + 1, blank, dtype=np.int64)
    ext[1::2] = label
    s = ext.size
    skip = np.zeros(s, dtype=bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    neg = -np.inf
    alpha = np.full((steps, s), neg)
    alpha[0, 0] = logp[0, ext[0]]
    if s > 1:
        alpha[0, 1] = logp[0, ext[1]]
    for t in range(1, steps):
        a = alpha[t - 1]
        prev1 = np.concatenate([[neg], a[:-1]])
        prev2 = np.where(skip, np.concatenate([[neg, neg], a[:-2]]), neg)
        alpha[t] = np.logaddexp(np.logaddexp(a, prev1), prev2) + logp[t, ext]
    beta = np.full((steps, s), neg)
    beta[-1, -1] = logp[-1, ext[-1]]
    if s > 1:
        beta[-1, -2] = logp[-1, ext[-2]]
    skip_next = np.zeros(s, dtype=bool)
    skip_next[:-2] = skip[2:]
    for t in range(steps - 2, -1, -1):
        b = beta[t + 1]
        next1 = np.concatenate([b[1:], [neg]])
        next2 = np.where(skip_next, np.concatenate([b[2:], [neg, neg]]), neg)
        beta[t] = np.logaddexp(np.logaddexp(b, next1), next2) + logp[t, ext]
    ll = np.logaddexp(alpha[-1, -1], alpha[-1, -2]) if s > 1 else alpha[-1, -1]
    if not np.isfinite(ll):
        raise KernelError(f"warpctc: the label of length {label.size} cannot be aligned to "
                          f"{steps} steps")
    occupancy = alpha + beta - logp[:, ext]  # log sum over paths through (t, s)
    post = np.zeros_like(logp)
    for k in np.unique(ext):  # a handful of distinct labels per sequence
        cols = ext == k
        post[:, k] = np.exp(np.logaddexp.reduce(occupancy[:, cols], axis=1) - ll)
    grad = np.exp(logp) - post
    return -ll, grad


def _lengths(name: str, lengths, batch: int, limit: int) -> np.ndarray:
    values = np.asarray(lengths.numpy()).reshape(-1).astype(np.int64)
    if values.size != batch or (values < 0).any() or (values > limit).any():
        raise KernelError(f"warpctc: {name} must hold {batch} lengths in [0, {limit}], got "
                          f"{values.tolist()}")
    return values


def _padded(attrs, logits: LoDTensor, label: LoDTensor, logits_len, label_len):
    """The padded form: each sequence cut to its length, run as the LoD form runs."""
    x, lab = logits.numpy(), label.numpy()
    t_max, batch, classes = x.shape
    lt = _lengths("LogitsLength", logits_len, batch, t_max)
    ll = _lengths("LabelLength", label_len, batch, lab.shape[1])
    flat_x = np.concatenate([x[:lt[b], b] for b in range(batch)]) if batch else x[:0, 0]
    flat_l = np.concatenate([lab[b, :ll[b]] for b in range(batch)]) if batch else lab[:0, 0]
    starts = np.concatenate([[0], np.cumsum(lt)])
    grad, loss = _warpctc(attrs, LoDTensor.unchecked(flat_x, (starts,)),
                          LoDTensor.unchecked(flat_l.reshape(-1, 1),
                                              (np.concatenate([[0], np.cumsum(ll)]),)))
    padded = np.zeros_like(x)
    for b in range(batch):
        padded[:lt[b], b] = grad.numpy()[starts[b]:starts[b + 1]]
    return LoDTensor.unchecked(padded), loss


def _warpctc(attrs, logits: LoDTensor, label: LoDTensor, logits_len=None, label_len=None):
    if logits_len is not None:
        return _padded(attrs, logits, label, logits_len, label_len)
    x = logits.numpy().astype(np.float64)
    lo, bo = logits.offsets[-1], label.offsets[-1]
    if lo.size != bo.size:
        raise KernelError(f"warpctc: Logits has {lo.size - 1} sequences but Label has "
                          f"{bo.size - 1}")
    lab = label.numpy().reshape(-1)
    if lab.size and (lab.min() < 0 or lab.max() >= x.shape[1]):
        raise KernelError(f"warpctc: Label holds ids in [{int(lab.min())}, {int(lab.max())}], "
                          f"outside the class range [0, {x.shape[1]}) of Logits")
    shifted = x - x.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = np.zeros((lo.size - 1, 1))
    grad = np.zeros_like(x)
    for k in range(lo.size - 1):
        sl = slice(lo[k], lo[k + 1])
        loss[k, 0], g = _ctc_one(logp[sl], lab[bo[k]:bo[k + 1]], attrs["blank"])
        if attrs["norm_by_times"]:
            g = g / max(lo[k + 1] - lo[k], 1)
        grad[sl] = g
    dtype = logits.dtype
    return (LoDTensor.unchecked(grad.astype(dtype), logits.offsets),
            LoDTensor.unchecked(loss.astype(dtype)))


def _warpctc_grad(attrs, logits, label, logits_len, label_len, grad, dloss):
    if logits_len is not None:  # padded [Tmax, B, C]: each sequence's loss gradient
        per_seq = dloss.numpy().reshape(1, -1, 1)
        return LoDTensor.unchecked((grad.numpy() * per_seq).astype(grad.dtype))
    lengths = lengths_of(logits.offsets[-1])
    per_row = np.repeat(dloss.numpy().reshape(-1), lengths)[:, None]
    return LoDTensor.unchecked((grad.numpy() * per_row).astype(grad.dtype), logits.offsets)


def _infer_warpctc(ctx):
    padded = [ctx.has_input(s) for s in ("LogitsLength", "LabelLength")]
    ctx.enforce(all(padded) or not any(padded), "give both LogitsLength and LabelLength, or "
                                                "neither (then Logits and Label carry a LoD)")
    ctx.enforce(ctx.input_dtype("Label") in INTS, "Label must be int32 or int64")
    if all(padded):
        x, label = ctx.input_shape("Logits"), ctx.input_shape("Label")
        ctx.enforce(len(x) == 3 and len(label) == 2, lambda:
                    f"with LogitsLength, Logits must be [Tmax, B, C] and Label [B, Lmax], got "
                    f"{list(x)} and {list(label)}")
        classes, blank = x[-1], ctx.attr("blank")
        ctx.enforce(0 <= blank and (classes < 0 or blank < classes), lambda:
                    f"blank must be a class id in [0, {classes}) (Logits' last dim), got {blank}")
        ctx.set_output("WarpCTCGrad", x, ctx.input_dtype("Logits"))
        ctx.set_output("Loss", (x[1], 1), ctx.input_dtype("Logits"))
        return
    require_lod(ctx, "Logits")
    require_lod(ctx, "Label")
    classes, blank = ctx.input_shape("Logits")[-1], ctx.attr("blank")
    ctx.enforce(0 <= blank and (classes < 0 or blank < classes), lambda:
                f"blank must be a class id in [0, {classes}) (Logits' last dim), got {blank}")
    ctx.set_output("WarpCTCGrad", ctx.input_shape("Logits"), ctx.input_dtype("Logits"))
    ctx.share_lod("Logits", "WarpCTCGrad")
    ctx.set_output("Loss", (-1, 1), ctx.input_dtype("Logits"))


register_simple(
    "warpctc", [In("Logits", "[T, C + 1] unnormalized, with a LoD (or [Tmax, B, C + 1])"),
                In("Label", "int ids with a LoD (or [B, Lmax])"),
                In("LogitsLength", "int64 [B]: the padded form's sequence lengths",
                   dispensable=True),
                In("LabelLength", "int64 [B]: the padded form's label lengths",
                   dispensable=True)],
    [Out("WarpCTCGrad", "d loss / d Logits"), Out("Loss", "[nseq, 1]")],
    [Attr("blank", "int", 0, "the blank id"),
     Attr("norm_by_times", "bool", False, "divide the gradient by the sequence length")],
    _infer_warpctc, _warpctc, backward=_warpctc_grad, wrt=["Logits"], out_slot="Loss",
    keep=["WarpCTCGrad"], lod=True, doc=__doc__)
