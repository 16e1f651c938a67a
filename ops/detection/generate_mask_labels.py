"""generate_mask_labels: Mask R-CNN's mask targets for the foreground RoIs (Paddle's
detection/generate_mask_labels_op.cc and mask_util.cc). No gradient.

Per image (RoIs with no row for the image are skipped):

    the ground truths kept: class > 0 and not crowd; each with its polygons (GtSegms,
    LoD: images -> objects -> polygons -> points (x, y)) and the box that bounds them
    foreground RoIs: LabelsInt32 > 0, their boxes divided by ImInfo's scale; each takes
    the kept ground truth its box overlaps most (IoU with the +1 pixel convention; the
    first on ties, the first when none overlaps)
    mask: the ground truth's polygons rasterised on a resolution x resolution grid laid
    over the RoI box (width and height at least 1), their union; the rasteriser is
    COCO's polygon-to-RLE (Poly2Mask: vertices scaled by 5 and rounded, the edges walked,
    the crossings of column centres kept), run step for step
    MaskInt32 [fg, num_classes * res^2]: -1 everywhere but the RoI class's block, which
    holds the 0/1 mask; MaskRois the RoI boxes (divided and multiplied back by the scale,
    in float32); RoiHasMaskInt32 their indices among the image's RoIs
    no foreground RoI: one row for the first background RoI, holding the image's first
    RoI box (as Paddle's kernel does) and an all -1 target

The outputs' LoD counts each image's rows.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.detection.iou_similarity import pairwise_iou
from paddle_ir.ops.registry import Attr, In, Out, register_op

_FLT_MAX, _FLT_MIN = np.finfo(np.float32).max, np.finfo(np.float32).tiny

generate_mask_labels = register_op(
    "generate_mask_labels",
    inputs=[In("ImInfo", "[B, 3] (height, width, scale)"),
            In("GtClasses", "int32 [M, 1], LoD: ground truths per image"),
            In("IsCrowd", "int32 [M, 1], LoD as GtClasses"),
            In("GtSegms", "[S, 2] polygon points, LoD: images, objects, polygons"),
            In("Rois", "[R, 4] boxes, LoD: RoIs per image"),
            In("LabelsInt32", "int32 [R, 1] the RoIs' classes (0: background)")],
    outputs=[Out("MaskRois", "[P, 4]"), Out("RoiHasMaskInt32", "int32 [P, 1]"),
             Out("MaskInt32", "int32 [P, num_classes * resolution^2]")],
    attrs=[Attr("num_classes", "int", 0, "classes, background included"),
           Attr("resolution", "int", 0, "the mask grid's side")],
    key_inputs=["Rois"],
    doc=__doc__,
)


@generate_mask_labels.infer_shape
def _(ctx):
    info, segms = ctx.input_shape("ImInfo"), ctx.input_shape("GtSegms")
    ctx.enforce(len(info) == 2, lambda: f"ImInfo must be [B, 3], got {shape_str(info)}")
    ctx.enforce(len(segms) == 2 and segms[1] in (2, -1),
                lambda: f"GtSegms must be [S, 2] points, got {shape_str(segms)}")
    ctx.enforce(ctx.input_lod_level("GtSegms") in (3, -1),
                "GtSegms must carry 3 LoD levels (images, objects, polygons)")
    classes, res = ctx.attr("num_classes"), ctx.attr("resolution")
    ctx.enforce(classes > 0 and res > 0,
                lambda: f"num_classes and resolution must be > 0, got {classes} and {res}")
    ctx.set_output("MaskRois", [-1, 4], ctx.input_dtype("Rois"))
    ctx.set_output("RoiHasMaskInt32", [-1, 1], np.int32)
    ctx.set_output("MaskInt32", [-1, classes * res * res], np.int32)
    for slot in ("MaskRois", "RoiHasMaskInt32", "MaskInt32"):
        ctx.set_output_lod_level(slot, 1)


def _c_int(v: float) -> int:
    return int(v)  # C's cast: truncates toward zero


def poly2mask(xy: np.ndarray, h: int, w: int) -> np.ndarray:
    """COCO's polygon-to-mask (rleFrPoly then rleDecode), step for step: [h, w] uint8."""
    k = len(xy) // 2
    scale = 5.0
    x = [_c_int(scale * float(xy[2 * j]) + 0.5) for j in range(k)]
    y = [_c_int(scale * float(xy[2 * j + 1]) + 0.5) for j in range(k)]
    x.append(x[0])
    y.append(y[0])
    u, v = [], []
    for j in range(k):
        xs, xe, ys, ye = x[j], x[j + 1], y[j], y[j + 1]
        dx, dy = abs(xe - xs), abs(ys - ye)
        flip = (dx >= dy and xs > xe) or (dx < dy and ys > ye)
        if flip:
            xs, xe, ys, ye = xe, xs, ye, ys
        if dx >= dy:
            s = (ye - ys) / dx if dx else 0.0
            for d in range(dx + 1):
                t = dx - d if flip else d
                u.append(t + xs)
                v.append(_c_int(ys + s * t + 0.5))
        else:
            s = (xe - xs) / dy
            for d in range(dy + 1):
                t = dy - d if flip else d
                v.append(t + ys)
                u.append(_c_int(xs + s * t + 0.5))
    bx, by = [], []
    for j in range(1, len(u)):
        if u[j] == u[j - 1]:
            continue
        xd = float(u[j] if u[j] < u[j - 1] else u[j] - 1)
        xd = (xd + 0.5) / scale - 0.5
        if np.floor(xd) != xd or xd < 0 or xd > w - 1:
            continue
        yd = float(v[j] if v[j] < v[j - 1] else v[j - 1])
        yd = (yd + 0.5) / scale - 0.5
        yd = 0.0 if yd < 0 else float(h) if yd > h else yd
        bx.append(int(xd))
        by.append(int(np.ceil(yd)))
    a = sorted([bx[j] * h + by[j] for j in range(len(bx))] + [h * w])
    runs, previous = [], 0
    for value in a:
        runs.append(value - previous)
        previous = value
    merged = [runs[0]]
    j = 1
    while j < len(runs):
        if runs[j] > 0:
            merged.append(runs[j])
            j += 1
        else:
            j += 1
            if j < len(runs):
                merged[-1] += runs[j]
                j += 1
    flat = np.zeros(h * w, np.uint8)
    pos, bit = 0, 0
    for count in merged:
        flat[pos:pos + count] = bit
        pos += count
        bit = 1 - bit
    return flat.reshape(w, h).T  # RLE runs go down the columns


