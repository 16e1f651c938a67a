"""B7 for paddle-ir: ResNet-18 and MobileNetV2 inference, built with paddle-ir's Fluid layers
in paddle.vision.models' layer order (so parameters are created, and set, in the same order).
"""

from __future__ import annotations

import numpy as np

import paddle_ir as pir
from bench import cases as C

L = pir.layers


def _conv_bn(x, out_c, k, stride=1, groups=1, act=None):
    x = L.conv2d(x, out_c, k, stride=stride, padding=(k - 1) // 2, groups=groups,
                 bias_attr=False, use_cudnn=groups == 1)
    return L.batch_norm(x, act=act, is_test=True)


def resnet18(x):
    x = _conv_bn(x, 64, 7, 2, act="relu")
    x = L.pool2d(x, 3, "max", 2, 1)
    in_c = 64
    for i, planes in enumerate((64, 128, 256, 512)):
        for j in range(2):
            stride = 2 if i > 0 and j == 0 else 1
            # paddle.vision.models makes the downsample branch before the block's convs.
            identity = _conv_bn(x, planes, 1, stride) if stride != 1 or in_c != planes else x
            h = _conv_bn(x, planes, 3, stride, act="relu")
            h = _conv_bn(h, planes, 3)
            x = L.relu(L.elementwise_add(h, identity))
            in_c = planes
    x = L.adaptive_pool2d(x, 1, "avg")
    return L.fc(L.flatten(x, 1), C.B7_CLASSES)


def mobilenet_v2(x):
    x = _conv_bn(x, 32, 3, 2, act="relu6")
    in_c = 32
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)):
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = in_c * t
            h = _conv_bn(x, hidden, 1, act="relu6") if t != 1 else x
            h = _conv_bn(h, hidden, 3, stride, groups=hidden, act="relu6")
            h = _conv_bn(h, c, 1)
            x = L.elementwise_add(x, h) if stride == 1 and in_c == c else h
            in_c = c
    x = _conv_bn(x, 1280, 1, act="relu6")
    x = L.adaptive_pool2d(x, 1, "avg")
    x = L.dropout(L.flatten(x, 1), 0.2, is_test=True, dropout_implementation="upscale_in_train")
    return L.fc(x, C.B7_CLASSES)


class VisionInference:
    """One batch through the built network, parameters from C.b7_parameters."""

    def __init__(self, model: str):
        main, startup = pir.Program(), pir.Program()
        with pir.program_guard(main, startup):
            images = L.data("images", [-1, 3, C.B7_SIZE, C.B7_SIZE])
            logits = {"resnet18": resnet18, "mobilenet_v2": mobilenet_v2}[model](images)
        self.main, self.fetch = main, [logits]
        self.exe, self.scope = pir.Executor(), pir.Scope()
        self.exe.run(startup, scope=self.scope)
        params = [v for v in main.global_block().vars.values() if v.persistable]
        for var, value in zip(params, C.b7_parameters([v.shape for v in params]), strict=True):
            self.scope.find_var(var.name).get_tensor().set(value)
        self.images = C.b7_images()
        self.feed = {"images": self.images}
        self.fingerprint = C.fingerprint(self.images)
        self.info = {"ops": len(main.global_block().ops), "parameters": len(params)}
        self.result = None

    def step(self):
        self.result = self.exe.run(self.main, feed=self.feed, fetch_list=self.fetch,
                                   scope=self.scope)

    def check(self):
        return C.b7_check(np.asarray(self.result[0]))


CASES = {f"B7.{m}": (lambda m=m: VisionInference(m)) for m in C.B7_MODELS}
