"""What the quantize ops share: Paddle's scale inverse, its two roundings, the abs-max
scales (whole tensor or per channel) and the moving-average scale update.

Arithmetic stays in X's dtype and in Paddle's order (bin_cnt * (1 / s) first, then times
x), so that a value on a rounding boundary lands where Paddle's float32 kernel puts it.
"""

from __future__ import annotations

import numpy as np

# round_type: 0 rounds half to even after scaling and clamps to [-bin_cnt - 1, bin_cnt];
# 1 clips x to [-s, s] first and rounds half away from zero (Paddle 1.x's std::round).
ROUND_TYPES = (0, 1)


def bin_count(bit_length: int) -> int:
    """The largest quantized magnitude: 2^(bits - 1) - 1 (127 for 8 bits)."""
    return 2 ** (bit_length - 1) - 1


def inverse(scale: np.ndarray) -> np.ndarray:
    """1 / s, with Paddle's guard: a scale at or below 1e-30 divides 1 by s + 1e-6."""
    scale = np.asarray(scale)
    one = np.ones((), scale.dtype)
    tiny = scale <= scale.dtype.type(1e-30)
    return np.where(tiny, one / (scale + scale.dtype.type(1e-6)), one / np.where(tiny, one, scale))


def round_half_away(v: np.ndarray) -> np.ndarray:
    """std::round: to nearest, halves away from zero (np.round takes them to even)."""
    r = np.round(v)
    trunc = np.trunc(v)
    tie = np.abs(v - trunc) == 0.5
    return np.where(tie, trunc + np.sign(v), r).astype(v.dtype, copy=False)


def quantize(x: np.ndarray, scale: np.ndarray, bin_cnt: int, round_type: int) -> np.ndarray:
    """x on the integer grid of `scale` (broadcast against x): the values Paddle's
    ClipAndFakeQuant writes (floats holding integers)."""
    dtype = x.dtype.type
    scale = np.asarray(scale, dtype=x.dtype)
    factor = dtype(bin_cnt) * inverse(scale)
    if round_type == 0:
        return np.clip(np.rint(factor * x), dtype(-bin_cnt - 1), dtype(bin_cnt))
    return round_half_away(factor * np.clip(x, -scale, scale))


def channel_shape(ndim: int, axis: int) -> tuple[int, ...]:
    """The shape that broadcasts one value per channel of `axis` over an ndim array."""
    shape = [1] * ndim
    shape[axis] = -1
    return tuple(shape)


def abs_max(x: np.ndarray) -> np.ndarray:
    """[max |x|] (0 for an empty x) as a one-element array of x's dtype."""
    value = np.abs(x).max() if x.size else 0
    return np.array([value], dtype=x.dtype)


def channel_abs_max(x: np.ndarray, axis: int) -> np.ndarray:
    """max |x| per channel of `axis`: [x.shape[axis]]."""
    others = tuple(d for d in range(x.ndim) if d != axis)
    if x.size == 0:
        return np.zeros(x.shape[axis], x.dtype)
    return np.abs(x).max(axis=others).astype(x.dtype, copy=False)


def moving_average(x: np.ndarray, accum, state, rate: float):
    """Paddle's moving average of the abs-max: state' = rate state + 1, accum' = rate accum
    + max|x|, scale = accum' / state'. Returns (scale, state', accum'), each [1]."""
    dtype = x.dtype.type
    rate = dtype(rate)
    state = rate * np.asarray(state, x.dtype).reshape(-1)[:1] + dtype(1)
    accum = rate * np.asarray(accum, x.dtype).reshape(-1)[:1] + abs_max(x)
    return (accum / state).astype(x.dtype), state.astype(x.dtype), accum.astype(x.dtype)


def check_bits(ctx, name: str = "bit_length") -> None:
    bits = ctx.attr(name)
    values = list(bits) if isinstance(bits, (list, tuple)) else [bits]
    ctx.enforce(all(2 <= b <= 16 for b in values),
                lambda: f"{name} must be between 2 and 16, got {bits}")


def check_round_type(ctx) -> None:
    ctx.enforce(ctx.attr("round_type") in ROUND_TYPES,
                lambda: f"round_type must be 0 (half to even) or 1 (half away from zero), got "
                f"{ctx.attr('round_type')}")


def check_scalar(ctx, slot: str) -> None:
    """A one-element scale (or state) input: [1] or any shape of one element."""
    shape = ctx.input_shape(slot)
    known = all(d >= 0 for d in shape)
    ctx.enforce(not known or int(np.prod(shape)) == 1,
                lambda: f"{slot} must hold one value, got shape {list(shape)}")
