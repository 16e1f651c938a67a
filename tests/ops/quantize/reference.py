"""Element-by-element references of Paddle's quantization, written from its definition (not
from ops/quantize): float32 scalars, Python's own rounding."""

from __future__ import annotations

import math

import numpy as np


def bins(bits):
    return 2 ** (bits - 1) - 1


def inv(s):
    s = np.float32(s)
    return np.float32(1) / (s + np.float32(1e-6)) if s <= 1e-30 else np.float32(1) / s


def quant_value(x, s, bits, round_type):
    b = bins(bits)
    factor = np.float32(b) * inv(s)
    if round_type == 0:
        v = float(factor * np.float32(x))
        q = round(v)  # Python rounds halves to even
        return float(min(max(q, -b - 1), b))
    x = min(max(float(x), -float(s)), float(s))
    v = float(factor * np.float32(x))
    return math.copysign(math.floor(abs(v) + 0.5), v)


def quant_array(x, s, bits, round_type):
    """s: a scalar, or an array broadcast against x."""
    s = np.broadcast_to(np.asarray(s, np.float32), x.shape)
    out = np.array([quant_value(a, b, bits, round_type)
                    for a, b in zip(x.ravel(), s.ravel(), strict=True)], np.float32)
    return out.reshape(x.shape)
