"""Paddle's sampler draws: std::minstd_rand and libstdc++'s uniform float."""

import numpy as np

from paddle_ir.ops.detection.reservoir_sampling import minstd_state, reservoir_sample, uniform_draws


def test_minstd_rand_matches_the_cpp_standard():
    # [rand.predef]: the 10000th invocation of a default-constructed minstd_rand (seed 1)
    # produces 399268537; a draw is (x - 1) / 2^31 in float, so x is recoverable.
    draws = uniform_draws(1, 10000)
    x = pow(48271, 10000, 2**31 - 1)
    assert x == 399268537
    assert draws[-1] == np.float32(np.float32(x - 1) / np.float32(2**31))


def test_seed_like_cpp_engine_seed():
    assert minstd_state(0) == 1  # seed(0) would stick at 0: libstdc++ makes it 1
    assert minstd_state(-1) == (2**32 - 1) % (2**31 - 1)  # an int seed taken unsigned
    assert minstd_state(2**31 - 1) == 1


def test_reservoir_sample_against_the_loop():
    inds, num, seed = list(range(10, 30)), 6, 12345
    state = seed
    want = list(inds)
    for i in range(num, len(inds)):
        state = state * 48271 % (2**31 - 1)
        u = np.float32(state - 1) / np.float32(2**31)
        pick = int(np.floor(u * np.float32(i)))
        if pick < num:
            want[pick], want[i] = want[i], want[pick]
    assert reservoir_sample(inds, num, seed) == want[:num]
    assert reservoir_sample(inds, num, None) == inds[:num]
    assert reservoir_sample(inds, 50, seed) == inds
    assert reservoir_sample(inds, -3, seed) == inds  # Paddle casts num to size_t
