"""Losses over a sample of the classes or a tree of them, for large vocabularies (+ grads):

    hierarchical_sigmoid  Paddle's default complete binary tree over num_classes leaves:
                 code = label + num_classes; for bit j < floor(log2 code): node
                 (code >> (j + 1)) - 1, target bit (code >> j) & 1; pre = x . W[node] +
                 b[node] clipped to [-40, 40]; Out = sum_j softplus(pre_j) - bit_j pre_j
                 over the code_length = bit_length(num_classes - 1) columns, a column past
                 a row's path holding pre = 0: a row whose path is k bits short of
                 code_length gets k ln 2 more than its path's loss, as Paddle's kernel
                 gives it (its sum of softplus runs over the zero padding). PreOut
                 [N, code_length] holds softplus(pre), ln 2 past the path, as Paddle's.
                 A custom tree (PathTable and PathCode, [N, L] each): row n's path is
                 nodes PathTable[n, j] with target bits PathCode[n, j] up to the first
                 negative node; code_length is L, padded the same way.
    nce          per row: true classes and num_neg_samples classes drawn uniformly; logit
                 o = sigmoid(x . W[c] + b[c]), k q = num_neg / num_total; Cost = sum over
                 true -log(o / (o + k q)) + sum over negatives -log(k q / (o + k q))
    sample_logits  [true labels, num_samples classes drawn log-uniformly] columns of Logits
                 minus log Q(c) (accidental hits of a true label set to -1e20)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_temporary
from paddle_ir.ops.registry import Attr, In, Out
from paddle_ir.ops.simple_op import register_simple


def _labels(label, bound: int, op: str) -> np.ndarray:
    lab = np.asarray(label).reshape(-1).astype(np.int64)
    if lab.size and (lab.min() < 0 or lab.max() >= bound):
        raise KernelError(f"{op}: labels must lie in [0, {bound})")
    return lab


# -- hierarchical_sigmoid --------------------------------------------------------------------

def _paths(label: np.ndarray, num_classes: int):
    """(nodes [N, L], bits [N, L], valid [N, L]) of the default tree, L = Paddle's
    code_length (the longest path: the bits of num_classes - 1)."""
    code = label + num_classes
    length = np.floor(np.log2(code)).astype(np.int64)
    depth = (num_classes - 1).bit_length()
    j = np.arange(depth)[None, :]
    valid = j < length[:, None]
    nodes = np.where(valid, (code[:, None] >> (j + 1)) - 1, 0)
    bits = np.where(valid, (code[:, None] >> j) & 1, 0)
    return nodes, bits.astype(np.float64), valid


def _rows(w, index):
    """W's rows at `index` ([N, K, D]: K classes or tree nodes per example), a working
    array K * D times the batch, checked against the memory budget first."""
    check_temporary("the weight rows of the sampled classes", tuple(index.shape) + w.shape[1:],
                    w.dtype)
    return w[index]


def _pre(x, w, bias, nodes, valid):
    pre = np.einsum("nd,nld->nl", x, _rows(w, nodes))
    if bias is not None:
        pre = pre + bias.reshape(-1)[nodes]
    return np.where(valid, np.clip(pre, -40.0, 40.0), 0.0)


def _custom_paths(table, code, rows: int, nodes_in_w: int):
    """(nodes, bits, valid) of a custom tree: each row's path ends at its first negative
    node, as Paddle's CustomCode reads PathTable."""
    table, code = np.asarray(table).astype(np.int64), np.asarray(code).astype(np.int64)
    if table.shape != code.shape or table.ndim != 2 or table.shape[0] != rows:
        raise KernelError(f"hierarchical_sigmoid: PathTable and PathCode must both be [N, L] "
                          f"with N = {rows}, got {list(table.shape)} and {list(code.shape)}")
    valid = np.cumprod(table >= 0, axis=1).astype(bool)
    if (table[valid] >= nodes_in_w).any():
        raise KernelError(f"hierarchical_sigmoid: PathTable names node "
                          f"{int(table[valid].max())}, but W has {nodes_in_w} rows")
    nodes = np.where(valid, table, 0)
    return nodes, np.where(valid, code, 0).astype(np.float64), valid


