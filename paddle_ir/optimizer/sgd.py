"""Fluid's momentum family: SGD, Momentum and LarsMomentum (update rules in
ops/optimizers/: sgd.py, momentum.py, lars_momentum.py), with Fluid's argument names
and defaults."""

from __future__ import annotations

from paddle_ir.optimizer.base import Optimizer, param_shape

__all__ = ["LarsMomentum", "LarsMomentumOptimizer", "Momentum", "MomentumOptimizer", "SGD",
           "SGDOptimizer"]


class SGD(Optimizer):
    """param -= lr * grad (a SelectedRows grad moves only its rows)."""

    op_type = "sgd"


class Momentum(Optimizer):
    """velocity = momentum * velocity + grad; param -= lr * velocity (Paddle's convention).

    `use_nesterov`: param -= lr * (grad + momentum * velocity). `lazy_mode` (for
    SelectedRows gradients): True updates only the rows present, in the
    parameter and the velocity; False equals the dense update. MXNet's state
    is -lr * velocity (ops/optimizers/momentum.py).
    """

    op_type = "momentum"

    def __init__(self, learning_rate: float, momentum: float, use_nesterov: bool = False,
                 regularization=None, name=None, lazy_mode: bool = False, grad_clip=None):
        super().__init__(learning_rate, regularization, name, grad_clip)
        self._momentum = float(momentum)
        self._use_nesterov = bool(use_nesterov)
        self._lazy_mode = bool(lazy_mode)

    def _accumulators(self, param):
        return [("Velocity", "velocity", 0.0, list(param.shape))]

    def _attrs(self):
        return {"mu": self._momentum, "use_nesterov": self._use_nesterov,
                "lazy_mode": self._lazy_mode}


class LarsMomentum(Optimizer):
    """Fluid's LarsMomentumOptimizer: momentum whose rate each parameter scales by
    lars_coeff * ||param|| / (||grad|| + lars_weight_decay * ||param||)."""

    op_type = "lars_momentum"

    def __init__(self, learning_rate: float, momentum: float, lars_coeff: float = 0.001,
                 lars_weight_decay: float = 0.0005, regularization=None, name=None,
                 grad_clip=None):
        super().__init__(learning_rate, regularization, name, grad_clip)
        if lars_coeff < 0 or lars_weight_decay < 0:
            raise ValueError(f"LarsMomentum: lars_coeff and lars_weight_decay must be >= 0, "
                             f"got {lars_coeff} and {lars_weight_decay}")
        self._momentum, self._coeff = float(momentum), float(lars_coeff)
        self._decay = float(lars_weight_decay)

    def _accumulators(self, param):
        return [("Velocity", "velocity", 0.0, param_shape(param))]

    def _attrs(self):
        return {"mu": self._momentum, "lars_coeff": self._coeff,
                "lars_weight_decay": self._decay}


SGDOptimizer = SGD
MomentumOptimizer = Momentum
LarsMomentumOptimizer = LarsMomentum
