"""Fluid's `fluid.optimizer`: the optimizers (base.py, sgd.py, adaptive.py), their
Fluid `*Optimizer` aliases, and ModelAverage (model_average.py; not an Optimizer: it
adds accumulation ops after another optimizer's updates)."""

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
from paddle_ir.optimizer.model_average import ModelAverage
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
    "Dpsgd", "DpsgdOptimizer", "Ftrl", "FtrlOptimizer", "Lamb", "LambOptimizer",
    "LarsMomentum", "LarsMomentumOptimizer", "ModelAverage", "Momentum", "MomentumOptimizer",
    "Optimizer", "RMSProp", "RMSPropOptimizer", "SGDOptimizer",
]