def _tree(attrs, x, w, label, table, code):
    if table is not None:
        return _custom_paths(table, code, x.shape[0], w.shape[0])
    lab = _labels(label, attrs["num_classes"], "hierarchical_sigmoid")
    return _paths(lab, attrs["num_classes"])


def _hsig(attrs, x, w, label, bias, table=None, code=None):
    nodes, bits, valid = _tree(attrs, x, w, label, table, code)
    pre = _pre(x, w, bias, nodes, valid)  # 0 past each row's path
    softplus = np.logaddexp(0.0, pre)  # ln 2 past the path: Paddle sums it into Out
    out = (softplus - bits * pre).sum(axis=1, keepdims=True)
    return out.astype(x.dtype), softplus.astype(x.dtype), w


def _hsig_grad(attrs, x, w, label, bias, table, code, pre, dout):
    nodes, bits, valid = _tree(attrs, x, w, label, table, code)
    raw = np.einsum("nd,nld->nl", x, _rows(w, nodes))
    if bias is not None:
        raw = raw + bias.reshape(-1)[nodes]
    inside = valid & (raw > -40.0) & (raw < 40.0)  # the clip stops the gradient outside
    # PreOut holds softplus(pre): sigmoid(pre) = 1 - exp(-softplus(pre)). The padding's
    # ln 2 is constant: no gradient past the path.
    g = np.where(inside, 1 - np.exp(-pre) - bits, 0.0) * dout.reshape(-1, 1)
    dx = np.einsum("nl,nld->nd", g, _rows(w, nodes)).astype(x.dtype)
    dw = np.zeros_like(w)
    np.add.at(dw, nodes[valid], (g[:, :, None] * x[:, None, :])[valid])
    db = None
    if bias is not None:
        db = np.zeros(bias.size, dtype=bias.dtype)
        np.add.at(db, nodes[valid], g[valid])
        db = db.reshape(bias.shape)
    return dx, dw, db


def _infer_hsig(ctx):
    x, w = ctx.input_shape("X"), ctx.input_shape("W")
    c = ctx.attr("num_classes")
    custom = [ctx.has_input(s) for s in ("PathTable", "PathCode")]
    ctx.enforce(all(custom) or not any(custom), "give both PathTable and PathCode (a custom "
                                                "tree) or neither (the default tree)")
    if all(custom):
        table = ctx.input_shape("PathTable")
        ctx.enforce(len(table) == 2 and len(w) == 2, lambda:
                    f"PathTable must be [N, L] and W [nodes, D], got {list(table)} and {list(w)}")
        width = table[1]
    else:
        ctx.enforce(c >= 2, lambda: f"num_classes must be >= 2, got {c}")
        ctx.enforce(len(w) == 2 and (w[0] < 0 or w[0] == c - 1),
                    lambda: f"W must be [num_classes - 1, D] = [{c - 1}, D], got {list(w)}")
        width = (c - 1).bit_length()
    ctx.set_output("Out", (x[0], 1), ctx.input_dtype("X"))
    ctx.set_output("PreOut", (x[0], width), ctx.input_dtype("X"))
    ctx.set_output("W_Out", w, ctx.input_dtype("W"))


register_simple(
    "hierarchical_sigmoid", [In("X", "[N, D]"), In("W", "[num_classes - 1, D]"),
                             In("Label", "[N, 1] int"),
                             In("Bias", "[num_classes - 1, 1]", dispensable=True),
                             In("PathTable", "[N, L] int64 nodes of a custom tree (-1 ends a "
                                             "path)", dispensable=True),
                             In("PathCode", "[N, L] int64 target bits of a custom tree",
                                dispensable=True)],
    [Out("Out", "[N, 1]"),
     Out("PreOut", "[N, code_length] softplus of the clipped node logits (ln 2 past a path)"),
     Out("W_Out", "W itself: Paddle's programs bind W here (an in-place alias Fluid kept "
                  "for distributed training)", dispensable=True)],
    [Attr("num_classes", "int", 2, "leaves of the tree")], _infer_hsig, _hsig,
    backward=_hsig_grad, wrt=["X", "W", "Bias"], keep=["PreOut"], doc=__doc__)


