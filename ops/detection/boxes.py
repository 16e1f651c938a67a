"""Detection heads Paddle's model zoo exports: yolo_box, prior_box, box_coder.
Inference ops (no gradient); boxes are [x1, y1, x2, y2].

yolo_box: X [N, A * (5 + class_num), H, W] (A = len(anchors) / 2; with iou_aware A more
channels in front, one IoU map per anchor), ImgSize [N, 2] (height, width). For anchor a
at grid cell (row i, col j), with s = scale_x_y and b = -(s - 1) / 2:

    cx = (j + sigmoid(tx) * s + b) * img_w / W     w = exp(tw) * anchor_w * img_w / (ratio W)
    cy = (i + sigmoid(ty) * s + b) * img_h / H     h = exp(th) * anchor_h * img_h / (ratio H)
    conf = sigmoid(obj)  (iou_aware: conf^(1 - f) * sigmoid(iou)^f)
    Boxes = [cx - w/2, cy - h/2, cx + w/2, cy + h/2] (clipped to the image when clip_bbox)
    Scores = conf * sigmoid(class logits)

rows ordered (a, i, j); a row whose conf < conf_thresh is all zeros in both outputs.

prior_box: for each cell (i, j) of Input [N, C, H, W] over Image [N, C, IH, IW], centre
((j + offset) * step_w, (i + offset) * step_h) (a step of 0 means IW / W, IH / H), one box
per min size and aspect ratio r (s sqrt(r) wide, s / sqrt(r) high; ratios are 1, then each
given one not already present, and 1 / r with flip), plus sqrt(s * max) square per max
size; min_max_aspect_ratios_order puts the square boxes first. Boxes are [H, W, P, 4],
normalised by the image size (clipped to [0, 1] with clip); Variances repeat `variances`.

box_coder: encode_center_size gives, for TargetBox [N, 4] against PriorBox [M, 4],
[N, M, 4] offsets ((tx - px) / pw / v0, (ty - py) / ph / v1, log(tw / pw) / v2,
log(th / ph) / v3) of the centres and sizes; decode_center_size inverts it for TargetBox
[N, M, 4] (axis 0: prior m goes with column m; axis 1: with row n). Variances come from
PriorBoxVar [M, 4], else the `variance` attribute, else 1. Unnormalised boxes
(box_normalized False) measure width as x2 - x1 + 1; as in Paddle, encoding still
centres the target at (x1 + x2) / 2.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op
from paddle_ir.ops.special import expit

# --- yolo_box ---------------------------------------------------------------------------

yolo_box = register_op(
    "yolo_box",
    inputs=[In("X", "[N, A * (5 + class_num), H, W] (iou_aware: A more channels first)"),
            In("ImgSize", "int [N, 2]: each image's height and width")],
    outputs=[Out("Boxes", "[N, A * H * W, 4]"), Out("Scores", "[N, A * H * W, class_num]")],
    attrs=[Attr("anchors", "ints", [], "anchor widths and heights, w0, h0, w1, h1, ..."),
           Attr("class_num", "int", 1, "the number of classes"),
           Attr("conf_thresh", "float", 0.01, "boxes below this confidence are zeroed"),
           Attr("downsample_ratio", "int", 32, "the input size over the grid size"),
           Attr("clip_bbox", "bool", True, "clip boxes to the image"),
           Attr("scale_x_y", "float", 1.0, "the centre's scale (YOLOv4)"),
           Attr("iou_aware", "bool", False, "X carries an IoU map per anchor first"),
           Attr("iou_aware_factor", "float", 0.5, "the IoU's weight in the confidence")],
    doc=__doc__,
)


def _yolo_layout(get, x_shape):
    anchors = list(get("anchors"))
    na, classes = len(anchors) // 2, get("class_num")
    per = 5 + classes
    channels = na * per + (na if get("iou_aware") else 0)
    return anchors, na, classes, channels


@yolo_box.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 4, lambda: f"X must be [N, C, H, W], got {shape_str(x)}")
    anchors, na, classes, channels = _yolo_layout(ctx.attr, x)
    ctx.enforce(len(anchors) >= 2 and len(anchors) % 2 == 0,
                lambda: f"anchors must hold width, height pairs, got {anchors}")
    ctx.enforce(classes >= 1, lambda: f"class_num must be >= 1, got {classes}")
    ctx.enforce(x[1] < 0 or x[1] == channels, lambda:
                f"X.shape[1] must be {channels} for {na} anchors and {classes} classes, got "
                f"{x[1]}")
    rows = na * x[2] * x[3] if x[2] >= 0 and x[3] >= 0 else -1
    ctx.set_output("Boxes", [x[0], rows, 4], ctx.input_dtype("X"))
    ctx.set_output("Scores", [x[0], rows, classes], ctx.input_dtype("X"))


@yolo_box.kernel(dtypes=FLOATS)
def yolo_box_kernel(attrs, x, img_size):
    anchors, na, classes, _ = _yolo_layout(attrs.__getitem__, x.shape)
    n, _, h, w = x.shape
    ious = None
    if attrs["iou_aware"]:
        ious, x = x[:, :na], x[:, na:]
    p = x.reshape(n, na, 5 + classes, h, w)
    s = attrs["scale_x_y"]
    bias = -0.5 * (s - 1)
    img_h = img_size[:, 0].astype(x.dtype).reshape(n, 1, 1, 1)
    img_w = img_size[:, 1].astype(x.dtype).reshape(n, 1, 1, 1)
    ratio = attrs["downsample_ratio"]
    aw = np.asarray(anchors[0::2], x.dtype).reshape(1, na, 1, 1)
    ah = np.asarray(anchors[1::2], x.dtype).reshape(1, na, 1, 1)
    cols = np.arange(w, dtype=x.dtype).reshape(1, 1, 1, w)
    rows = np.arange(h, dtype=x.dtype).reshape(1, 1, h, 1)
    cx = (cols + expit(p[:, :, 0]) * s + bias) * img_w / w
    cy = (rows + expit(p[:, :, 1]) * s + bias) * img_h / h
    bw = np.exp(p[:, :, 2]) * aw * img_w / (ratio * w)
    bh = np.exp(p[:, :, 3]) * ah * img_h / (ratio * h)
    conf = expit(p[:, :, 4])
    if ious is not None:
        f = attrs["iou_aware_factor"]
        conf = conf ** (1 - f) * expit(ious) ** f
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=-1)
    if attrs["clip_bbox"]:
        high = np.stack([img_w - 1, img_h - 1, img_w - 1, img_h - 1], axis=-1)
        boxes = np.clip(boxes, 0, high)
    keep = (conf >= attrs["conf_thresh"])[..., None]
    scores = conf[..., None] * expit(np.moveaxis(p[:, :, 5:], 2, -1))
    boxes = np.where(keep, boxes, 0).reshape(n, na * h * w, 4)
    scores = np.where(keep, scores, 0).reshape(n, na * h * w, classes)
    return boxes.astype(x.dtype), scores.astype(x.dtype)


# --- prior_box --------------------------------------------------------------------------

prior_box = register_op(
    "prior_box",
    inputs=[In("Input", "the feature map [N, C, H, W]"),
            In("Image", "the image [N, C, IH, IW]", no_need_buffer=True)],
    outputs=[Out("Boxes", "[H, W, num_priors, 4], normalised"),
             Out("Variances", "[H, W, num_priors, 4]")],
    attrs=[Attr("min_sizes", "floats", [], "the box sizes"),
           Attr("max_sizes", "floats", [], "one per min size: adds a sqrt(min * max) box"),
           Attr("aspect_ratios", "floats", [], "width / height ratios besides 1"),
           Attr("variances", "floats", [0.1, 0.1, 0.2, 0.2], "the four variances"),
           Attr("flip", "bool", True, "add 1 / r for each ratio r"),
           Attr("clip", "bool", True, "clip boxes to [0, 1]"),
           Attr("step_w", "float", 0.0, "the horizontal cell step (0: IW / W)"),
           Attr("step_h", "float", 0.0, "the vertical cell step (0: IH / H)"),
           Attr("offset", "float", 0.5, "the centre's offset within its cell"),
           Attr("min_max_aspect_ratios_order", "bool", False,
                "order each size's boxes min, max, then the other ratios")],
    key_inputs=["Input"],
    doc=__doc__,
)


def expanded_ratios(ratios, flip: bool) -> list[float]:
    out = [1.0]
    for r in ratios:
        if any(abs(r - o) < 1e-6 for o in out):
            continue
        out.append(r)
        if flip:
            out.append(1.0 / r)
    return out


def _prior_sizes(get) -> list[tuple[float, float]]:
    """(width, height) of each prior of one cell, in Paddle's order."""
    ratios = expanded_ratios([float(np.float32(r)) for r in get("aspect_ratios")], get("flip"))
    mins, maxs = list(get("min_sizes")), list(get("max_sizes"))
    sizes = []
    for k, s in enumerate(mins):
        square = [(np.sqrt(s * maxs[k]),) * 2] if maxs else []
        if get("min_max_aspect_ratios_order"):
            sizes += [(s, s)] + square + [(s * np.sqrt(r), s / np.sqrt(r))
                                          for r in ratios if abs(r - 1) >= 1e-6]
        else:
            sizes += [(s * np.sqrt(r), s / np.sqrt(r)) for r in ratios] + square
    return sizes


