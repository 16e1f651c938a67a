"""B7 for paddle-ir: ResNet-18 and MobileNetV2 inference from the very .pdmodel / .pdiparams
files Paddle's worker saved (C.b7_model_prefix), read by paddle_ir.io.load_inference_model
through the Paddle-format converter and run by paddle-ir's Executor.

The driver sets Paddle's case up first, so the files exist when this one loads them; the
model files' fingerprint in `info` lets it check that both ran the same bytes.
"""

from __future__ import annotations

import shutil
import tempfile

import numpy as np

import paddle_ir as pir
from bench import cases as C
from bench import zoo_models


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


class BuiltInference:
    """One image through a network of bench/zoo_models.py, built and saved by paddle-ir here
    (no Paddle needed), loaded back with the load-time passes as a user has them."""

    def __init__(self, model: str):
        self.dir = tempfile.mkdtemp(prefix=f"bench-{model}-")
        try:
            zoo_models.build(model, self.dir, batch=1)
            self.exe, self.scope = pir.Executor(), pir.Scope()
            self.main, feed_names, self.fetch = pir.io.load_inference_model(
                self.dir, self.exe, scope=self.scope)
            with np.load(f"{self.dir}/feeds.npz") as data:
                self.images = data["image"]
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
        self.feed = {feed_names[0]: self.images}
        self.fingerprint = C.fingerprint(self.images)
        self.info = {"ops": len(self.main.global_block().ops)}
        self.result = None

    def step(self):
        self.result = self.exe.run(self.main, feed=self.feed, fetch_list=self.fetch,
                                   scope=self.scope)

    def check(self):
        return C.b7_check(np.asarray(self.result[0]))


CASES = {f"B7.{m}": (lambda m=m: VisionInference(m)) for m in C.B7_MODELS}
CASES.update({f"B7.{m}_built": (lambda m=m: BuiltInference(m)) for m in zoo_models.MODELS})
