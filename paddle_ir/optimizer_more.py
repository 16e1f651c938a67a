"""Fluid 1.x's other optimizers: RMSProp, Adamax, DecayedAdagrad, LarsMomentum, Adadelta
(ops/optimizers/: rmsprop.py, adamax.py, decayed_adagrad.py, lars_momentum.py,
adadelta.py hold the update rules), with Fluid's argument names and defaults."""

from __future__ import annotations

from paddle_ir.optimizer import Optimizer

__all__ = ["Adadelta", "AdadeltaOptimizer", "Adamax", "AdamaxOptimizer", "DecayedAdagrad",
           "DecayedAdagradOptimizer", "LarsMomentum", "LarsMomentumOptimizer", "RMSProp",
           "RMSPropOptimizer"]


def _shape(param) -> list[int]:
    return list(param.shape)


class RMSProp(Optimizer):
    """Fluid's RMSPropOptimizer: rho (decay of the averages), epsilon, momentum, centered."""

    op_type = "rmsprop"

    def __init__(self, learning_rate: float, rho: float = 0.95, epsilon: float = 1e-6,
                 momentum: float = 0.0, centered: bool = False, regularization=None,
                 name=None, grad_clip=None):
        super().__init__(learning_rate, regularization, name, grad_clip)
        if not 0.0 <= rho < 1.0 or epsilon < 0 or momentum < 0:
            raise ValueError(f"RMSProp: rho must be in [0, 1) and epsilon, momentum >= 0, got "
                             f"rho={rho}, epsilon={epsilon}, momentum={momentum}")
        self._rho, self._epsilon = float(rho), float(epsilon)
        self._momentum, self._centered = float(momentum), bool(centered)

    def _accumulators(self, param):
        return [("MeanSquare", "mean_square", 0.0, _shape(param)),
                ("MeanGrad", "mean_grad", 0.0, _shape(param)),
                ("Moment", "momentum", 0.0, _shape(param))]

    def _attrs(self):
        return {"decay": self._rho, "epsilon": self._epsilon, "momentum": self._momentum,
                "centered": self._centered}


class Adamax(Optimizer):
    """Fluid's AdamaxOptimizer (Adam with the infinity norm)."""

    op_type = "adamax"

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, regularization=None, name=None, grad_clip=None):
        super().__init__(learning_rate, regularization, name, grad_clip)
        self._beta1, self._beta2, self._epsilon = float(beta1), float(beta2), float(epsilon)

    def _accumulators(self, param):
        return [("Moment", "moment", 0.0, _shape(param)),
                ("InfNorm", "inf_norm", 0.0, _shape(param)),
                ("Beta1Pow", "beta1_pow_acc", self._beta1, [1])]

    def _attrs(self):
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon}


class DecayedAdagrad(Optimizer):
    """Fluid's DecayedAdagradOptimizer: Adagrad whose squared-gradient sum decays."""

    op_type = "decayed_adagrad"

    def __init__(self, learning_rate: float, decay: float = 0.95, epsilon: float = 1e-6,
                 regularization=None, name=None, grad_clip=None):
        super().__init__(learning_rate, regularization, name, grad_clip)
        self._decay, self._epsilon = float(decay), float(epsilon)

    def _accumulators(self, param):
        return [("Moment", "moment", 0.0, _shape(param))]

    def _attrs(self):
        return {"decay": self._decay, "epsilon": self._epsilon}


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
        return [("Velocity", "velocity", 0.0, _shape(param))]

    def _attrs(self):
        return {"mu": self._momentum, "lars_coeff": self._coeff,
                "lars_weight_decay": self._decay}


class Adadelta(Optimizer):
    """Fluid's AdadeltaOptimizer. As in Fluid, the update op reads no learning rate: the
    step is sqrt((E[dx^2] + eps) / (E[g^2] + eps)) * g, and `learning_rate` is taken for
    Fluid's signature only (Fluid's own op ignores it too)."""

    op_type = "adadelta"
    takes_learning_rate = False

    def __init__(self, learning_rate: float, epsilon: float = 1.0e-6, rho: float = 0.95,
                 regularization=None, name=None, grad_clip=None):
        super().__init__(learning_rate, regularization, name, grad_clip)
        if not 0.0 <= rho < 1.0 or epsilon <= 0:
            raise ValueError(f"Adadelta: rho must be in [0, 1) and epsilon > 0, got rho={rho}, "
                             f"epsilon={epsilon}")
        self._epsilon, self._rho = float(epsilon), float(rho)

    def _accumulators(self, param):
        return [("AvgSquaredGrad", "_avg_squared_grad", 0.0, _shape(param)),
                ("AvgSquaredUpdate", "_avg_squared_update", 0.0, _shape(param))]

    def _attrs(self):
        return {"epsilon": self._epsilon, "rho": self._rho}


RMSPropOptimizer = RMSProp
AdadeltaOptimizer = Adadelta
LarsMomentumOptimizer = LarsMomentum
AdamaxOptimizer = Adamax
DecayedAdagradOptimizer = DecayedAdagrad
