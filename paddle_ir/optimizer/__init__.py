"""Fluid's `fluid.optimizer`: the optimizers (base.py, sgd.py, adaptive.py), their
Fluid `*Optimizer` aliases, ModelAverage (model_average.py) and ExponentialMovingAverage
(exponential_moving_average.py), which are not Optimizers (they add ops after another
optimizer's updates), and the wrappers LookaheadOptimizer (lookahead.py) and
RecomputeOptimizer (recompute.py) around an inner optimizer."""

from paddle_ir.optimizer.adaptive import (
    Adadelta,
    AdadeltaOptimizer,
    Adagrad,
    AdagradOptimizer,
    Adam,
    Adamax,
    AdamaxOptimizer,
    AdamOptimizer,
    DecayedAdagrad,
    DecayedAdagradOptimizer,
    Ftrl,
    FtrlOptimizer,
    Lamb,
    LambOptimizer,
    RMSProp,
    RMSPropOptimizer,
)
from paddle_ir.optimizer.base import Optimizer
from paddle_ir.optimizer.exponential_moving_average import ExponentialMovingAverage
from paddle_ir.optimizer.lookahead import LookaheadOptimizer
from paddle_ir.optimizer.model_average import ModelAverage
from paddle_ir.optimizer.recompute import RecomputeOptimizer
from paddle_ir.optimizer.sgd import (
    SGD,
    Dpsgd,
    DpsgdOptimizer,
    LarsMomentum,
    LarsMomentumOptimizer,
    Momentum,
    MomentumOptimizer,
    SGDOptimizer,
)

__all__ = [
    "SGD", "Adadelta", "AdadeltaOptimizer", "Adagrad", "AdagradOptimizer", "Adam",
    "AdamOptimizer", "Adamax", "AdamaxOptimizer", "DecayedAdagrad", "DecayedAdagradOptimizer",
    "Dpsgd", "DpsgdOptimizer", "ExponentialMovingAverage", "Ftrl", "FtrlOptimizer", "Lamb",
    "LambOptimizer", "LarsMomentum", "LarsMomentumOptimizer", "LookaheadOptimizer",
    "ModelAverage", "Momentum", "MomentumOptimizer", "Optimizer", "RMSProp",
    "RMSPropOptimizer", "RecomputeOptimizer", "SGDOptimizer",
]
