"""Paddle's ReservoirSampling of detection targets, with its random draws.

Paddle's CPU kernels (rpn_target_assign, retinanet_target_assign's cousins,
generate_proposal_labels) draw from std::minstd_rand through
std::uniform_real_distribution<float>(0, 1), and pass the engine by value: every call of
the sampler starts from the same seeded state, so each call sees the same draws. Built
with libstdc++ (Paddle's Linux wheels), one draw is one engine step x and the float
(x - 1) / 2^31 (generate_canonical<float, 24> takes one 31-bit step; its divisor
2^31 - 2 rounds to 2^31 in float).
"""

from __future__ import annotations

import numpy as np

_MODULUS = 2**31 - 1
_MULTIPLIER = 48271


def minstd_state(seed: int) -> int:
    """std::minstd_rand::seed(seed) for an int seed: its unsigned value mod 2^31 - 1, 0 -> 1."""
    state = (seed % 2**32) % _MODULUS
    return state or 1


def uniform_draws(seed: int, count: int) -> np.ndarray:
    """The first `count` float32 draws of uniform_real_distribution<float>(0, 1)."""
    out = np.empty(count, np.float32)
    state = minstd_state(seed)
    for k in range(count):
        state = state * _MULTIPLIER % _MODULUS
        out[k] = np.float32(state - 1) / np.float32(2**31)
    return np.minimum(out, np.nextafter(np.float32(1), np.float32(0)))


def reservoir_sample(inds: list[int], num: int, seed: int | None) -> list[int]:
    """Paddle's ReservoirSampling: keep `num` of `inds` (seed None: the first num, no draws).

    A negative num is, as in Paddle (cast to size_t), larger than any list: all kept.
    """
    if num < 0 or len(inds) <= num:
        return list(inds)
    inds = list(inds)
    if seed is not None:
        draws = uniform_draws(seed, len(inds) - num)
        for i in range(num, len(inds)):
            pick = int(np.floor(draws[i - num] * np.float32(i)))
            if pick < num:
                inds[pick], inds[i] = inds[i], inds[pick]
    return inds[:num]
