"""yolov3_loss (+ yolov3_loss_grad): YOLOv3's training loss of one detection head.

X [N, M (5 + C), H, W] holds, per image, masked anchor j (anchor_mask[j] of `anchors`) and
cell (row k, column l), the logits (tx, ty, tw, th, obj, class_1..C). GTBox [N, B, 4] are
ground-truth (cx, cy, w, h) relative to the image, GTLabel int32 [N, B], GTScore [N, B]
(mixup weights; default 1). A box with w or h below 1e-6 is padding. With s = scale_x_y,
input size S = downsample_ratio H and SCE(x, t) = max(x, 0) - x t + log(1 + exp(-|x|)):

- each predicted box ((l + s sigmoid(tx) - (s - 1) / 2) / H, (k + ... ty ...) / H,
  exp(tw) anchor_w / S, exp(th) anchor_h / S) whose best IoU with the image's real boxes
  exceeds ignore_thresh has its objectness ignored (ObjectnessMask -1);
- each real box goes to the cell (int(cx W), int(cy H)) and to the anchor of best IoU
  with it when both are centred (GTMatchMask: its index in anchor_mask, -1 when that
  anchor is not in this head's mask or the box is padding); with score g and
  q = (2 - w h) g, the image's loss gains
      q [SCE(tx, cx H - gi) + SCE(ty, cy H - gj) + |tw - log(w S / aw)| + |th - log(h S / ah)|]
      + g sum_c SCE(class_c, c == label ? 1 - e : e)   (e = min(1 / C, 1 / 40) with
                                                         use_label_smooth, else 0)
  and its ObjectnessMask entry becomes g (the last box of a cell wins);
- objectness: mask > 1e-5 adds SCE(obj, 1) mask; -0.5 < mask <= 1e-5 adds SCE(obj, 0).

Loss is [N]. The gradient differentiates this with the masks held fixed (as Paddle's
yolov3_loss_grad does; |.|' is taken as -1 at 0): GTBox, GTLabel and GTScore get none.
Columns divide by H, as Paddle's kernel does on non-square maps.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.special import expit

yolov3_loss = register_op(
    "yolov3_loss",
    inputs=[In("X", "[N, len(anchor_mask) (5 + class_num), H, W]"),
            In("GTBox", "[N, B, 4]: cx, cy, w, h relative to the image"),
            In("GTLabel", "int32 [N, B]"),
            In("GTScore", "[N, B]: each box's weight (default 1)", dispensable=True)],
    outputs=[Out("Loss", "[N]"), Out("ObjectnessMask", "[N, len(anchor_mask), H, W]"),
             Out("GTMatchMask", "int32 [N, B]")],
    attrs=[Attr("anchors", "ints", [], "anchor widths and heights, w0, h0, w1, h1, ..."),
           Attr("anchor_mask", "ints", [], "the anchors this head predicts"),
           Attr("class_num", "int", 1, "the number of classes"),
           Attr("ignore_thresh", "float", 0.7, "IoU above which objectness is ignored"),
           Attr("downsample_ratio", "int", 32, "the input size over the grid size"),
           Attr("use_label_smooth", "bool", True, "smooth the class targets"),
           Attr("scale_x_y", "float", 1.0, "the centre's scale (YOLOv4)")],
    doc=__doc__,
)


@yolov3_loss.infer_shape
def _(ctx):
    x, box, label = ctx.input_shape("X"), ctx.input_shape("GTBox"), ctx.input_shape("GTLabel")
    anchors, mask = list(ctx.attr("anchors")), list(ctx.attr("anchor_mask"))
    classes = ctx.attr("class_num")
    ctx.enforce(len(x) == 4, lambda: f"X must be [N, C, H, W], got {shape_str(x)}")
    ctx.enforce(len(anchors) >= 2 and len(anchors) % 2 == 0,
                lambda: f"anchors must hold width, height pairs, got {anchors}")
    ctx.enforce(len(mask) > 0 and all(0 <= m < len(anchors) // 2 for m in mask),
                lambda: f"anchor_mask must index the {len(anchors) // 2} anchors, got {mask}")
    ctx.enforce(classes > 0, lambda: f"class_num must be > 0, got {classes}")
    channels = len(mask) * (5 + classes)
    ctx.enforce(x[1] < 0 or x[1] == channels, lambda:
                f"X.shape[1] must be {channels} for {len(mask)} masked anchors and {classes} "
                f"classes, got {x[1]}")
    ctx.enforce(len(box) == 3 and box[2] in (-1, 4),
                lambda: f"GTBox must be [N, B, 4], got {shape_str(box)}")
    ctx.enforce(len(label) == 2 and all(a < 0 or b < 0 or a == b
                                         for a, b in zip(label, box[:2], strict=True)), lambda:
                f"GTLabel must be [N, B] for GTBox {shape_str(box)}, got {shape_str(label)}")
    ctx.enforce(np.dtype(ctx.input_dtype("GTLabel")) == np.int32,
                lambda: f"GTLabel must be int32, got {ctx.input_dtype('GTLabel')}")
    if ctx.has_input("GTScore"):
        score = ctx.input_shape("GTScore")
        ctx.enforce(len(score) == 2 and all(a < 0 or b < 0 or a == b
                                             for a, b in zip(score, box[:2], strict=True)),
                    lambda: f"GTScore must be [N, B] for GTBox {shape_str(box)}, got "
                    f"{shape_str(score)}")
    dtype = ctx.input_dtype("X")
    ctx.set_output("Loss", [x[0]], dtype)
    ctx.set_output("ObjectnessMask", [x[0], len(mask), x[2], x[3]], dtype)
    ctx.set_output("GTMatchMask", [box[0], box[1]], np.int32)


def sce(x, t):
    """Sigmoid cross entropy of logits x against targets t, overflow-free."""
    return np.maximum(x, 0) - x * t + np.log1p(np.exp(-np.abs(x)))


def _overlap(c1, w1, c2, w2):
    return np.minimum(c1 + w1 / 2, c2 + w2 / 2) - np.maximum(c1 - w1 / 2, c2 - w2 / 2)


def center_iou(b1, b2):
    """IoU of centre-form boxes (x, y, w, h), broadcast over their leading dims."""
    w = _overlap(b1[..., 0], b1[..., 2], b2[..., 0], b2[..., 2])
    h = _overlap(b1[..., 1], b1[..., 3], b2[..., 1], b2[..., 3])
    inter = np.where((w < 0) | (h < 0), 0, w * h)
    union = b1[..., 2] * b1[..., 3] + b2[..., 2] * b2[..., 3] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return inter / union


class _Head:
    """What the loss and its gradient share: the layout, the matches and the masks."""

    def __init__(self, attrs, x, box, label, score):
        dtype = x.dtype.type
        self.n, _, self.h, self.w = x.shape
        self.mask = list(attrs["anchor_mask"])
        self.m, self.classes = len(self.mask), attrs["class_num"]
        self.anchors = np.asarray(attrs["anchors"], np.float64).reshape(-1, 2)
        self.size = attrs["downsample_ratio"] * self.h
        self.x = x.reshape(self.n, self.m, 5 + self.classes, self.h, self.w)
        self.box, self.label = box, label
        self.score = (np.ones(label.shape, x.dtype) if score is None
                      else score.astype(x.dtype))
        smooth = min(1.0 / self.classes, 1.0 / 40) if attrs["use_label_smooth"] else 0.0
        self.pos, self.neg = dtype(1.0 - smooth), dtype(smooth)
        self.valid = (box[..., 2] >= 1e-6) & (box[..., 3] >= 1e-6)
        s = attrs["scale_x_y"]
        self.scale, self.bias = s, -0.5 * (s - 1)
        self.objectness = self._ignore(attrs["ignore_thresh"])
        self._match()

    def _ignore(self, thresh):
        """ObjectnessMask before the matches: -1 where a prediction overlaps a real box."""
        t = self.x
        cols, rows = np.arange(self.w)[None, None, None, :], np.arange(self.h)[None, None, :, None]
        aw = self.anchors[self.mask, 0][None, :, None, None] / self.size
        ah = self.anchors[self.mask, 1][None, :, None, None] / self.size
        pred = np.stack([(cols + expit(t[:, :, 0]) * self.scale + self.bias) / self.h,
                         (rows + expit(t[:, :, 1]) * self.scale + self.bias) / self.h,
                         np.exp(t[:, :, 2]) * aw, np.exp(t[:, :, 3]) * ah], axis=-1)
        mask = np.zeros((self.n, self.m, self.h, self.w), self.x.dtype)
        for i in range(self.n):  # images one by one: [M, H, W, B] IoUs at a time
            real = self.box[i][self.valid[i]]
            if real.size:
                best = center_iou(pred[i][..., None, :], real[None, None, None]).max(axis=-1)
                mask[i][best > thresh] = -1
        return mask

    def _match(self):
        """Each real box's cell, anchor and place in the mask (GTMatchMask)."""
        dtype = self.x.dtype.type
        # int(cx W) as Paddle truncates it, in X's precision; a centre at or past the
        # image's edge (cx >= 1) is kept in the last cell instead of reading past the map.
        self.gi = np.clip((self.box[..., 0] * dtype(self.w)).astype(np.int64), 0, self.w - 1)
        self.gj = np.clip((self.box[..., 1] * dtype(self.h)).astype(np.int64), 0, self.h - 1)
        box = self.box.astype(np.float64)
        shifted = np.concatenate([np.zeros(box.shape[:-1] + (2,)), box[..., 2:]], axis=-1)
        anchor_boxes = np.concatenate([np.zeros((len(self.anchors), 2)),
                                       self.anchors / self.size], axis=1)
        iou = center_iou(shifted[..., None, :], anchor_boxes)  # [N, B, A]
        self.best = np.argmax(np.where(iou > 0, iou, 0), axis=-1)
        where = {a: k for k, a in enumerate(self.mask)}
        slot = np.vectorize(lambda a: where.get(int(a), -1), otypes=[np.int32])(self.best)
        self.match = np.where(self.valid, slot, -1).astype(np.int32)
        self.img, self.gt = np.nonzero(self.match >= 0)  # positives, in (image, box) order
        self.j = self.match[self.img, self.gt]
        # The objectness of matched cells: the last real box of a cell wins.
        cells = (self.img, self.j, self.gj[self.img, self.gt], self.gi[self.img, self.gt])
        self.objectness[cells] = self.score[self.img, self.gt]

    def positives(self):
        """Per positive box: its logits [P, 5 + C], its targets and its weights."""
        i, g, j = self.img, self.gt, self.j
        gj, gi = self.gj[i, g], self.gi[i, g]
        logits = self.x[i, j, :, gj, gi]
        box = self.box[i, g]
        anchor = self.anchors[self.best[i, g]]
        dtype = self.x.dtype.type
        targets = np.stack([box[:, 0] * dtype(self.h) - gi, box[:, 1] * dtype(self.h) - gj,
                            np.log(box[:, 2] * self.size / anchor[:, 0]),
                            np.log(box[:, 3] * self.size / anchor[:, 1])], axis=1)
        score = self.score[i, g]
        weight = (dtype(2.0) - box[:, 2] * box[:, 3]) * score
        classes = np.full((i.size, self.classes), self.neg, self.x.dtype)
        classes[np.arange(i.size), self.label[i, g]] = self.pos
        return logits, targets.astype(self.x.dtype), weight, score, classes


