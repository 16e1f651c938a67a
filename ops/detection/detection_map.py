"""detection_map: mean average precision of detections, accumulated over batches.

DetectRes [M, 6] (label, score, x1, y1, x2, y2) and Label [G, 6] (label, difficult, x1,
y1, x2, y2: the column order Paddle's kernel reads, whatever its doc says) or [G, 5]
(label, x1, y1, x2, y2), each with one LoD level (image i's rows). With HasState
nonzero, PosCount int32 [class_num, 1], TruePos and FalsePos ([*, 2] (score, flag),
one LoD level: one range per class) are the state so far. As Paddle's CPU kernel:

- each ground-truth class of an image adds its boxes (not the difficult ones unless
  evaluate_difficult) to the class' positive count;
- each detection, best first per image and class, is clipped to [0, 1] and matched to
  the class' ground truth of the highest IoU (normalized, no + 1); IoU >
  overlap_threshold and the box unmatched so far makes it a true positive, matched
  already a false positive, a difficult box (not evaluate_difficult) neither; no
  match, or no ground truth of its class, a false positive;
- per class with positives, the (score, flag) lists sorted by score (stable, as float)
  give precision and recall; AP is `11point` (VOC2007) or `integral`, in Paddle's
  arithmetic (integral sums in float32); MAP the mean over those classes. Paddle skips a
  class whose *positive count* equals background_label (it compares the count, not the
  label; kept, as Paddle's results depend on it).

Outputs: MAP [1]; AccumPosCount int32 [class_num, 1]; AccumTruePos / AccumFalsePos
[*, 2] with one LoD range per class 0..class_num-1 (other labels are dropped there).
Ties between equal scores of one class: Paddle's std::sort leaves their order open;
here the earlier row goes first. No gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

AP_TYPES = ("integral", "11point")

detection_map = register_op(
    "detection_map",
    inputs=[In("DetectRes", "[M, 6], 1 LoD level: (label, score, x1, y1, x2, y2)"),
            In("Label", "[G, 6] (label, difficult, box) or [G, 5], 1 LoD level"),
            In("HasState", "int32 [1]: nonzero to read the state inputs", dispensable=True),
            In("PosCount", "int32 [class_num, 1]: positives so far", dispensable=True),
            In("TruePos", "[*, 2], 1 LoD level: (score, flag) per class", dispensable=True),
            In("FalsePos", "[*, 2], 1 LoD level: (score, flag) per class", dispensable=True)],
    outputs=[Out("AccumPosCount", "int32 [class_num, 1]"),
             Out("AccumTruePos", "[*, 2], 1 LoD level"),
             Out("AccumFalsePos", "[*, 2], 1 LoD level"),
             Out("MAP", "[1]")],
    attrs=[Attr("class_num", "int", doc="the number of classes"),
           Attr("background_label", "int", 0, "see the note on Paddle's comparison"),
           Attr("overlap_threshold", "float", 0.5, "IoU above it matches"),
           Attr("evaluate_difficult", "bool", True, "count difficult ground truths"),
           Attr("ap_type", "string", "integral", "integral or 11point")],
    key_inputs=["DetectRes"],
    doc=__doc__,
)


@detection_map.infer_shape
def _(ctx):
    det, label = ctx.input_shape("DetectRes"), ctx.input_shape("Label")
    ctx.enforce(len(det) == 2 and det[1] in (-1, 6),
                lambda: f"DetectRes must be [M, 6], got {shape_str(det)}")
    ctx.enforce(len(label) == 2 and label[1] in (-1, 5, 6),
                lambda: f"Label must be [G, 6] or [G, 5], got {shape_str(label)}")
    for slot in ("DetectRes", "Label"):
        ctx.enforce(ctx.input_lod_level(slot) == 1,
                    lambda: f"{slot} must have 1 LoD level (each image's rows), got "
                    f"{ctx.input_lod_level(slot)}")
    dtype = ctx.input_dtype("DetectRes")
    ctx.enforce(np.dtype(ctx.input_dtype("Label")) == np.dtype(dtype),
                lambda: f"Label must have DetectRes' dtype {dtype}, got {ctx.input_dtype('Label')}")
    if ctx.has_input("PosCount"):
        ctx.enforce(ctx.has_input("TruePos") and ctx.has_input("FalsePos"),
                    "TruePos and FalsePos must be given with PosCount")
    ctx.enforce(ctx.attr("ap_type") in AP_TYPES, lambda:
                f"ap_type must be one of {', '.join(AP_TYPES)}, got {ctx.attr('ap_type')!r}")
    ctx.enforce(ctx.attr("class_num") > 0,
                lambda: f"class_num must be > 0, got {ctx.attr('class_num')}")
    ctx.set_output("AccumPosCount", [ctx.attr("class_num"), 1], np.int32)
    for slot in ("AccumTruePos", "AccumFalsePos"):
        ctx.set_output(slot, [-1, 2], dtype)
        ctx.set_output_lod_level(slot, 1)
    ctx.set_output("MAP", [1], dtype)


def _iou(a, b):
    """Paddle's normalized JaccardOverlap of two (x1, y1, x2, y2) rows."""
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return a.dtype.type(0)
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _per_image(rows: np.ndarray, offsets, n: int):
    """{label: [row indices]} of image n, labels as C++'s int() truncates them."""
    by_label: dict[int, list[int]] = {}
    for r in range(offsets[n], offsets[n + 1]):
        by_label.setdefault(int(rows[r, 0]), []).append(r)
    return by_label


