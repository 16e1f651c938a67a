"""Build small models with PaddlePaddle 3.x in its default PIR mode and save them as
fixtures for paddle-ir's PIR reader (paddle_ir/paddle_format/pir/).

Run by hand in a separate environment (Paddle is a 1 GB install and no test needs it):

    python3 -m venv /tmp/paddle-venv
    /tmp/paddle-venv/bin/pip install paddlepaddle==3.3.1 numpy
    /tmp/paddle-venv/bin/python tools/make_pir_fixtures.py [OUT_DIR [NAME ...]]

Writes under OUT_DIR (default tests/fixtures/paddle_pir/), per model NAME:

    NAME/model.json, NAME/model.pdiparams   the PIR program and its parameters, as
                                            paddle.static.save_inference_model or
                                            paddle.jit.save write them
    NAME/feeds.npz                          the inputs, as `paddle-ir run --feeds` reads them
    NAME/outputs.npz                        Paddle's outputs, out.K for fetch target K

Every model is a dygraph Layer saved with paddle.jit.save, as model zoos ship them; its
parameters (and batch-norm statistics) are drawn at random first, so that a wrong
formula shows. `branch` and `cond_loop` hold pd_op.if / pd_op.while (control flow).

tools/make_paddle_fixtures.py writes the old-IR fixtures; this one leaves
FLAGS_enable_pir_api at its default (on), so Paddle writes .json programs.
"""

from __future__ import annotations

import os
import shutil
import sys

import numpy as np
import paddle

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "fixtures",
    "paddle_pir")
PLACE = paddle.CPUPlace()


def _randomize(layer, rng):
    """Parameters (and batch-norm statistics) drawn from rng, so that a wrong formula shows."""
    for name, tensor in list(layer.state_dict().items()):
        shape = tensor.shape
        if "variance" in name:
            value = rng.uniform(0.5, 1.5, shape)
        elif "mean" in name:
            value = rng.standard_normal(shape) * 0.1
        else:
            value = rng.standard_normal(shape) * 0.3
        tensor.set_value(value.astype(tensor.numpy().dtype))


def _save_jit(name, layer, specs, feed_values):
    """paddle.jit.save of a dygraph layer (what model zoos ship), then Paddle's outputs."""
    directory = os.path.join(OUT, name)
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    _randomize(layer, np.random.default_rng(len(name)))
    layer.eval()
    spec = [paddle.static.InputSpec(shape, dtype, n) for n, shape, dtype in specs]
    paddle.jit.save(layer, os.path.join(directory, "model"), input_spec=spec)
    loaded = paddle.jit.load(os.path.join(directory, "model"))
    outs = loaded(*[paddle.to_tensor(feed_values[n]) for n, _, _ in specs])
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    _write_io(directory, feed_values, [o.numpy() for o in outs])


def _write_io(directory, feed_values, results):
    np.savez(os.path.join(directory, "feeds.npz"), **feed_values)
    np.savez(os.path.join(directory, "outputs.npz"),
             **{f"out.{i}": np.asarray(out) for i, out in enumerate(results)})
    print(os.path.basename(directory), [np.asarray(o).shape for o in results])


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = paddle.nn.Linear(8, 16), paddle.nn.Linear(16, 4)

    def forward(self, x):
        return paddle.nn.functional.softmax(self.fc2(paddle.nn.functional.relu(self.fc1(x))))


class ConvNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = paddle.nn.Conv2D(3, 8, 3, padding=1)
        self.bn = paddle.nn.BatchNorm2D(8)
        self.dw = paddle.nn.Conv2D(8, 8, 3, padding=1, groups=8)
        self.conv2 = paddle.nn.Conv2D(8, 4, 3, stride=2, padding=1)
        self.fc = paddle.nn.Linear(4, 5)

    def forward(self, image):
        h = paddle.nn.functional.relu(self.bn(self.conv1(image)))
        h = paddle.nn.functional.max_pool2d(self.dw(h), 2, 2)
        h = paddle.nn.functional.relu(self.conv2(h))
        h = paddle.nn.functional.adaptive_avg_pool2d(h, 1)
        return self.fc(paddle.flatten(h, 1))


