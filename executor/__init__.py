"""The run-time layer: scopes and the executor."""

from executor.executor import Executor
from executor.plan import KernelChoice, StorageFallbackWarning
from executor.scope import Scope, ScopeVariable, global_scope, scope_guard

__all__ = ["Executor", "KernelChoice", "Scope", "ScopeVariable", "StorageFallbackWarning",
           "global_scope", "scope_guard"]
