"""What the NMS tests compute box by box, written here once: the IoU of two boxes as
Paddle's JaccardOverlap defines it, and random detections to run on."""

import numpy as np


def iou(a, b, normalized: bool) -> float:
    """IoU of boxes [x1, y1, x2, y2]; unnormalized sizes count x2 - x1 + 1."""
    e = 0 if normalized else 1
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    inter = (min(a[2], b[2]) - max(a[0], b[0]) + e) * (min(a[3], b[3]) - max(a[1], b[1]) + e)
    area = lambda t: (t[2] - t[0] + e) * (t[3] - t[1] + e)  # noqa: E731
    return inter / (area(a) + area(b) - inter)


def detections(rng, n: int, m: int, c: int):
    """BBoxes [n, m, 4] (pixel boxes 4-12 wide) and Scores [n, c, m] in [0, 1)."""
    low = rng.uniform(0, 20, (n, m, 2))
    boxes = np.concatenate([low, low + rng.uniform(4, 12, (n, m, 2))], axis=-1)
    return boxes.astype(np.float32), rng.uniform(0, 1, (n, c, m)).astype(np.float32)


def candidates(scores, attrs) -> list[int]:
    """One class's boxes scoring above score_threshold, best first (ties: lower index
    first), at most nms_top_k of them."""
    found = sorted((i for i in range(len(scores)) if scores[i] > attrs["score_threshold"]),
                   key=lambda i: (-scores[i], i))
    return found[:attrs["nms_top_k"]] if attrs["nms_top_k"] > -1 else found