@prior_box.infer_shape
def _(ctx):
    x, image = ctx.input_shape("Input"), ctx.input_shape("Image")
    ctx.enforce(len(x) == 4 and len(image) == 4,
                lambda: f"Input and Image must be 4-D, got {shape_str(x)} and {shape_str(image)}")
    mins, maxs = list(ctx.attr("min_sizes")), list(ctx.attr("max_sizes"))
    ctx.enforce(mins and all(s > 0 for s in mins), lambda: f"min_sizes must be > 0, got {mins}")
    ctx.enforce(not maxs or len(maxs) == len(mins),
                lambda: f"max_sizes must be empty or match min_sizes {mins}, got {maxs}")
    ctx.enforce(len(ctx.attr("variances")) == 4,
                lambda: f"variances must hold 4 values, got {list(ctx.attr('variances'))}")
    shape = [x[2], x[3], len(_prior_sizes(ctx.attr)), 4]
    ctx.set_output("Boxes", shape, ctx.input_dtype("Input"))
    ctx.set_output("Variances", shape, ctx.input_dtype("Input"))


@prior_box.kernel(dtypes=FLOATS)
def prior_box_kernel(attrs, x, image):
    h, w = x.shape[2:]
    img_h, img_w = image.shape[2:]
    step_w = attrs["step_w"] or img_w / w
    step_h = attrs["step_h"] or img_h / h
    cx = ((np.arange(w) + attrs["offset"]) * step_w).reshape(1, w, 1)
    cy = ((np.arange(h) + attrs["offset"]) * step_h).reshape(h, 1, 1)
    sizes = np.asarray(_prior_sizes(attrs.__getitem__))
    half_w, half_h = sizes[:, 0] / 2, sizes[:, 1] / 2
    boxes = np.stack(np.broadcast_arrays((cx - half_w) / img_w, (cy - half_h) / img_h,
                                         (cx + half_w) / img_w, (cy + half_h) / img_h),
                     axis=-1)
    if attrs["clip"]:
        boxes = np.clip(boxes, 0, 1)
    variances = np.broadcast_to(np.asarray(attrs["variances"], x.dtype), boxes.shape)
    return boxes.astype(x.dtype), np.ascontiguousarray(variances)


