"""The structured loss layers train: each loss falls under SGD on a small synthetic task."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.lod_tensor import LoDTensor

rng = np.random.RandomState(61)


def _train(build, feed, steps=30, lr=0.5):
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        loss = layers.mean(build())
        pir.optimizer.SGD(lr).minimize(loss)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    losses = [float(np.asarray(exe.run(main, feed=feed, fetch_list=[loss],
                                       scope=scope)[0]).reshape(-1)[0]) for _ in range(steps)]
    return losses, main, scope


X = rng.uniform(-1, 1, (16, 6)).astype(np.float32)
Y = (np.abs(X[:, :1]) * 5).astype(np.int64) % 5


@pytest.mark.parametrize("kind", ["hsigmoid", "nce", "sampled_softmax", "center"])
def test_classification_losses_decrease(kind):
    def build():
        x = layers.data("x", [-1, 6])
        y = layers.data("y", [-1, 1], dtype="int64")
        h = layers.fc(x, 8, act="tanh")
        if kind == "hsigmoid":
            return layers.hsigmoid(h, y, 5)
        if kind == "nce":
            return layers.nce(h, y, 5, num_neg_samples=3, seed=5)
        if kind == "sampled_softmax":
            return layers.sampled_softmax_with_cross_entropy(layers.fc(h, 5), y, 3, seed=5)
        return layers.center_loss(h, y, 5, alpha=0.3) + layers.mean(layers.square(h)) * 0.0

    losses, main, scope = _train(build, {"x": X, "y": Y})
    assert losses[-1] < 0.8 * losses[0], losses
    if kind == "center":
        centers = [p for p in main.global_block().all_parameters()
                   if p.name.startswith("center_loss")][0]
        assert not centers.trainable
        assert np.abs(np.array(scope.find_var(centers.name).get_tensor())).sum() > 0


def test_warpctc_layer_learns_a_label():
    lengths = [5, 4]
    feats = rng.uniform(-1, 1, (9, 4)).astype(np.float32)
    x = LoDTensor(feats)
    x.set_recursive_sequence_lengths([lengths])
    y = LoDTensor(np.array([[1], [2], [2]], np.int64))
    y.set_recursive_sequence_lengths([[2, 1]])

    def build():
        xv = layers.data("x", [-1, 4], lod_level=1)
        yv = layers.data("y", [-1, 1], dtype="int64", lod_level=1)
        return layers.warpctc(layers.fc(xv, 3), yv, blank=0)

    losses, _, _ = _train(build, {"x": x, "y": y}, steps=40, lr=0.3)
    assert losses[-1] < 0.5 * losses[0], losses