# -- nce -------------------------------------------------------------------------------------

def _infer_nce(ctx):
    x, label = ctx.input_shape("Input"), ctx.input_shape("Label")
    k = ctx.attr("num_neg_samples")
    ctx.enforce(k >= 1, lambda: f"num_neg_samples must be >= 1, got {k}")
    custom = list(ctx.attr("custom_neg_classes"))
    classes = ctx.attr("num_total_classes")
    ctx.enforce(not custom or (len(custom) == k and all(0 <= c < classes for c in custom)), lambda:
                f"custom_neg_classes must hold num_neg_samples = {k} classes in [0, {classes}), "
                f"got {custom}")
    width = label[1] + k if len(label) == 2 and label[1] >= 0 else -1
    ctx.set_output("Cost", (x[0], 1), ctx.input_dtype("Input"))
    ctx.set_output("SampleLogits", (x[0], width), ctx.input_dtype("Input"))
    ctx.set_output("SampleLabels", (x[0], width), np.int64)


def _nce_samples(attrs, n, true_labels):
    custom = list(attrs["custom_neg_classes"])
    if custom:  # Paddle's fixed negatives (its tests use them): the same for every row
        neg = np.tile(np.asarray(custom, np.int64), (n, 1))
        return np.concatenate([true_labels, neg], axis=1)
    gen = np.random.default_rng(attrs["seed"] if attrs["seed"] else None)
    neg = gen.integers(0, attrs["num_total_classes"], size=(n, attrs["num_neg_samples"]))
    return np.concatenate([true_labels, neg], axis=1)


def _nce_cost(attrs, logits, num_true, weight):
    o = 1 / (1 + np.exp(-logits))
    kq = attrs["num_neg_samples"] / attrs["num_total_classes"]
    cost = np.concatenate([-np.log(o[:, :num_true] / (o[:, :num_true] + kq)),
                           -np.log(kq / (o[:, num_true:] + kq))], axis=1)
    out = cost.sum(axis=1, keepdims=True)
    return out * weight.reshape(-1, 1) if weight is not None else out


def _nce(attrs, x, label, w, bias, weight):
    true = np.asarray(label).reshape(x.shape[0], -1).astype(np.int64)
    _labels(true, attrs["num_total_classes"], "nce")
    samples = _nce_samples(attrs, x.shape[0], true)
    logits = np.einsum("nd,nkd->nk", x, _rows(w, samples))
    if bias is not None:
        logits = logits + bias.reshape(-1)[samples]
    cost = _nce_cost(attrs, logits, true.shape[1], weight)
    return cost.astype(x.dtype), logits.astype(x.dtype), samples


def _nce_grad(attrs, x, label, w, bias, weight, logits, samples, dcost):
    num_true = np.asarray(label).reshape(x.shape[0], -1).shape[1]
    o = 1 / (1 + np.exp(-logits))
    kq = attrs["num_neg_samples"] / attrs["num_total_classes"]
    # d/dlogit of -log(o / (o + kq)) = -(1 - o) kq / (o + kq); of -log(kq / (o + kq)) =
    # o (1 - o) / (o + kq)
    g = np.concatenate([-(1 - o[:, :num_true]) * kq / (o[:, :num_true] + kq),
                        o[:, num_true:] * (1 - o[:, num_true:]) / (o[:, num_true:] + kq)],
                       axis=1)
    scale = dcost.reshape(-1, 1)
    if weight is not None:
        scale = scale * weight.reshape(-1, 1)
    g = g * scale
    dx = np.einsum("nk,nkd->nd", g, _rows(w, samples)).astype(x.dtype)
    dw = np.zeros_like(w)
    np.add.at(dw, samples, g[:, :, None] * x[:, None, :])
    db = None
    if bias is not None:
        db = np.zeros(bias.size, dtype=bias.dtype)
        np.add.at(db, samples, g)
        db = db.reshape(bias.shape)
    return dx, dw, db


