"""B7 for Paddle: paddle.vision.models' ResNet-18 / MobileNetV2 built in old static mode,
parameters set from C.b7_parameters in creation order, saved with
save_inference_model into the driver's shared directory (C.b7_model_prefix), and
those files loaded back and run by Paddle's own Executor: what a user deploying
the .pdmodel / .pdiparams pair runs. paddle-ir's worker then runs the same files.
"""

from __future__ import annotations

import os

import numpy as np
import paddle

from bench import cases as C

PLACE = paddle.CPUPlace()


def save_model(model: str, prefix: str) -> str:
    """Build, initialise and save the model as prefix.pdmodel / .pdiparams; returns prefix."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    scope = paddle.static.Scope()
    with paddle.static.program_guard(main, startup):
        net = {"resnet18": paddle.vision.models.resnet18,
               "mobilenet_v2": paddle.vision.models.mobilenet_v2}[model](
                   num_classes=C.B7_CLASSES)
        net.eval()
        images = paddle.static.data("images", [-1, 3, C.B7_SIZE, C.B7_SIZE], "float32")
        logits = net(images)
    exe = paddle.static.Executor(PLACE)
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        params = [v for v in main.global_block().all_parameters()]
        for var, value in zip(params, C.b7_parameters([v.shape for v in params]),
                              strict=True):
            scope.find_var(var.name).get_tensor().set(value, PLACE)
        os.makedirs(os.path.dirname(prefix) or ".", exist_ok=True)
        paddle.static.save_inference_model(prefix, [images], [logits], exe, program=main)
    return prefix


class VisionInference:
    def __init__(self, model: str):
        prefix = save_model(model, C.b7_model_prefix(model))
        self.scope = paddle.static.Scope()
        self.exe = paddle.static.Executor(PLACE)
        with paddle.static.scope_guard(self.scope):
            self.program, self.feed_names, self.fetch = paddle.static.load_inference_model(
                prefix, self.exe)
        self.images = C.b7_images()
        self.feed = {self.feed_names[0]: self.images}
        self.fingerprint = C.fingerprint(self.images)
        self.info = {"ops": len(self.program.global_block().ops),
                     "model_files": C.b7_model_fingerprint(prefix)}
        self.result = None

    def step(self):
        with paddle.static.scope_guard(self.scope):
            self.result = self.exe.run(self.program, feed=self.feed, fetch_list=self.fetch)

    def check(self):
        return C.b7_check(np.asarray(self.result[0]))

    def output(self) -> np.ndarray:
        """The logits, which the driver compares with the other systems'."""
        return np.asarray(self.result[0])


CASES = {f"B7.{m}": (lambda m=m: VisionInference(m)) for m in C.B7_MODELS}
