"""The run-time layer: scopes and the executor."""

if __name__ != "paddle_ir.executor":  # the repository root on sys.path must not make a second copy
    raise ImportError(f"executor/ installs as paddle_ir.executor; import that, not {__name__}")

from paddle_ir.executor.dispatch import StorageFallbackWarning
from paddle_ir.executor.executor import Executor
from paddle_ir.executor.plan import KernelChoice
from paddle_ir.executor.scope import Scope, ScopeVariable, global_scope, scope_guard

__all__ = ["Executor", "KernelChoice", "Scope", "ScopeVariable", "StorageFallbackWarning",
           "global_scope", "scope_guard"]
