"""pad, pad2d, pad_constant_like and pad3d (ops/tensor/pad.py, pad3d.py)."""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError, PaddleIRError, ProgramError, ResourceLimitError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(19)


def test_pad():
    x = rng.uniform(-1, 1, (2, 3))
    want = np.full((2 + 1 + 0, 3 + 2 + 1), 0.5)
    want[1:3, 2:5] = x
    check_op("pad", {"X": x}, {"paddings": [1, 0, 2, 1], "pad_value": 0.5}, {"Out": want})
    check_grad("pad", {"X": x}, {"paddings": [1, 0, 2, 1]})
    with pytest.raises(ProgramError, match="paddings must hold 2 \\* rank = 4 numbers"):
        check_op("pad", {"X": x}, {"paddings": [1, 0]})


def test_pad_constant_like():
    x = np.zeros((3, 4))
    y = rng.uniform(-1, 1, (2, 4))
    want = np.full((3, 4), -1.0)
    want[:2] = y
    check_op("pad_constant_like", {"X": x, "Y": y}, {"pad_value": -1.0}, {"Out": want})
    check_grad("pad_constant_like", {"X": x, "Y": y}, {}, wrt=("Y",))


def _reflect(i, n):
    while i < 0 or i >= n:
        i = -i if i < 0 else 2 * (n - 1) - i
    return i


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_pad2d(mode, fmt):
    x = rng.uniform(-1, 1, (1, 2, 3, 4) if fmt == "NCHW" else (1, 3, 4, 2))
    top, bottom, left, right = 1, 2, 2, 1
    xc = x if fmt == "NCHW" else x.transpose(0, 3, 1, 2)
    h, w = xc.shape[2:]
    want = np.full((1, 2, h + 3, w + 3), 0.25)
    for i in range(h + 3):
        for j in range(w + 3):
            si, sj = i - top, j - left
            if mode == "reflect":
                si, sj = _reflect(si, h), _reflect(sj, w)
            elif mode == "edge":
                si, sj = min(max(si, 0), h - 1), min(max(sj, 0), w - 1)
            elif not (0 <= si < h and 0 <= sj < w):
                continue
            want[:, :, i, j] = xc[:, :, si, sj]
    if fmt == "NHWC":
        want = want.transpose(0, 2, 3, 1)
    attrs = {"paddings": [top, bottom, left, right], "mode": mode, "pad_value": 0.25,
             "data_format": fmt}
    check_op("pad2d", {"X": x}, attrs, {"Out": want})
    check_grad("pad2d", {"X": x}, attrs)


# --- pad3d ------------------------------------------------------------------------------

def _pad_reference(x, pads, mode, value, fmt):
    """Each output position's source index, dim by dim, from the mode's definition."""
    axes = (2, 3, 4) if fmt == "NCDHW" else (1, 2, 3)
    widths = {axes[0]: pads[4:6], axes[1]: pads[2:4], axes[2]: pads[0:2]}
    out_shape = [n + sum(widths.get(a, (0, 0))) for a, n in enumerate(x.shape)]
    out = np.full(out_shape, value, dtype=x.dtype)
    for pos in np.ndindex(*out_shape):
        src = []
        for a, p in enumerate(pos):
            before = widths.get(a, (0, 0))[0]
            n, i = x.shape[a], p - before
            if 0 <= i < n:
                src.append(i)
            elif mode == "constant":
                src = None
                break
            elif mode == "reflect":
                src.append(-i if i < 0 else 2 * (n - 1) - i)
            elif mode == "replicate":
                src.append(min(max(i, 0), n - 1))
            else:
                src.append(i % n)
        if src is not None:
            out[pos] = x[tuple(src)]
    return out


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("fmt", ["NCDHW", "NDHWC"])
def test_pad3d(mode, fmt):
    x = rng.uniform(-1, 1, (2, 2, 3, 4, 3)).astype("float32")
    pads = [2, 1, 0, 2, 1, 1]
    attrs = {"paddings": pads, "mode": mode, "value": 0.5, "data_format": fmt}
    check_op("pad3d", {"X": x}, attrs, {"Out": _pad_reference(x, pads, mode, 0.5, fmt)})
    check_grad("pad3d", {"X": rng.uniform(-1, 1, (1, 3, 3, 3, 3))}, attrs)


def test_pad3d_paddings_tensor_and_errors():
    x = rng.uniform(-1, 1, (1, 1, 2, 3, 4)).astype("float32")
    pads = np.array([1, 0, 0, 1, 0, 0], np.int32)
    check_op("pad3d", {"X": x, "Paddings": pads}, {"mode": "replicate"},
             {"Out": _pad_reference(x, list(pads), "replicate", 0, "NCDHW")})
    with pytest.raises(ProgramError, match="mode must be one of constant, reflect"):
        check_op("pad3d", {"X": x}, {"paddings": [0] * 6, "mode": "wrap"})
    with pytest.raises(ProgramError, match="X must be 5-D"):
        check_op("pad3d", {"X": x[0]}, {"paddings": [0] * 6})
    with pytest.raises(ProgramError, match="paddings must be 6 values >= 0"):
        check_op("pad3d", {"X": x}, {"paddings": [1, 1]})
    with pytest.raises(ProgramError, match="reflect padding \\(4, 0\\) must be smaller"):
        check_op("pad3d", {"X": x}, {"paddings": [4, 0, 0, 0, 0, 0], "mode": "reflect"})


F = np.ones((2, 3))


ERROR_CASES = [
    ("pad", {"X": F}, {"paddings": [0, 0, -1, 0]}, "paddings must be >= 0"),
    ("pad_constant_like", {"X": F, "Y": np.ones((3, 3))}, {},
     "Y must have X's rank and no dim larger than X's"),
    ("pad2d", {"X": np.ones((1, 1, 2, 2))}, {"mode": "wrap"},
     "mode must be constant, reflect or edge"),
    ("pad2d", {"X": F}, {}, r"X must be 4-D, got shape \[2, 3\]"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)


# --- pad2d's Paddings tensor (ops/tensor_attrs.py) -------------------------------------------

@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad2d_takes_its_paddings_from_a_tensor(mode):
    x = np.random.RandomState(6).rand(1, 2, 3, 4)
    pads = np.array([1, 0, 2, 1], np.int32)
    attrs = {"paddings": [0, 0, 0, 0], "mode": mode}
    want = np.pad(x, [(0, 0), (0, 0), (1, 0), (2, 1)],
                  **({"mode": mode} if mode != "constant" else {}))
    check_op("pad2d", {"X": x, "Paddings": pads}, attrs, {"Out": want})
    check_grad("pad2d", {"X": x, "Paddings": pads}, attrs)


def test_pad2d_paddings_from_a_tensor_are_checked_when_it_runs():
    x = np.zeros((1, 1, 2, 2), np.float32)
    with pytest.raises(KernelError, match=r"pad2d: paddings must be 4 numbers >= 0"):
        check_op("pad2d", {"X": x, "Paddings": np.array([1, -1, 0, 0], np.int32)})
    with pytest.raises(ResourceLimitError, match="pad2d would allocate"):
        check_op("pad2d", {"X": x, "Paddings": np.array([2 ** 20, 0, 2 ** 20, 0], np.int64)})