def _mask_in_box(polygons, box: np.ndarray, m: int) -> np.ndarray:
    f = np.float32
    w = max(box[2] - box[0], f(1))
    h = max(box[3] - box[1], f(1))
    mask = np.zeros((m, m), np.uint8)
    for poly in polygons:
        p = np.empty(len(poly), np.float32)
        p[0::2] = (poly[0::2] - box[0]) * f(m) / w
        p[1::2] = (poly[1::2] - box[1]) * f(m) / h
        mask |= poly2mask(p, m, m)
    return mask


def _offsets(value: LoDTensor, levels: int, slot: str) -> list[np.ndarray]:
    if len(value.offsets) < levels:
        raise KernelError(f"generate_mask_labels: {slot} must carry {levels} LoD level(s), "
                          f"got {len(value.offsets)}")
    return [np.asarray(o) for o in value.offsets[-levels:]]


def _one_image(attrs, info, classes, crowd, objects, rois, labels):
    """(mask rois, roi indices, mask targets) of one image; `objects`: each ground
    truth's polygons (flat float32 point lists)."""
    res, n_cls = attrs["resolution"], attrs["num_classes"]
    scale = np.float32(info[2])
    kept = [objects[i] for i in range(len(classes)) if classes[i] > 0 and crowd[i] == 0]
    fg = np.flatnonzero(labels > 0)
    dim = res * res
    if len(fg):
        if not kept:
            raise KernelError("generate_mask_labels: an image has foreground RoIs but no "
                              "non-crowd ground truth with a segmentation (Paddle reads "
                              "past its list)")
        bounds = np.empty((len(kept), 4), np.float32)
        for g, polys in enumerate(kept):
            pts = np.concatenate(polys)
            xs, ys = pts[0::2], pts[1::2]
            bounds[g] = [min(_FLT_MAX, xs.min()), min(_FLT_MAX, ys.min()),
                         max(_FLT_MIN, xs.max()), max(_FLT_MIN, ys.max())]
        boxes = (rois[fg] / scale).astype(np.float32)
        overlaps = pairwise_iou(boxes, bounds, normalized=False)
        targets = np.full((len(fg), n_cls * dim), -1, np.int32)
        for i in range(len(fg)):
            row = overlaps[i]
            best = int(np.argmax(row)) if (row > _FLT_MIN).any() else 0
            mask = _mask_in_box(kept[best], boxes[i], res)
            cls = int(labels[fg[i]])
            targets[i, cls * dim:(cls + 1) * dim] = mask.reshape(-1)
        return (boxes * scale).astype(np.float32), fg.astype(np.int32), targets
    bg = np.flatnonzero(labels == 0)
    if not len(bg):
        raise KernelError("generate_mask_labels: an image's RoIs are neither foreground nor "
                          "background (labels < 0); Paddle writes an undefined row there")
    box = (rois[:1] / scale).astype(np.float32) * scale  # the image's first RoI, as Paddle
    return box.astype(np.float32), bg[:1].astype(np.int32), np.full((1, n_cls * dim), -1,
                                                                      np.int32)