# --- box_coder --------------------------------------------------------------------------

CODE_TYPES = ("encode_center_size", "decode_center_size")

box_coder = register_op(
    "box_coder",
    inputs=[In("PriorBox", "[M, 4]"), In("PriorBoxVar", "[M, 4]", dispensable=True),
            In("TargetBox", "encode: [N, 4]; decode: [N, M, 4]")],
    outputs=[Out("OutputBox", "[N, M, 4]")],
    attrs=[Attr("code_type", "string", "encode_center_size", "encode or decode"),
           Attr("box_normalized", "bool", True, "boxes are normalised (no +1 on sizes)"),
           Attr("axis", "int", 0, "decode: the TargetBox dim the priors run along (0: M "
                "is dim 1, 1: M is dim 0)"),
           Attr("variance", "floats", [], "4 variances when PriorBoxVar is not bound")],
    key_inputs=["TargetBox"],
    doc=__doc__,
)


@box_coder.infer_shape
def _(ctx):
    code = ctx.attr("code_type")
    ctx.enforce(code in CODE_TYPES, lambda: f"code_type must be one of {', '.join(CODE_TYPES)}, "
                                    f"got {code!r}")
    prior, target = ctx.input_shape("PriorBox"), ctx.input_shape("TargetBox")
    ctx.enforce(len(prior) == 2 and prior[1] == 4, lambda: f"PriorBox must be [M, 4], got "
                                                   f"{shape_str(prior)}")
    variance = list(ctx.attr("variance"))
    ctx.enforce(not variance or len(variance) == 4,
                lambda: f"variance must be empty or hold 4 values, got {variance}")
    if code == "encode_center_size":
        ctx.enforce(len(target) == 2 and target[1] == 4,
                    lambda: f"encoding needs TargetBox [N, 4], got {shape_str(target)}")
        out = [target[0], prior[0], 4]
    else:
        ctx.enforce(len(target) == 3 and target[2] == 4,
                    lambda: f"decoding needs TargetBox [N, M, 4], got {shape_str(target)}")
        out = list(target)
    ctx.set_output("OutputBox", out, ctx.input_dtype("TargetBox"))
    # an encoded row per target box: Paddle passes the boxes' LoD on (an image's boxes)
    ctx.share_lod("TargetBox", "OutputBox")