@yolov3_loss.kernel(dtypes=FLOATS)
def yolov3_loss_kernel(attrs, x, box, label, score):
    head = _check_and_build(attrs, x, box, label, score)
    logits, targets, weight, score_p, classes = head.positives()
    per_box = weight * (sce(logits[:, 0], targets[:, 0]) + sce(logits[:, 1], targets[:, 1])
                        + np.abs(logits[:, 2] - targets[:, 2])
                        + np.abs(logits[:, 3] - targets[:, 3]))
    per_box = per_box + score_p * sce(logits[:, 5:], classes).sum(axis=1)
    loss = np.zeros(head.n, x.dtype)
    np.add.at(loss, head.img, per_box.astype(x.dtype))
    obj, logit = head.objectness, head.x[:, :, 4]
    positive, negative = obj > 1e-5, (obj > -0.5) & (obj <= 1e-5)
    loss += (np.where(positive, sce(logit, 1) * obj, 0)
             + np.where(negative, sce(logit, 0), 0)).sum(axis=(1, 2, 3)).astype(x.dtype)
    return loss, head.objectness, head.match


def _check_and_build(attrs, x, box, label, score):
    if box.shape[:2] != label.shape:
        raise ValueError(f"yolov3_loss: GTLabel {list(label.shape)} must be [N, B] for "
                         f"GTBox {list(box.shape)}")
    if box.shape[0] != x.shape[0]:
        raise ValueError(f"yolov3_loss: GTBox has {box.shape[0]} images, X {x.shape[0]}")
    valid = (box[..., 2] >= 1e-6) & (box[..., 3] >= 1e-6)
    bad = valid & ((label < 0) | (label >= attrs["class_num"]))
    if bad.any():
        raise ValueError(f"yolov3_loss: GTLabel must lie in [0, {attrs['class_num']}), got "
                         f"{int(label[bad][0])}")
    return _Head(attrs, x, box.astype(x.dtype), label, score)