register_simple(
    "nce", [In("Input", "[N, D]"), In("Label", "[N, num_true] int"),
            In("Weight", "[num_total_classes, D]"),
            In("Bias", "[num_total_classes, 1]", dispensable=True),
            In("SampleWeight", "[N, 1]", dispensable=True)],
    [Out("Cost", "[N, 1]"), Out("SampleLogits", "[N, num_true + k]"),
     Out("SampleLabels", "[N, num_true + k] the classes used")],
    [Attr("num_total_classes", "int", 2, "the classes"),
     Attr("num_neg_samples", "int", 10, "negatives per row"),
     Attr("seed", "int", 0, "0: random"), Attr("sampler", "int", 0, "0: uniform (only)"),
     Attr("custom_neg_classes", "ints", [], "fixed negative classes for every row "
                                             "(Paddle's, for tests); empty: sampled")],
    _infer_nce, _nce, backward=_nce_grad, wrt=["Input", "Weight", "Bias"], out_slot="Cost",
    keep=["SampleLogits", "SampleLabels"], doc=__doc__)


# -- sample_logits ---------------------------------------------------------------------------

def _log_uniform(n_classes, size, gen):
    """Samples from P(c) = log((c + 2) / (c + 1)) / log(n + 1), and those probabilities."""
    u = gen.uniform(0, 1, size=size)
    samples = np.minimum((np.exp(u * np.log(n_classes + 1)) - 1).astype(np.int64),
                         n_classes - 1)
    return samples


def _log_uniform_prob(c, n_classes):
    return np.log((c + 2.0) / (c + 1.0)) / np.log(n_classes + 1.0)


def _infer_sample_logits(ctx):
    logits, labels = ctx.input_shape("Logits"), ctx.input_shape("Labels")
    s = ctx.attr("num_samples")
    width = labels[1] + s if labels[1] >= 0 else -1
    for slot, dt in (("SampledLogits", ctx.input_dtype("Logits")), ("Samples", np.int64),
                     ("Probabilities", ctx.input_dtype("Logits"))):
        ctx.set_output(slot, (logits[0], width), dt)
    ctx.set_output("SampledLabels", (logits[0], labels[1]), np.int64)


def _sample_logits(attrs, logits, labels):
    n, classes = logits.shape
    true = np.asarray(labels).reshape(n, -1).astype(np.int64)
    _labels(true, classes, "sample_logits")
    gen = np.random.default_rng(attrs["seed"] if attrs["seed"] else None)
    shared = _log_uniform(classes, attrs["num_samples"], gen)  # one draw shared by the batch
    samples = np.concatenate([true, np.broadcast_to(shared, (n, shared.size))], axis=1)
    probs = _log_uniform_prob(samples, classes)
    picked = np.take_along_axis(logits, samples, axis=1) - np.log(probs)
    if attrs["remove_accidental_hits"]:
        hits = (samples[:, true.shape[1]:, None] == true[:, None, :]).any(axis=2)
        picked[:, true.shape[1]:][hits] = -1e20
    labels_out = np.tile(np.arange(true.shape[1], dtype=np.int64), (n, 1))
    return picked.astype(logits.dtype), samples, probs.astype(logits.dtype), labels_out


def _sample_logits_grad(attrs, logits, labels, samples, dsampled):
    dl = np.zeros_like(logits)
    rows = np.repeat(np.arange(logits.shape[0]), samples.shape[1])
    np.add.at(dl, (rows, samples.reshape(-1)), dsampled.reshape(-1))
    return dl


register_simple(
    "sample_logits", [In("Logits", "[N, K]"), In("Labels", "[N, num_true] int")],
    [Out("SampledLogits", "[N, num_true + S]"), Out("Samples", "the classes"),
     Out("Probabilities", "their sampling probabilities"),
     Out("SampledLabels", "[N, num_true]: the true columns 0..num_true-1")],
    [Attr("num_samples", "int", 1, "S"), Attr("seed", "int", 0, "0: random"),
     Attr("remove_accidental_hits", "bool", True, "mask samples equal to a true label")],
    _infer_sample_logits, _sample_logits, backward=_sample_logits_grad, wrt=["Logits"],
    out_slot="SampledLogits", keep=["Samples"], doc=__doc__)