def _centre_size(boxes: np.ndarray, normalized: bool):
    extra = 0 if normalized else 1
    w = boxes[..., 2] - boxes[..., 0] + extra
    h = boxes[..., 3] - boxes[..., 1] + extra
    return boxes[..., 0] + w / 2, boxes[..., 1] + h / 2, w, h


@box_coder.kernel(dtypes=FLOATS)
def box_coder_kernel(attrs, prior, prior_var, target):
    normalized = attrs["box_normalized"]
    if prior_var is not None:
        var = prior_var
    elif len(attrs["variance"]):
        var = np.broadcast_to(np.asarray(attrs["variance"], prior.dtype), prior.shape)
    else:
        var = np.ones_like(prior)
    pcx, pcy, pw, ph = _centre_size(prior, normalized)
    if attrs["code_type"] == "encode_center_size":
        _, _, tw, th = (c[:, None] for c in _centre_size(target, normalized))
        # Paddle centres the target at (x1 + x2) / 2 even when unnormalised (the prior's
        # centre is x1 + w / 2 with the + 1 in w).
        tcx = ((target[:, 0] + target[:, 2]) / 2)[:, None]
        tcy = ((target[:, 1] + target[:, 3]) / 2)[:, None]
        out = np.stack([(tcx - pcx) / pw / var[:, 0], (tcy - pcy) / ph / var[:, 1],
                        np.log(np.abs(tw / pw)) / var[:, 2],
                        np.log(np.abs(th / ph)) / var[:, 3]], axis=-1)
        return out.astype(target.dtype)
    # decode: line the priors (and their variances) up with TargetBox's dim 1 (axis 0)
    # or dim 0 (axis 1).
    def lined(a):
        return a[None, :] if attrs["axis"] == 0 else a[:, None]
    pcx, pcy, pw, ph = lined(pcx), lined(pcy), lined(pw), lined(ph)
    v = var[None, :, :] if attrs["axis"] == 0 else var[:, None, :]
    cx = v[..., 0] * target[..., 0] * pw + pcx
    cy = v[..., 1] * target[..., 1] * ph + pcy
    w = np.exp(v[..., 2] * target[..., 2]) * pw
    h = np.exp(v[..., 3] * target[..., 3]) * ph
    extra = 0 if normalized else 1
    out = np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - extra, cy + h / 2 - extra], axis=-1)
    return out.astype(target.dtype)