def _match(det, label, det_off, gt_off, attrs, pos_count, tp, fp):
    six = label.shape[1] == 6
    box_cols = slice(2, 6) if six else slice(1, 5)
    difficult = (np.abs(label[:, 1]) >= 1e-6) if six else np.zeros(label.shape[0], bool)
    threshold = np.float32(attrs["overlap_threshold"])
    evaluate_difficult = attrs["evaluate_difficult"]
    for n in range(gt_off.size - 1):
        for c, rows in _per_image(label, gt_off, n).items():
            count = len(rows) if evaluate_difficult else int((~difficult[rows]).sum())
            if count:
                pos_count[c] = pos_count.get(c, 0) + count
    for n in range(gt_off.size - 1):
        gts = _per_image(label, gt_off, n)
        for c, rows in sorted(_per_image(det, det_off, n).items()):
            scores = det[rows, 1]
            if c not in gts:
                tp.setdefault(c, []).extend((s, 0) for s in scores)
                fp.setdefault(c, []).extend((s, 1) for s in scores)
                continue
            truth = gts[c]
            visited = np.zeros(len(truth), bool)
            for r in np.asarray(rows)[np.argsort(-det[rows, 1].astype(np.float32), kind="stable")]:
                box = np.clip(det[r, 2:6], 0, 1)
                overlaps = [_iou(box, label[g, box_cols]) for g in truth]
                best = int(np.argmax(overlaps))  # the first of the highest
                score = det[r, 1]
                if overlaps[best] > threshold:
                    if evaluate_difficult or not difficult[truth[best]]:
                        hit = not visited[best]
                        visited[best] = True
                        tp.setdefault(c, []).append((score, int(hit)))
                        fp.setdefault(c, []).append((score, int(not hit)))
                else:
                    tp.setdefault(c, []).append((score, 0))
                    fp.setdefault(c, []).append((score, 1))


def _cumulative(pairs) -> np.ndarray:
    scores = np.array([p[0] for p in pairs], np.float32)
    flags = np.array([p[1] for p in pairs], np.int64)
    return np.cumsum(flags[np.argsort(-scores, kind="stable")])


def _mean_ap(attrs, pos_count, tp, fp, dtype):
    t = np.dtype(dtype).type
    total, count = t(0), 0
    for c in sorted(pos_count):
        positives = pos_count[c]
        if positives == attrs["background_label"]:
            continue
        if c not in tp:
            count += 1
            continue
        tp_sum, fp_sum = _cumulative(tp[c]), _cumulative(fp[c])
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = tp_sum.astype(dtype) / (tp_sum + fp_sum).astype(dtype)
            recall = tp_sum.astype(dtype) / t(positives)
        if attrs["ap_type"] == "11point":
            best = [t(0)] * 11
            start = len(recall) - 1
            for j in range(10, -1, -1):
                for i in range(start, -1, -1):
                    if recall[i] < j / 10.0:
                        start = i
                        if j > 0:
                            best[j - 1] = best[j]
                        break
                    if best[j] < precision[i]:
                        best[j] = precision[i]
            for j in range(10, -1, -1):
                total = t(total + best[j] / t(11))
        else:
            ap, prev = np.float32(0), np.float32(0)
            for i in range(len(recall)):
                step = abs(recall[i] - t(prev))
                if step > 1e-6:
                    ap = np.float32(ap + precision[i] * step)
                prev = np.float32(recall[i])
            total = t(total + t(ap))
        count += 1
    return t(total / t(count)) if count else total


def _state(pos_count_t, true_pos, false_pos, class_num):
    counts = np.asarray(pos_count_t.numpy()).reshape(-1)
    if counts.size < class_num:
        raise KernelError(f"detection_map: PosCount has {counts.size} values for "
                          f"class_num {class_num}")
    pos_count = {c: int(counts[c]) for c in range(class_num)}
    lists = []
    for name, tensor in (("TruePos", true_pos), ("FalsePos", false_pos)):
        data, off = tensor.numpy().reshape(-1, 2), tensor.offsets[-1] if tensor.lod_level \
            else None
        if off is None or off[-1] != data.shape[0]:
            raise KernelError(f"detection_map: {name} needs 1 LoD level covering its "
                              f"{data.shape[0]} rows (one range per class)")
        lists.append({c: [(data[r, 0], int(data[r, 1])) for r in range(off[c], off[c + 1])]
                      for c in range(off.size - 1)})
    return pos_count, lists[0], lists[1]


@detection_map.kernel(dtypes=FLOATS, lod=True)
def detection_map_kernel(attrs, detect, label, has_state, pos_count_t, true_pos, false_pos):
    det, gt = detect.numpy(), label.numpy()
    det_off, gt_off = detect.offsets[-1], label.offsets[-1]
    if det_off.size != gt_off.size:
        raise KernelError(f"detection_map: DetectRes' LoD has {det_off.size - 1} images, "
                          f"Label's {gt_off.size - 1}; they must match")
    class_num = attrs["class_num"]
    pos_count, tp, fp = {}, {}, {}
    state = has_state is not None and int(np.asarray(has_state.numpy()).reshape(-1)[0]) != 0
    if pos_count_t is not None and state:
        pos_count, tp, fp = _state(pos_count_t, true_pos, false_pos, class_num)
    _match(det, gt, det_off, gt_off, attrs, pos_count, tp, fp)
    mean_ap = _mean_ap(attrs, pos_count, tp, fp, det.dtype)
    counts = np.array([[pos_count.get(c, 0)] for c in range(class_num)], np.int32)
    outs = []
    for lists in (tp, fp):
        rows = [lists.get(c, []) for c in range(class_num)]
        off = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
        data = np.array([p for r in rows for p in r], det.dtype).reshape(-1, 2)
        outs.append(LoDTensor.unchecked(data, (off,)))
    return (LoDTensor.unchecked(counts), outs[0], outs[1],
            LoDTensor.unchecked(np.array([mean_ap], det.dtype)))
