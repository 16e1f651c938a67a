"""A convolution's per-channel bias, added over the output's memory in its own order.

conv_math.forward returns NCHW-shaped views of three memory layouts: NHWC
([N*OH*OW, OC] rows of pixels), NCHW ([N*OC, OH*OW]) and, when there are fewer
pixels than filters, [OC, N, OH, OW]. `out += bias[:, None, None]` over the
NCHW view of NHWC memory runs an inner loop of OC values per pixel, which costs
more than the add itself (0.36 against 0.28 ms on MobileNet v2's [12544, 96]);
here the add runs over the memory as it lies: channels-last memory against a
tile of several pixels' channels, channel-major memory one channel row at a time.
The values are the same, so the bits are too.
"""

from __future__ import annotations

import functools

import numpy as np

# From this many values, the add runs over the memory (channels-last: as a tile of
# pixels); a smaller output loses more finding its order and making the tile.
_TILED_BIAS_VALUES = 1 << 16
# the longest tile, in values
_BIAS_TILE = 4096


def memory_order(out: np.ndarray):
    """(the memory of NCHW-shaped `out` as a C-contiguous 2-D array, whether its rows are
    pixels of OC channels); None when `out` is none of conv_math.forward's layouts."""
    n, oc = out.shape[:2]
    pixels_last = out.transpose(0, 2, 3, 1)
    if pixels_last.flags.c_contiguous:
        return pixels_last.reshape(-1, oc), True
    if out.flags.c_contiguous:
        return out.reshape(n * oc, -1), False
    channels_first = out.transpose(1, 0, 2, 3)
    if channels_first.flags.c_contiguous:
        return channels_first.reshape(oc, -1), False
    return None


def add_channel_bias(out: np.ndarray, bias: np.ndarray) -> None:
    """out += bias[None, :, None, None] in place, over out's memory in its own order."""
    bias = bias.astype(out.dtype, copy=False)
    order = memory_order(out) if out.size >= _TILED_BIAS_VALUES else None
    if order is None:  # small (finding the order costs more than it saves) or another layout
        out += bias[:, None, None]
        return
    mem, pixels_last = order
    if not pixels_last:
        # rows of one channel's pixels: [N*OC, HW] (or [OC, N*HW]) row r holds channel r % OC
        mem.reshape(-1, bias.shape[0], mem.shape[1])[...] += bias[:, None]
        return
    m, oc = mem.shape
    per = _tile_pixels(m, oc)
    if per == 1:
        mem += bias
    else:
        mem.reshape(m // per, per * oc)[...] += np.tile(bias, per)


@functools.lru_cache(maxsize=256)
def _tile_pixels(m: int, oc: int) -> int:
    """The most pixels, dividing m, whose channels fit in one _BIAS_TILE."""
    for per in range(max(1, _BIAS_TILE // oc), 0, -1):
        if m % per == 0:
            return per
    return 1
