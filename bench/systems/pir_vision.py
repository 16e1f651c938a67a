"""B7 for paddle-ir: ResNet-18 and MobileNetV2 inference from the very .pdmodel / .pdiparams
files Paddle's worker saved (C.b7_model_prefix), read by paddle_ir.io.load_inference_model
through the Paddle-format converter and run by paddle-ir's Executor.

The driver sets Paddle's case up first, so the files exist when this one loads them; the
model files' fingerprint in `info` lets it check that both ran the same bytes.
"""

from __future__ import annotations

import numpy as np

import paddle_ir as pir
from bench import cases as C


class VisionInference:
    """One batch through Paddle's saved network."""

    def __init__(self, model: str):
        prefix = C.b7_model_prefix(model)
        self.exe, self.scope = pir.Executor(), pir.Scope()
        self.main, feed_names, self.fetch = pir.io.load_inference_model(
            prefix, self.exe, scope=self.scope)
        self.images = C.b7_images()
        self.feed = {feed_names[0]: self.images}
        self.fingerprint = C.fingerprint(self.images)
        block = self.main.global_block()
        self.info = {"ops": len(block.ops),
                     "parameters": sum(v.persistable for v in block.vars.values()),
                     "model_files": C.b7_model_fingerprint(prefix)}
        self.result = None

    def step(self):
        self.result = self.exe.run(self.main, feed=self.feed, fetch_list=self.fetch,
                                   scope=self.scope)

    def check(self):
        return C.b7_check(np.asarray(self.result[0]))

    def output(self) -> np.ndarray:
        """The logits, which the driver compares with Paddle's."""
        return np.asarray(self.result[0])


CASES = {f"B7.{m}": (lambda m=m: VisionInference(m)) for m in C.B7_MODELS}
