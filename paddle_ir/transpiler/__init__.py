"""Fluid's DistributeTranspiler: split a training program for parameter servers."""

from paddle_ir.transpiler.distribute_transpiler import DistributeTranspiler
from paddle_ir.transpiler.placement import DistributeTranspilerConfig

__all__ = ["DistributeTranspiler", "DistributeTranspilerConfig"]
