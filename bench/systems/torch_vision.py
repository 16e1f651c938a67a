"""B7 for torch: ResNet-18 and MobileNetV2 written with torch.nn in paddle.vision.models'
layer order, parameters (and batch-norm statistics) set from C.b7_parameters in that
order; eval mode, no autograd."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from bench import cases as C


class _Builder:
    """Creates modules and records their tensors in Paddle's parameter-creation order."""

    def __init__(self):
        self.slots: list[tuple[torch.Tensor, bool]] = []  # (tensor, stored transposed)

    def conv_bn(self, in_c, out_c, k, stride=1, groups=1, act=None):
        conv = nn.Conv2d(in_c, out_c, k, stride, (k - 1) // 2, groups=groups, bias=False)
        bn = nn.BatchNorm2d(out_c, eps=1e-5)
        self.slots += [(conv.weight, False), (bn.weight, False), (bn.bias, False),
                       (bn.running_mean, False), (bn.running_var, False)]
        layers = [conv, bn] + ([act()] if act else [])
        return nn.Sequential(*layers)

    def linear(self, in_f, out_f):
        fc = nn.Linear(in_f, out_f)
        self.slots += [(fc.weight, True), (fc.bias, False)]  # Paddle's weight is [in, out]
        return fc

    def load(self):
        shapes = [tuple(reversed(t.shape)) if tr else tuple(t.shape) for t, tr in self.slots]
        with torch.no_grad():
            for (t, tr), v in zip(self.slots, C.b7_parameters(shapes), strict=True):
                t.copy_(torch.from_numpy(v.T.copy() if tr else v))


class _Basic(nn.Module):
    def __init__(self, b: _Builder, in_c, planes, stride):
        super().__init__()
        self.down = (b.conv_bn(in_c, planes, 1, stride) if stride != 1 or in_c != planes
                     else None)
        self.body = nn.Sequential(b.conv_bn(in_c, planes, 3, stride, act=nn.ReLU),
                                  b.conv_bn(planes, planes, 3))

    def forward(self, x):
        return torch.relu(self.body(x) + (x if self.down is None else self.down(x)))


def resnet18(b: _Builder) -> nn.Module:
    layers = [b.conv_bn(3, 64, 7, 2, act=nn.ReLU), nn.MaxPool2d(3, 2, 1)]
    in_c = 64
    for i, planes in enumerate((64, 128, 256, 512)):
        for j in range(2):
            layers.append(_Basic(b, in_c, planes, 2 if i > 0 and j == 0 else 1))
            in_c = planes
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), b.linear(512, C.B7_CLASSES)]
    return nn.Sequential(*layers)


class _Inverted(nn.Module):
    def __init__(self, b: _Builder, in_c, out_c, stride, t):
        super().__init__()
        hidden = in_c * t
        layers = [b.conv_bn(in_c, hidden, 1, act=nn.ReLU6)] if t != 1 else []
        layers += [b.conv_bn(hidden, hidden, 3, stride, groups=hidden, act=nn.ReLU6),
                   b.conv_bn(hidden, out_c, 1)]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and in_c == out_c

    def forward(self, x):
        return x + self.body(x) if self.residual else self.body(x)


def mobilenet_v2(b: _Builder) -> nn.Module:
    layers = [b.conv_bn(3, 32, 3, 2, act=nn.ReLU6)]
    in_c = 32
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)):
        for i in range(n):
            layers.append(_Inverted(b, in_c, c, s if i == 0 else 1, t))
            in_c = c
    layers += [b.conv_bn(in_c, 1280, 1, act=nn.ReLU6), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
               nn.Dropout(0.2), b.linear(1280, C.B7_CLASSES)]
    return nn.Sequential(*layers)


class VisionInference:
    def __init__(self, model: str):
        b = _Builder()
        self.net = {"resnet18": resnet18, "mobilenet_v2": mobilenet_v2}[model](b).eval()
        b.load()
        self.images_np = C.b7_images()
        self.images = torch.from_numpy(self.images_np)
        self.fingerprint = C.fingerprint(self.images_np)
        self.result = None

    def step(self):
        with torch.inference_mode():
            self.result = self.net(self.images)

    def check(self):
        return C.b7_check(np.asarray(self.result))

    def output(self) -> np.ndarray:
        """The logits, which the driver compares with Paddle's."""
        return np.asarray(self.result)


CASES = {f"B7.{m}": (lambda m=m: VisionInference(m)) for m in C.B7_MODELS}