@generate_mask_labels.kernel(dtypes=(np.dtype(np.float32),), lod=True)
def generate_mask_labels_kernel(attrs, im_info, gt_classes, is_crowd, gt_segms, rois,
                                labels):
    info = im_info.numpy() if isinstance(im_info, LoDTensor) else np.asarray(im_info)
    cls_off, = _offsets(gt_classes, 1, "GtClasses")
    crowd_off, = _offsets(is_crowd, 1, "IsCrowd")
    roi_off, = _offsets(rois, 1, "Rois")
    label_off, = _offsets(labels, 1, "LabelsInt32")
    img_off, obj_off, poly_off = _offsets(gt_segms, 3, "GtSegms")
    n = len(cls_off) - 1
    if len(img_off) - 1 != n:
        raise KernelError(f"generate_mask_labels: GtSegms names {len(img_off) - 1} images, "
                          f"GtClasses {n}")
    points = gt_segms.numpy().astype(np.float32).reshape(-1)
    cls, crowd = gt_classes.numpy().reshape(-1), is_crowd.numpy().reshape(-1)
    boxes, lab = rois.numpy().astype(np.float32), labels.numpy().reshape(-1)
    parts, lod = [], [0]
    for i in range(n):
        if roi_off[i] == roi_off[i + 1]:
            lod.append(lod[-1])
            continue
        objects = [[points[2 * poly_off[p]:2 * poly_off[p + 1]]
                    for p in range(obj_off[o], obj_off[o + 1])]
                   for o in range(img_off[i], img_off[i + 1])]
        got = _one_image(attrs, info[i], cls[cls_off[i]:cls_off[i + 1]],
                         crowd[crowd_off[i]:crowd_off[i + 1]], objects,
                         boxes[roi_off[i]:roi_off[i + 1]], lab[label_off[i]:label_off[i + 1]])
        parts.append(got)
        lod.append(lod[-1] + len(got[0]))
    offsets = (np.asarray(lod, np.int64),)
    dim = attrs["num_classes"] * attrs["resolution"] ** 2

    def stacked(k, width, dtype):
        return np.concatenate([p[k].reshape(-1, width) for p in parts]).astype(dtype) \
            if parts else np.zeros((0, width), dtype)

    return (LoDTensor.unchecked(stacked(0, 4, np.float32), offsets),
            LoDTensor.unchecked(stacked(1, 1, np.int32), offsets),
            LoDTensor.unchecked(stacked(2, dim, np.int32), offsets))


generate_mask_labels.grad_maker(lambda g: [])
