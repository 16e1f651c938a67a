"""deformable_conv and deformable_conv_v1 against the sampling and convolution written tap by
tap, and all their gradients against central differences (the fixture `deformable` checks
them against Paddle)."""

import math

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(74)


def _bilinear(img, y, x):
    h, w = img.shape
    if not (-1 < y < h and -1 < x < w):
        return 0.0
    y0, x0 = math.floor(y), math.floor(x)
    total = 0.0
    for r, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for c, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= r < h and 0 <= c < w:
                total += wy * wx * img[r, c]
    return total


def _reference(x, offset, mask, weight, stride, pad, dil, groups, dg):
    n, c, h, w = x.shape
    m, cg, kh, kw = weight.shape
    ho, wo = offset.shape[2:]
    out = np.zeros((n, m, ho, wo))
    for b in range(n):
        for oc in range(m):
            gi = oc // (m // groups)
            for yo in range(ho):
                for xo in range(wo):
                    acc = 0.0
                    for ci in range(cg):
                        ch = gi * cg + ci
                        d = ch // (c // dg)
                        for i in range(kh):
                            for j in range(kw):
                                q = 2 * (d * kh * kw + i * kw + j)
                                y = yo * stride - pad + i * dil + offset[b, q, yo, xo]
                                xx = xo * stride - pad + j * dil + offset[b, q + 1, yo, xo]
                                v = _bilinear(x[b, ch], y, xx)
                                if mask is not None:
                                    v *= mask[b, q // 2, yo, xo]
                                acc += v * weight[oc, ci, i, j]
                    out[b, oc, yo, xo] = acc
    return out


def _case(groups=1, dg=1, stride=1, pad=1, dil=1):
    x = rng.randn(2, 4, 5, 6)
    weight = rng.randn(6, 4 // groups, 3, 3) * 0.5
    ho = (5 + 2 * pad - (dil * 2 + 1)) // stride + 1
    wo = (6 + 2 * pad - (dil * 2 + 1)) // stride + 1
    offset = rng.uniform(-1.7, 1.7, (2, 2 * dg * 9, ho, wo))
    mask = rng.uniform(0, 1, (2, dg * 9, ho, wo))
    attrs = {"strides": [stride, stride], "paddings": [pad, pad], "dilations": [dil, dil],
             "groups": groups, "deformable_groups": dg, "im2col_step": 1}
    return x, offset, mask, weight, attrs


@pytest.mark.parametrize("groups,dg,stride,pad,dil", [(1, 1, 1, 1, 1), (2, 2, 2, 0, 1),
                                                      (1, 4, 1, 2, 2)])
def test_deformable_conv(groups, dg, stride, pad, dil):
    x, offset, mask, weight, attrs = _case(groups, dg, stride, pad, dil)
    check_op("deformable_conv", {"Input": x, "Offset": offset, "Mask": mask, "Filter": weight},
             attrs, {"Output": _reference(x, offset, mask, weight, stride, pad, dil, groups,
                                          dg)}, atol=1e-9, rtol=1e-9)
    check_op("deformable_conv_v1", {"Input": x, "Offset": offset, "Filter": weight}, attrs,
             {"Output": _reference(x, offset, None, weight, stride, pad, dil, groups, dg)},
             atol=1e-9, rtol=1e-9)


@pytest.mark.parametrize("op_type", ["deformable_conv", "deformable_conv_v1"])
def test_deformable_conv_gradients(op_type):
    x, offset, mask, weight, attrs = _case(2, 2, 1, 1, 1)
    inputs = {"Input": x, "Offset": offset, "Filter": weight}
    wrt = ("Input", "Offset", "Filter")
    if op_type == "deformable_conv":
        inputs["Mask"] = mask
        wrt += ("Mask",)
    check_grad(op_type, inputs, attrs, wrt=wrt, out_slot="Output", atol=1e-5)


def test_errors():
    x, offset, mask, weight, attrs = _case()
    with pytest.raises(ProgramError, match=r"Offset must be \[2, 18, 5, 6\]"):
        check_op("deformable_conv", {"Input": x, "Offset": offset[:, :10], "Mask": mask,
                                     "Filter": weight}, attrs)
    with pytest.raises(ProgramError, match=r"Mask must be \[2, 9, 5, 6\]"):
        check_op("deformable_conv", {"Input": x, "Offset": offset, "Mask": mask[:, :4],
                                     "Filter": weight}, attrs)
    with pytest.raises(ProgramError, match="must split into groups"):
        check_op("deformable_conv_v1", {"Input": x, "Offset": offset, "Filter": weight},
                 dict(attrs, deformable_groups=3))
