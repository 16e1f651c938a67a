"""conv3d, conv3d_transpose and pool3d against direct loops, with gradients."""

import itertools

import numpy as np
import pytest

from tests.op_test import check_grad, check_op

rng = np.random.RandomState(73)


def conv3d_ref(x, w, stride, pad, dil, groups):
    n, c, *sp = x.shape
    m, cg, *k = w.shape
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    outs = [(s + 2 * p - d * (kk - 1) - 1) // st + 1 for s, p, d, kk, st in
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
    return out[(slice(None), slice(None)) + tuple(slice(p, f - p) for p, f in
                                                    zip(pad, full, strict=True))]


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


def pool_ref(x, kind, k, stride, pad, exclusive):
    n, c, *sp = x.shape
    outs = [(s + 2 * p - kk) // st + 1 for s, p, kk, st in zip(sp, pad, k, stride, strict=True)]
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
                out[(b, ch) + o] = sum(vals) / (len(vals) if exclusive else np.prod(k))
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
