"""Fluid 1.0-1.5's `Inferencer`: builds the inference program from an `infer_func`,
loads the parameters a Trainer saved (`Trainer.save_params(param_path)`) into a
scope of its own, and runs it on a {name: value} feed.

    inferencer = Inferencer(infer_func=inference_program, param_path="fit_a_line.params",
                            place=fluid.CPUPlace())
    results = inferencer.infer({"x": batch})   # [prediction]
"""

from __future__ import annotations

from collections.abc import Callable

from paddle_ir.core.errors import FeedError, InvalidProgramError
from paddle_ir.executor import Executor, Scope, scope_guard
from paddle_ir.framework import Program, Variable, program_guard, unique_name
from paddle_ir.io.checkpoint import load_params

__all__ = ["Inferencer"]


class Inferencer:
    def __init__(self, infer_func: Callable, param_path, place=None, parallel: bool = False):
        self.place = place
        self.parallel = parallel
        self.scope = Scope()
        self.inference_program = Program()
        startup = Program()
        # fresh names (fc_0.w_0, ...): the parameters a Trainer built first in the process
        with program_guard(self.inference_program, startup), unique_name.guard():
            self.predict_var = infer_func()
        if not isinstance(self.predict_var, Variable):
            raise InvalidProgramError(f"Inferencer: infer_func must return the prediction "
                                      f"Variable, got {self.predict_var!r}")
        self.exe = Executor(place)
        with scope_guard(self.scope):
            load_params(self.exe, param_path, self.inference_program)
        self.inference_program = self.inference_program.clone(for_test=True)

    def infer(self, inputs: dict, return_numpy: bool = True) -> list:
        if not isinstance(inputs, dict):
            raise FeedError(f"Inferencer.infer: inputs must be a {{'input_name': value}} dict, "
                            f"got {type(inputs).__name__}")
        with scope_guard(self.scope):
            return self.exe.run(self.inference_program, feed=inputs,
                                fetch_list=[self.predict_var.name], return_numpy=return_numpy)
