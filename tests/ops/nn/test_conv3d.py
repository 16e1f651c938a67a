"""conv3d, conv3d_transpose and pool3d against direct loops, with gradients."""

import itertools

import numpy as np
import pytest

from paddle_ir.core.errors import ProgramError
from tests.op_test import check_grad, check_op

rng = np.random.RandomState(73)


def _pairs(pad):
    """[pd, ph, pw] or [front, back, top, bottom, left, right] as (before, after) pairs."""
    return [(p, p) for p in pad] if len(pad) == 3 else list(zip(pad[::2], pad[1::2], strict=True))


def conv3d_ref(x, w, stride, pad, dil, groups):
    n, c, *sp = x.shape
    m, cg, *k = w.shape
    pad = _pairs(pad)
    xp = np.pad(x, [(0, 0), (0, 0)] + pad)
    outs = [(s + b + a - d * (kk - 1) - 1) // st + 1 for s, (b, a), d, kk, st in
            zip(sp, pad, dil, k, stride, strict=True)]
    out = np.zeros([n, m] + outs)
    mg = m // groups
    for b, oc in itertools.product(range(n), range(m)):
        g = oc // mg
        for o in itertools.product(*[range(v) for v in outs]):
            total = 0.0
            for ic in range(cg):
                for kk in itertools.product(*[range(v) for v in k]):
                    pos = [o[i] * stride[i] + kk[i] * dil[i] for i in range(3)]
                    total += w[oc, ic][kk] * xp[b, g * cg + ic][tuple(pos)]
            out[(b, oc) + o] = total
    return out


@pytest.mark.parametrize("stride, pad, dil, groups", [([1, 1, 1], [0, 0, 0], [1, 1, 1], 1),
                                                      ([2, 1, 1], [1, 0, 1], [1, 2, 1], 2)])
