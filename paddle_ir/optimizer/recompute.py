"""Fluid 1.x's `fluid.optimizer.RecomputeOptimizer`: the gradients of an inner optimizer's
program computed with activations recomputed from checkpoints.

    opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.Adam(0.001))
    opt._set_checkpoints([fc_1, fc_2])
    opt.minimize(loss)

Recomputation trades compute for device memory and never changes a gradient. paddle-ir
keeps every activation the backward pass reads (the plan frees each buffer when its last
reader has run), so it appends the ordinary backward: the parameters train exactly as
with the inner optimizer alone. The checkpoints are still checked as Fluid checks them:
set before minimize, Variables of the loss's program.
"""

from __future__ import annotations

from paddle_ir.framework import Variable

__all__ = ["RecomputeOptimizer"]


class RecomputeOptimizer:
    def __init__(self, optimizer):
        if optimizer is None:
            raise ValueError("RecomputeOptimizer: optimizer must be an optimizer")
        self._optimizer = optimizer
        self._checkpoints = None
        self.type = getattr(optimizer, "type", type(optimizer).__name__)

    def _set_checkpoints(self, checkpoints) -> None:
        if not isinstance(checkpoints, (list, tuple)) or not all(
                isinstance(c, (Variable, str)) for c in checkpoints):
            raise TypeError("RecomputeOptimizer._set_checkpoints: checkpoints must be a list "
                            f"of Variables (or names), got {checkpoints!r}")
        self._checkpoints = list(checkpoints)

    def load(self, stat_dict):
        raise NotImplementedError("RecomputeOptimizer.load is dygraph-only in Fluid, and "
                                  "paddle-ir has no dygraph")

    def _check(self, loss) -> None:
        if self._checkpoints is None:
            raise ValueError("RecomputeOptimizer: call _set_checkpoints(...) before minimize")
        block = loss.block.program.global_block()
        for c in self._checkpoints:
            name = c if isinstance(c, str) else c.name
            if not block.has_var(name):
                raise ValueError(f"RecomputeOptimizer: checkpoint {name!r} is not a variable "
                                 f"of the loss's program")

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None,
                 callbacks=None):
        self._check(loss)
        return self._optimizer.backward(loss, startup_program, parameter_list, no_grad_set,
                                        callbacks)

    def apply_optimize(self, loss, startup_program, params_grads):
        return self._optimizer.apply_optimize(loss, startup_program, params_grads)

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        """As the inner optimizer's minimize: returns (optimize_ops, params_grads)."""
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        optimize_ops = self.apply_optimize(loss, startup_program, params_grads)
        return optimize_ops, params_grads
