"""What the proposal ops share with Paddle's detection/nms_util.h: the greedy NMS of one
set of boxes (best score first, eta shrinking the threshold) and box areas."""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.detection.multiclass_nms import iou_matrix


def box_area(boxes: np.ndarray, pixel_offset: bool) -> np.ndarray:
    """(w + 1)(h + 1) with pixel_offset, else w h; 0 for an inverted box."""
    w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    extra = 1 if pixel_offset else 0
    return np.where((w < 0) | (h < 0), 0, (w + extra) * (h + extra)).astype(boxes.dtype)


def greedy_nms(boxes: np.ndarray, scores: np.ndarray, threshold: float, eta: float,
               normalized: bool, limit: int = -1) -> np.ndarray:
    """Indices of the kept boxes, best first (ties: the later index first, as Paddle's
    stable ascending sort read from its end). A box is kept when its IoU with every box
    kept before it is <= the threshold of that moment; with eta < 1 the threshold shrinks
    by eta after each kept box while it is above 0.5. `limit` > 0 stops after that many."""
    order = np.argsort(scores, kind="stable")[::-1]
    kept: list[int] = []
    for idx in order:  # each step compares one box with the kept ones, vectorised
        if kept:
            iou = iou_matrix(boxes[idx:idx + 1], boxes[kept], normalized)[0]
            if (iou > threshold).any():
                continue
        kept.append(int(idx))
        if 0 < limit <= len(kept):
            break
        if eta < 1 and threshold > 0.5:
            threshold *= eta
    return np.asarray(kept, np.int64)
