"""Vision networks built with paddle-ir's layers, saved as inference models for bench/zoo.py.

Two architectures whose op mix is that of the models issue 24 measured, built
here so that no Paddle install is needed:

- `mobilenet_v3_small`: torchvision's / Paddle's MobileNetV3-Small (224 x 224,
  1000 classes): 11 inverted-residual blocks with depthwise 3x3 / 5x5
  convolutions, hard_swish, and 9 squeeze-excite blocks (global average pooling
  of the expanded map, two 1x1 convolutions, hard_sigmoid, a channel product);
  every convolution followed by batch_norm, dropout before the classifier.
- `resnet18`: ResNet-18 (basic blocks [2, 2, 2, 2], batch_norm after every
  convolution, 1x1 projections on the strided shortcuts, global pooling, fc).

Parameters are drawn from a fixed seed, batch-norm statistics included (mean
~N(0, 0.1), variance ~U(0.5, 1.5)), so folding them is not folding an identity.
"""

from __future__ import annotations

import os

import numpy as np

import paddle_ir as pir
from paddle_ir import layers

SIZE, CLASSES = 224, 1000
MODELS = ("mobilenet_v3_small", "resnet18")

# (kernel, expanded, out, squeeze-excite, activation, stride): MobileNetV3-Small's table
_MNV3_SMALL = [
    (3, 16, 16, True, "relu", 2), (3, 72, 24, False, "relu", 2),
    (3, 88, 24, False, "relu", 1), (5, 96, 40, True, "hard_swish", 2),
    (5, 240, 40, True, "hard_swish", 1), (5, 240, 40, True, "hard_swish", 1),
    (5, 120, 48, True, "hard_swish", 1), (5, 144, 48, True, "hard_swish", 1),
    (5, 288, 96, True, "hard_swish", 2), (5, 576, 96, True, "hard_swish", 1),
    (5, 576, 96, True, "hard_swish", 1),
]


def _divisible(v: float, d: int = 8) -> int:
    out = max(d, int(v + d / 2) // d * d)
    return out + d if out < 0.9 * v else out


def _act(x, act):
    if act == "relu":
        return layers.relu(x)
    if act == "hard_swish":
        return layers.hard_swish(x)
    return x


def _conv_bn(x, out, k, stride=1, groups=1, act=None):
    x = layers.conv2d(x, out, k, stride=stride, padding=(k - 1) // 2, groups=groups,
                      bias_attr=False)
    return _act(layers.batch_norm(x), act)


def _squeeze_excite(x, channels):
    s = layers.adaptive_pool2d(x, 1, pool_type="avg")
    s = layers.conv2d(s, _divisible(channels // 4), 1, act="relu")
    s = layers.conv2d(s, channels, 1)
    s = layers.hard_sigmoid(s, slope=1 / 6, offset=0.5)
    return layers.elementwise_mul(x, s)


def mobilenet_v3_small(image):
    x = _conv_bn(image, 16, 3, stride=2, act="hard_swish")
    channels = 16
    for k, expanded, out, se, act, stride in _MNV3_SMALL:
        y = x
        if expanded != channels:
            y = _conv_bn(y, expanded, 1, act=act)
        y = _conv_bn(y, expanded, k, stride=stride, groups=expanded, act=act)
        if se:
            y = _squeeze_excite(y, expanded)
        y = _conv_bn(y, out, 1)
        x = layers.elementwise_add(x, y) if stride == 1 and channels == out else y
        channels = out
    x = _conv_bn(x, 576, 1, act="hard_swish")
    x = layers.adaptive_pool2d(x, 1, pool_type="avg")
    x = layers.hard_swish(layers.fc(x, 1024))
    x = layers.dropout(x, 0.2, dropout_implementation="upscale_in_train")
    return layers.fc(x, CLASSES)


def resnet18(image):
    x = _conv_bn(image, 64, 7, stride=2, act="relu")
    x = layers.pool2d(x, 3, "max", pool_stride=2, pool_padding=1)
    channels = 64
    for stage, out in enumerate((64, 128, 256, 512)):
        for block in range(2):
            stride = 2 if stage and not block else 1
            y = _conv_bn(x, out, 3, stride=stride, act="relu")
            y = _conv_bn(y, out, 3)
            shortcut = _conv_bn(x, out, 1, stride=stride) if stride != 1 or channels != out \
                else x
            x = layers.relu(layers.elementwise_add(shortcut, y))
            channels = out
    x = layers.pool2d(x, global_pooling=True, pool_type="avg")
    return layers.fc(x, CLASSES)


def _fill(scope, program, rng) -> None:
    """Every float parameter from the seed; batch_norm variances positive."""
    block = program.global_block()
    variances = {op.input("Variance")[0] for op in block.ops if op.type == "batch_norm"}
    means = {op.input("Mean")[0] for op in block.ops if op.type == "batch_norm"}
    for var in sorted(block.vars.values(), key=lambda v: v.name):
        if not var.persistable or scope.find_var(var.name) is None:
            continue
        old = np.asarray(scope.find_var(var.name).get_tensor())
        if var.name in variances:
            new = rng.uniform(0.5, 1.5, old.shape)
        elif var.name in means:
            new = rng.normal(0, 0.1, old.shape)
        elif old.ndim == 4:  # He-scaled filters keep the activations' scale through depth
            new = rng.normal(0, np.sqrt(2.0 / np.prod(old.shape[1:])), old.shape)
        else:
            new = rng.normal(0, 0.05, old.shape) + (1.0 if "batch_norm" in var.name and
                                                    old.ndim == 1 and "w_0" in var.name
                                                    else 0.0)
        scope.find_var(var.name).get_tensor().set(new.astype(old.dtype))


def build(model: str, dirname: str, batch: int = 1) -> str:
    """Save `model` as an inference model in `dirname` with its feed in feeds.npz."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        image = layers.data("image", [3, SIZE, SIZE], dtype="float32")
        logits = {"mobilenet_v3_small": mobilenet_v3_small, "resnet18": resnet18}[model](image)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    _fill(scope, main, np.random.default_rng(24))
    pir.io.save_inference_model(dirname, ["image"], [logits], exe, main_program=main,
                                scope=scope)
    images = np.random.default_rng(7).standard_normal((batch, 3, SIZE, SIZE)).astype(np.float32)
    np.savez(os.path.join(dirname, "feeds.npz"), image=images)
    return dirname