def test_conv3d(stride, pad, dil, groups):
    x = rng.uniform(-1, 1, (2, 2, 4, 5, 3))
    w = rng.uniform(-1, 1, (4, 2 // groups, 2, 2, 2))
    attrs = {"strides": stride, "paddings": pad, "dilations": dil, "groups": groups}
    check_op("conv3d", {"Input": x, "Filter": w}, attrs,
             {"Output": conv3d_ref(x, w, stride, pad, dil, groups)})
    check_grad("conv3d", {"Input": x[:1, :, :3, :3, :3], "Filter": w}, attrs,
               wrt=("Input", "Filter"), out_slot="Output")


def conv3d_transpose_ref(x, w, stride, pad, groups):
    n, c, *sp = x.shape
    _, mg, *k = w.shape
    full = [(s - 1) * st + kk for s, st, kk in zip(sp, stride, k, strict=True)]
    out = np.zeros([n, mg * groups] + full)
    cg = c // groups
    for b, ic in itertools.product(range(n), range(c)):
        g = ic // cg
        for i in itertools.product(*[range(v) for v in sp]):
            for oc in range(mg):
                for kk in itertools.product(*[range(v) for v in k]):
                    pos = tuple(i[d] * stride[d] + kk[d] for d in range(3))
                    out[(b, g * mg + oc) + pos] += x[(b, ic) + i] * w[(ic, oc) + kk]
    return out[(slice(None), slice(None)) + tuple(slice(b, f - a) for (b, a), f in
                                                    zip(_pairs(pad), full, strict=True))]


@pytest.mark.parametrize("stride, pad, groups", [([1, 1, 1], [0, 0, 0], 1),
                                                 ([2, 1, 2], [1, 0, 0], 2)])
def test_conv3d_transpose(stride, pad, groups):
    x = rng.uniform(-1, 1, (1, 2, 2, 3, 2))
    w = rng.uniform(-1, 1, (2, 3, 2, 2, 3))
    attrs = {"strides": stride, "paddings": pad, "groups": groups}
    check_op("conv3d_transpose", {"Input": x, "Filter": w}, attrs,
             {"Output": conv3d_transpose_ref(x, w, stride, pad, groups)})
    check_grad("conv3d_transpose", {"Input": x, "Filter": w}, attrs, wrt=("Input", "Filter"),
               out_slot="Output")


def pool_ref(x, kind, k, stride, pad, exclusive, ceil_mode=False):
    n, c, *sp = x.shape
    pairs = _pairs(pad)
    outs = [(s + b + a - kk + (st - 1 if ceil_mode else 0)) // st + 1
            for s, (b, a), kk, st in zip(sp, pairs, k, stride, strict=True)]
    pad = [b for b, _ in pairs]  # a window starts `before` ahead of the volume
    out = np.zeros([n, c] + outs)
    for b, ch in itertools.product(range(n), range(c)):
        for o in itertools.product(*[range(v) for v in outs]):
            vals = []
            for kk in itertools.product(*[range(v) for v in k]):
                pos = [o[i] * stride[i] + kk[i] - pad[i] for i in range(3)]
                if all(0 <= pos[i] < sp[i] for i in range(3)):
                    vals.append(x[(b, ch) + tuple(pos)])
            if kind == "max":
                out[(b, ch) + o] = max(vals)
            else:
                # non-exclusive: the window cut p0 past the far end (Paddle 2.x/3.x)
                whole = np.prod([min(o[i] * stride[i] - pad[i] + k[i], sp[i] + pad[i])
                                 - (o[i] * stride[i] - pad[i]) for i in range(3)])
                out[(b, ch) + o] = sum(vals) / (len(vals) if exclusive else whole)
    return out


@pytest.mark.parametrize("kind, exclusive", [("max", True), ("avg", True), ("avg", False)])
def test_pool3d(kind, exclusive):
    x = rng.uniform(-1, 1, (1, 2, 4, 3, 5))
    attrs = {"pooling_type": kind, "ksize": [2, 2, 3], "strides": [2, 1, 2],
             "paddings": [1, 0, 1], "exclusive": exclusive}
    check_op("pool3d", {"X": x}, attrs,
             {"Out": pool_ref(x, kind, [2, 2, 3], [2, 1, 2], [1, 0, 1], exclusive)})
    check_grad("pool3d", {"X": x}, attrs)
    check_op("pool3d", {"X": x}, {"pooling_type": kind, "global_pooling": True},
             {"Out": (x.max(axis=(2, 3, 4)) if kind == "max" else x.mean(axis=(2, 3, 4)))
              .reshape(1, 2, 1, 1, 1)})


def test_conv3d_layers_in_a_training_program():
    import paddle_ir as pir
    from paddle_ir import layers

    vol = rng.uniform(-1, 1, (2, 1, 4, 4, 4)).astype(np.float32)
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("vol", [-1, 1, 4, 4, 4])
        h = layers.conv3d(x, 3, 3, padding=1, act="relu")
        p = layers.pool3d(h, 2, "avg", pool_stride=2)
        up = layers.conv3d_transpose(p, 2, filter_size=2, stride=2)
        a = layers.adaptive_pool3d(up, [2, 1, 3], pool_type="avg")
        g = layers.pool3d(a, pool_type="max", global_pooling=True)
        loss = layers.mean(layers.square(g - 1.0))
        pir.optimizer.SGD(0.1).minimize(loss)
    assert h.shape[1:] == (3, 4, 4, 4) and p.shape[1:] == (3, 2, 2, 2)
    assert up.shape[1:] == (2, 4, 4, 4) and a.shape[1:] == (2, 2, 1, 3)
    assert g.shape[1:] == (2, 1, 1, 1)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    losses = [float(np.asarray(exe.run(main, feed={"vol": vol}, fetch_list=[loss],
                                       scope=scope)[0]).reshape(-1)[0]) for _ in range(5)]
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_adaptive_pool3d(kind):
    x = rng.uniform(-1, 1, (2, 2, 5, 4, 3))
    out_size = [2, 3, 2]
    want = np.zeros((2, 2) + tuple(out_size))
    for cell in itertools.product(*[range(o) for o in out_size]):
        sl = tuple(slice((i * s) // o, -((-(i + 1) * s) // o))
                   for i, s, o in zip(cell, x.shape[2:], out_size, strict=True))
        block = x[(slice(None), slice(None)) + sl]
        want[(slice(None), slice(None)) + cell] = (block.max(axis=(2, 3, 4)) if kind == "max"
                                                   else block.mean(axis=(2, 3, 4)))
    attrs = {"pooling_type": kind, "ksize": out_size}
    check_op("adaptive_pool3d", {"X": x}, attrs, {"Out": want})
    check_grad("adaptive_pool3d", {"X": x}, attrs)


# -- 6-element paddings, NDHWC, padding_algorithm, ceil_mode, adaptive (issue 26) -----------

ASYMMETRIC = [1, 0, 0, 2, 2, 1]  # front, back, top, bottom, left, right


def _ndhwc(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


@pytest.mark.parametrize("layout", ["NCDHW", "NDHWC"])
def test_conv3d_with_asymmetric_paddings_and_either_layout(layout):
    # Failed before the fix: 6-element paddings crashed the shape rule with a zip()
    # ValueError, and NDHWC was refused.
    x = rng.uniform(-1, 1, (1, 2, 3, 4, 3))
    w = rng.uniform(-1, 1, (3, 2, 2, 2, 2))
    attrs = {"strides": [1, 2, 1], "paddings": ASYMMETRIC, "data_format": layout}
    want = conv3d_ref(x, w, [1, 2, 1], ASYMMETRIC, [1, 1, 1], 1)
    feed = x if layout == "NCDHW" else _ndhwc(x)
    check_op("conv3d", {"Input": feed, "Filter": w}, attrs,
             {"Output": want if layout == "NCDHW" else _ndhwc(want)})
    check_grad("conv3d", {"Input": feed, "Filter": w}, attrs, wrt=("Input", "Filter"),
               out_slot="Output")


@pytest.mark.parametrize("layout", ["NCDHW", "NDHWC", "NHWC"])  # NHWC: as Paddle saves it
def test_conv3d_transpose_with_asymmetric_paddings_and_either_layout(layout):
    x = rng.uniform(-1, 1, (1, 2, 2, 3, 2))
    w = rng.uniform(-1, 1, (2, 3, 3, 3, 3))
    attrs = {"strides": [2, 1, 2], "paddings": ASYMMETRIC, "data_format": layout}
    want = conv3d_transpose_ref(x, w, [2, 1, 2], ASYMMETRIC, 1)
    feed = x if layout == "NCDHW" else _ndhwc(x)
    check_op("conv3d_transpose", {"Input": feed, "Filter": w}, attrs,
             {"Output": want if layout == "NCDHW" else _ndhwc(want)})
    check_grad("conv3d_transpose", {"Input": feed, "Filter": w}, attrs,
               wrt=("Input", "Filter"), out_slot="Output")


def test_conv3d_transpose_output_size_adds_voxels_at_the_far_side():
    x = rng.uniform(-1, 1, (1, 2, 2, 2, 2))
    w = rng.uniform(-1, 1, (2, 1, 2, 2, 2))
    # base output 3 per dim (stride 2, kernel 2, padding 1 before): output_size 4 adds one
    full = conv3d_transpose_ref(x, w, [2, 2, 2], [1, 0, 1, 0, 1, 0], 1)
    want = np.zeros((1, 1, 4, 4, 4))
    want[:, :, :3, :3, :3] = full
    attrs = {"strides": [2, 2, 2], "paddings": [1, 0, 1, 0, 1, 0], "output_size": [4, 4, 4]}
    check_op("conv3d_transpose", {"Input": x, "Filter": w}, attrs, {"Output": want})
    check_grad("conv3d_transpose", {"Input": x, "Filter": w}, attrs,
               wrt=("Input", "Filter"), out_slot="Output")


def _same_pads(spatial, k, stride):
    """Paddle's SAME: out = ceil(in / stride), the padding split with the odd voxel after."""
    pads = []
    for s, kk, st in zip(spatial, k, stride, strict=True):
        total = max((-(-s // st) - 1) * st + kk - s, 0)
        pads += [total // 2, total - total // 2]
    return pads


@pytest.mark.parametrize("algorithm", ["SAME", "VALID"])
def test_conv3d_padding_algorithm(algorithm):
    x = rng.uniform(-1, 1, (1, 2, 5, 4, 3))
    w = rng.uniform(-1, 1, (2, 2, 3, 2, 2))
    stride = [2, 1, 2]
    pads = _same_pads(x.shape[2:], [3, 2, 2], stride) if algorithm == "SAME" else [0] * 6
    attrs = {"strides": stride, "paddings": [7, 7, 7], "padding_algorithm": algorithm,
             "dilations": [2, 1, 1]}  # SAME ignores paddings and dilations, VALID paddings
    dil = [1, 1, 1] if algorithm == "SAME" else [2, 1, 1]
    out = check_op("conv3d", {"Input": x, "Filter": w}, attrs,
                   {"Output": conv3d_ref(x, w, stride, pads, dil, 1)})["Output"][0]
    if algorithm == "SAME":
        assert out.shape()[2:] == [3, 4, 2]
    check_grad("conv3d", {"Input": x, "Filter": w}, attrs, wrt=("Input", "Filter"),
               out_slot="Output")


@pytest.mark.parametrize("kind, exclusive", [("max", True), ("avg", True), ("avg", False)])
@pytest.mark.parametrize("layout", ["NCDHW", "NDHWC"])
def test_pool3d_asymmetric_paddings_ceil_mode_and_layout(kind, exclusive, layout):
    x = rng.uniform(-1, 1, (1, 2, 6, 4, 6))
    pads = [1, 0, 0, 1, 1, 1]  # no window lies wholly in the padding; ceil_mode adds one in D
    for ceil_mode in (False, True):
        attrs = {"pooling_type": kind, "ksize": [2, 3, 2], "strides": [2, 2, 3],
                 "paddings": pads, "exclusive": exclusive, "ceil_mode": ceil_mode,
                 "data_format": layout}
        want = pool_ref(x, kind, [2, 3, 2], [2, 2, 3], pads, exclusive, ceil_mode)
        feed = x if layout == "NCDHW" else _ndhwc(x)
        check_op("pool3d", {"X": feed}, attrs,
                 {"Out": want if layout == "NCDHW" else _ndhwc(want)})
        check_grad("pool3d", {"X": feed}, attrs)


def test_pool3d_ceil_mode_adds_the_partial_window():
    x = rng.uniform(-1, 1, (1, 1, 5, 5, 5))
    attrs = {"pooling_type": "max", "ksize": [2, 2, 2], "strides": [2, 2, 2]}
    floor = check_op("pool3d", {"X": x}, attrs)["Out"][0]
    ceil = check_op("pool3d", {"X": x}, {**attrs, "ceil_mode": True})["Out"][0]
    assert floor.shape() == [1, 1, 2, 2, 2] and ceil.shape() == [1, 1, 3, 3, 3]
    assert ceil.numpy()[0, 0, 2, 2, 2] == x[0, 0, 4, 4, 4]  # the last window holds one voxel


@pytest.mark.parametrize("algorithm", ["SAME", "VALID"])
def test_pool3d_padding_algorithm(algorithm):
    x = rng.uniform(-1, 1, (1, 2, 5, 4, 3))
    k, stride = [2, 3, 2], [2, 2, 2]
    pads = _same_pads(x.shape[2:], k, stride) if algorithm == "SAME" else [0] * 6
    attrs = {"pooling_type": "avg", "ksize": k, "strides": stride, "paddings": [9, 9, 9],
             "padding_algorithm": algorithm}
    check_op("pool3d", {"X": x}, attrs, {"Out": pool_ref(x, "avg", k, stride, pads, True)})
    check_grad("pool3d", {"X": x}, attrs)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("layout", ["NCDHW", "NDHWC"])
def test_pool3d_adaptive(kind, layout):
    x = rng.uniform(-1, 1, (2, 2, 5, 4, 3))
    out_size = [2, 3, 2]
    want = np.zeros((2, 2) + tuple(out_size))
    for cell in itertools.product(*[range(o) for o in out_size]):
        sl = tuple(slice((i * s) // o, -((-(i + 1) * s) // o))
                   for i, s, o in zip(cell, x.shape[2:], out_size, strict=True))
        block = x[(slice(None), slice(None)) + sl]
        want[(slice(None), slice(None)) + cell] = (block.max(axis=(2, 3, 4)) if kind == "max"
                                                   else block.mean(axis=(2, 3, 4)))
    attrs = {"pooling_type": kind, "ksize": out_size, "adaptive": True, "data_format": layout}
    feed = x if layout == "NCDHW" else _ndhwc(x)
    check_op("pool3d", {"X": feed}, attrs, {"Out": want if layout == "NCDHW" else _ndhwc(want)})
    check_grad("pool3d", {"X": feed}, attrs)


@pytest.mark.parametrize("op, inputs, attrs, match", [
    ("conv3d", {"Input": np.ones((1, 1, 3, 3, 3)), "Filter": np.ones((1, 1, 2, 2, 2))},
     {"paddings": [1, 1]}, r"paddings must hold 3 or 6 values for a 3-D window, got \[1, 1\]"),
    ("pool3d", {"X": np.ones((1, 1, 3, 3, 3))}, {"paddings": [1, 0, 1, 0]},
     r"paddings must hold 3 or 6 values"),
    ("pool3d", {"X": np.ones((1, 1, 3, 3, 3))}, {"data_format": "NWC"},
     r"data_format must be NCDHW or NDHWC \(or Paddle's NCHW/NHWC for them\), got 'NWC'"),
    ("conv3d_transpose", {"Input": np.ones((1, 1, 3, 3, 3)), "Filter": np.ones((1, 1, 2, 2, 2))},
     {"padding_algorithm": "FULL"}, r"padding_algorithm must be EXPLICIT, SAME or VALID"),
    ("pool3d", {"X": np.ones((1, 1, 3, 3, 3))}, {"ksize": [2, 2]},
     r"ksize must hold 1 or 3 values \(one per spatial dim\), got \[2, 2\]"),
    ("conv3d", {"Input": np.ones((1, 2, 3, 3, 3)), "Filter": np.ones((3, 1, 2, 2, 2))},
     {"groups": 2}, r"Filter's 3 output channels must divide into groups = 2"),
    ("conv3d_transpose", {"Input": np.ones((1, 3, 3, 3, 3)), "Filter": np.ones((3, 1, 2, 2, 2))},
     {"groups": 2}, r"Input's 3 channels must divide into groups = 2"),
    ("conv3d", {"Input": np.ones((1, 1, 3, 3, 3)), "Filter": np.ones((1, 1, 2, 2, 2))},
     {"strides": [1, 1]}, r"strides must hold 1 or 3 values"),
])
def test_bad_paddings_and_layouts_are_shape_errors(op, inputs, attrs, match):
    with pytest.raises(ProgramError, match=match):
        check_op(op, inputs, attrs)
