"""Fluid 1.6-1.7's top-level layers: `fluid.data`, `fluid.embedding`, `fluid.one_hot`.

They differ from their `fluid.layers` namesakes as in Fluid: `fluid.data` takes
the shape as given (no batch dim prepended), and `fluid.embedding` /
`fluid.one_hot` take ids of any shape and append a dim (lookup_table_v2,
one_hot_v2) where the layers versions replace a trailing dim of 1.
"""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.framework.name_scope import name_scope  # noqa: F401 - fluid.name_scope
from paddle_ir.layers.io import fluid_data as data
from paddle_ir.layers.nn.dense import embedding as _embedding
from paddle_ir.layers.nn.dense import one_hot_v2

__all__ = ["data", "embedding", "memory_optimize", "name_scope", "one_hot", "release_memory"]


def embedding(input: Variable, size, is_sparse: bool = False,  # noqa: A002 - Fluid's name
              is_distributed: bool = False, padding_idx: int | None = None, param_attr=None,
              dtype="float32") -> Variable:
    """Rows of a [vocab, dim] table for int64 ids of any shape: Out = ids.shape + [dim]."""
    return _embedding(input, size, is_sparse=is_sparse, is_distributed=is_distributed,
                      padding_idx=padding_idx, param_attr=param_attr, dtype=dtype,
                      ids_any_shape=True)


def one_hot(input: Variable, depth: int, allow_out_of_range: bool = False) -> Variable:  # noqa: A002
    """0/1 rows of `depth` for ids of any shape: Out = ids.shape + [depth]."""
    return one_hot_v2(input, depth, allow_out_of_range)


def memory_optimize(input_program=None, skip_opt_set=None, print_log: bool = False,
                    level: int = 0, skip_grads: bool = True) -> None:
    """Fluid 1.x's memory_optimize: nothing to do (Fluid 1.6+ made it a no-op too); the
    Executor already frees each temporary after its last reader."""


def release_memory(input_program=None, skip_opt_set=None) -> None:
    """Fluid 1.x's release_memory: nothing to do, as memory_optimize."""