@yolov3_loss.grad_maker
def _(g):
    return [g.grad_op("yolov3_loss_grad",
                      inputs={"X": g.input("X"), "GTBox": g.input("GTBox"),
                              "GTLabel": g.input("GTLabel"), "GTScore": g.input("GTScore"),
                              "Loss@GRAD": g.output_grad("Loss"),
                              "ObjectnessMask": g.output("ObjectnessMask"),
                              "GTMatchMask": g.output("GTMatchMask")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={a.name: g.attr(a.name) for a in yolov3_loss.attrs})]


yolov3_loss_grad = register_op(
    "yolov3_loss_grad",
    inputs=[In("X"), In("GTBox"), In("GTLabel"), In("GTScore", dispensable=True),
            In("Loss@GRAD"), In("ObjectnessMask"), In("GTMatchMask")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=list(yolov3_loss.attrs),
    key_inputs=["X"],
    doc="dX of yolov3_loss with its masks held fixed (see yolov3_loss).",
)


@yolov3_loss_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("X"))


@yolov3_loss_grad.kernel(dtypes=FLOATS)
def yolov3_loss_grad_kernel(attrs, x, box, label, score, dloss, objectness, match):
    # The forward's ObjectnessMask is taken as given (the matches are recomputed: they
    # depend on GTBox only).
    head = _check_and_build(attrs, x, box, label, score)
    head.objectness = np.asarray(objectness, x.dtype)
    dloss = np.asarray(dloss, x.dtype).reshape(-1)
    logits, targets, weight, score_p, classes = head.positives()
    up = dloss[head.img]
    grad = np.zeros_like(head.x)
    d = np.empty_like(logits)
    d[:, 0] = (expit(logits[:, 0]) - targets[:, 0]) * weight
    d[:, 1] = (expit(logits[:, 1]) - targets[:, 1]) * weight
    d[:, 2] = np.where(logits[:, 2] > targets[:, 2], 1, -1) * weight
    d[:, 3] = np.where(logits[:, 3] > targets[:, 3], 1, -1) * weight
    d[:, 4] = 0
    d[:, 5:] = (expit(logits[:, 5:]) - classes) * score_p[:, None]
    i, g = head.img, head.gt
    np.add.at(grad, (i, head.j, slice(None), head.gj[i, g], head.gi[i, g]), d * up[:, None])
    obj = head.objectness
    logit = head.x[:, :, 4]
    positive, negative = obj > 1e-5, (obj > -0.5) & (obj <= 1e-5)
    grad[:, :, 4] += (np.where(positive, (expit(logit) - 1) * obj, 0)
                      + np.where(negative, expit(logit), 0)) * dloss[:, None, None, None]
    return grad.reshape(x.shape).astype(x.dtype)

