"""anchor_generator against anchors written out cell by cell."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_op


def _reference(h, w, sizes, ratios, stride, offset):
    out = []
    for i in range(h):
        for j in range(w):
            cx = j * stride[0] + offset * (stride[0] - 1)
            cy = i * stride[1] + offset * (stride[1] - 1)
            for r in ratios:
                for s in sizes:
                    bw = math.floor(math.sqrt(stride[0] * stride[1] / r) + 0.5)
                    bh = math.floor(bw * r + 0.5)
                    aw, ah = s / stride[0] * bw, s / stride[1] * bh
                    out.append([cx - (aw - 1) / 2, cy - (ah - 1) / 2,
                                cx + (aw - 1) / 2, cy + (ah - 1) / 2])
    return np.array(out, np.float32).reshape(h, w, len(sizes) * len(ratios), 4)


@pytest.mark.parametrize("stride,offset", [([16.0, 16.0], 0.5), ([8.0, 12.0], 0.0)])
def test_anchor_generator(stride, offset):
    attrs = {"anchor_sizes": [32.0, 64.0], "aspect_ratios": [0.5, 1.0, 2.0],
             "variances": [0.1, 0.1, 0.2, 0.2], "stride": stride, "offset": offset}
    want = _reference(3, 4, [32.0, 64.0], [0.5, 1.0, 2.0], stride, offset)
    check_op("anchor_generator", {"Input": np.zeros((1, 2, 3, 4), np.float32)}, attrs,
             {"Anchors": want,
              "Variances": np.broadcast_to(np.float32([0.1, 0.1, 0.2, 0.2]), want.shape)},
             atol=1e-4)


def test_errors():
    with pytest.raises(ProgramError, match="stride must be 2 positive values"):
        check_op("anchor_generator", {"Input": np.zeros((1, 2, 3, 4), np.float32)},
                 {"stride": [16.0]})
