"""density_prior_box against the priors written per cell, size, ratio and sub-cell."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op


def _reference(h, w, ih, iw, sizes, dens, ratios, offset, clip):
    sw, sh = iw / w, ih / h
    avg = int((sw + sh) * 0.5)
    out = []
    for i in range(h):
        for j in range(w):
            cx, cy = (j + offset) * sw, (i + offset) * sh
            cell = []
            for s, d in zip(sizes, dens, strict=True):
                shift = avg // d
                for r in ratios:
                    bw, bh = s * math.sqrt(r), s / math.sqrt(r)
                    for di in range(d):
                        for dj in range(d):
                            x = cx - avg / 2 + shift / 2 + dj * shift
                            y = cy - avg / 2 + shift / 2 + di * shift
                            box = [max((x - bw / 2) / iw, 0), max((y - bh / 2) / ih, 0),
                                   min((x + bw / 2) / iw, 1), min((y + bh / 2) / ih, 1)]
                            cell.append([min(max(v, 0), 1) for v in box] if clip else box)
            out.append(cell)
    return np.array(out, np.float32).reshape(h, w, -1, 4)


@pytest.mark.parametrize("clip,flatten", [(False, False), (True, True)])
def test_density_prior_box(clip, flatten):
    attrs = {"fixed_sizes": [8.0, 16.0], "densities": [2, 1], "fixed_ratios": [1.0, 2.0],
             "variances": [0.1, 0.1, 0.2, 0.2], "clip": clip, "offset": 0.5,
             "flatten_to_2d": flatten}
    want = _reference(3, 4, 24, 32, [8.0, 16.0], [2, 1], [1.0, 2.0], 0.5, clip)
    if flatten:
        want = want.reshape(-1, 4)
    check_op("density_prior_box", {"Input": np.zeros((1, 2, 3, 4), np.float32),
                                   "Image": np.zeros((1, 3, 24, 32), np.float32)}, attrs,
             {"Boxes": want,
              "Variances": np.broadcast_to(np.float32([0.1, 0.1, 0.2, 0.2]), want.shape)},
             atol=1e-6)


def test_errors():
    with pytest.raises(ProgramError, match="fixed_sizes and densities must pair up"):
        check_op("density_prior_box", {"Input": np.zeros((1, 2, 3, 4), np.float32),
                                       "Image": np.zeros((1, 3, 24, 32), np.float32)},
                 {"fixed_sizes": [8.0], "densities": [1, 2], "fixed_ratios": [1.0]})