class Attention(paddle.nn.Layer):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads, self.dim = heads, dim
        self.ln1, self.ln2 = paddle.nn.LayerNorm(dim), paddle.nn.LayerNorm(dim)
        self.qkv = paddle.nn.Linear(dim, 3 * dim)
        self.out = paddle.nn.Linear(dim, dim)
        self.ff = paddle.nn.Linear(dim, dim)
        self.drop = paddle.nn.Dropout(0.1)

    def forward(self, x):
        b, s = paddle.shape(x)[0], x.shape[1]
        q, k, v = paddle.split(self.qkv(self.ln1(x)), 3, axis=-1)

        def heads(t):
            return paddle.transpose(paddle.reshape(t, [0, s, self.heads, -1]), [0, 2, 1, 3])

        q, k, v = heads(q), heads(k), heads(v)
        scores = paddle.matmul(q, k, transpose_y=True) * (self.dim // self.heads) ** -0.5
        weights = self.drop(paddle.nn.functional.softmax(scores, axis=-1))
        ctx = paddle.reshape(paddle.transpose(paddle.matmul(weights, v), [0, 2, 1, 3]),
                             [b, s, self.dim])
        h = x + self.out(ctx)
        return h + paddle.nn.functional.gelu(self.ff(self.ln2(h)))


class Embedding(paddle.nn.Layer):
    """int64 ids through an embedding, mean-pooled, concatenated with an int32 feature
    (cast) and gated by a bool mask."""

    def __init__(self):
        super().__init__()
        self.emb = paddle.nn.Embedding(20, 6)
        self.fc = paddle.nn.Linear(7, 3)

    def forward(self, ids, extra, mask):
        pooled = paddle.mean(self.emb(ids), axis=1)
        h = paddle.concat([pooled, paddle.cast(extra, "float32")], axis=-1)
        h = h * paddle.cast(mask, "float32")
        return paddle.nn.functional.sigmoid(self.fc(h)), paddle.argmax(h, axis=-1)


class Branch(paddle.nn.Layer):
    """A data-dependent branch: jit.save writes it as pd_op.if (control flow), which
    paddle-ir does not map yet, so `check` must name it."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        if paddle.mean(h) > 0:
            h = paddle.nn.functional.relu(h)
        else:
            h = -h
        return h


class CondLoop(paddle.nn.Layer):
    """paddle.static.nn.cond returning two values (pd_op.if with two results) and
    paddle.static.nn.while_loop (pd_op.while carrying a counter and a tensor)."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        a, b = paddle.static.nn.cond(paddle.mean(x) > 0,
                                     lambda: (paddle.nn.functional.relu(h) * 2.0, h + 1.0),
                                     lambda: (paddle.tanh(h), h - 1.0))
        i = paddle.full([1], 0, "int64")
        _, looped = paddle.static.nn.while_loop(lambda k, v: k < 3,
                                                lambda k, v: [k + 1, v * 0.5 + a], [i, b])
        return a, looped


def _save_both_branches(rng):
    """cond_loop as saved, then the false branch's feeds and outputs beside it
    (feeds_false.npz, outputs_false.npz)."""
    x = np.abs(rng.standard_normal((3, 4))).astype("float32")
    _save_jit("cond_loop", CondLoop(), [("x", [-1, 4], "float32")], {"x": x})
    directory = os.path.join(OUT, "cond_loop")
    loaded = paddle.jit.load(os.path.join(directory, "model"))
    outs = loaded(paddle.to_tensor(-x))
    np.savez(os.path.join(directory, "feeds_false.npz"), x=-x)
    np.savez(os.path.join(directory, "outputs_false.npz"),
             **{f"out.{i}": o.numpy() for i, o in enumerate(outs)})


class LSTMClassifier(paddle.nn.Layer):
    """Embedding -> 2-layer LSTM -> the last step -> Linear (pd_op.rnn)."""

    def __init__(self):
        super().__init__()
        self.embedding = paddle.nn.Embedding(20, 6)
        self.lstm = paddle.nn.LSTM(6, 8, num_layers=2)
        self.fc = paddle.nn.Linear(8, 3)

    def forward(self, ids):
        out, _ = self.lstm(self.embedding(ids))
        return self.fc(out[:, -1])


def main():
    chosen = sys.argv[2:]
    rng = np.random.default_rng(0)
    models = {
        "mlp": lambda: _save_jit("mlp", MLP(), [("x", [-1, 8], "float32")],
                                 {"x": rng.standard_normal((5, 8)).astype("float32")}),
        "conv": lambda: _save_jit(
            "conv", ConvNet(), [("image", [-1, 3, 12, 12], "float32")],
            {"image": rng.standard_normal((2, 3, 12, 12)).astype("float32")}),
        "attention": lambda: _save_jit(
            "attention", Attention(), [("x", [-1, 6, 16], "float32")],
            {"x": rng.standard_normal((3, 6, 16)).astype("float32")}),
        "embedding": lambda: _save_jit(
            "embedding", Embedding(), [("ids", [-1, 4], "int64"), ("extra", [-1, 1], "int32"),
                                       ("mask", [-1, 7], "bool")],
            {"ids": rng.integers(0, 20, (3, 4)).astype("int64"),
             "extra": rng.integers(-2, 3, (3, 1)).astype("int32"),
             "mask": rng.random((3, 7)) > 0.3}),
        "branch": lambda: _save_jit("branch", Branch(), [("x", [-1, 4], "float32")],
                                    {"x": rng.standard_normal((2, 4)).astype("float32")}),
        "cond_loop": lambda: _save_both_branches(rng),
        "lstm": lambda: _save_jit("lstm", LSTMClassifier(), [("ids", [-1, 5], "int64")],
                                  {"ids": rng.integers(0, 20, (3, 5)).astype("int64")}),
    }
    for name in chosen or list(models):
        paddle.seed(0)
        models[name]()


if __name__ == "__main__":
    main()
