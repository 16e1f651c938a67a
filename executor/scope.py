"""Scopes: a tree of name -> variable holders.

`var(name)` creates in this scope; `find_var(name)` walks up to the parents.
Persistable variables (parameters, optimizer state) live in the root scope
that the user passes to `Executor.run`; a run's temporaries never reach it.
"""

from __future__ import annotations

import contextlib

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.selected_rows import SelectedRows


class ScopeVariable:
    """Holds a LoDTensor, a SelectedRows, or nothing yet, and says which."""

    __slots__ = ("name", "value")

    def __init__(self, name: str):
        self.name = name
        self.value: LoDTensor | SelectedRows | None = None

    @property
    def kind(self) -> str | None:
        """'LoDTensor', 'SelectedRows', or None while the variable holds nothing."""
        return None if self.value is None else type(self.value).__name__

    def is_initialized(self) -> bool:
        return self.value is not None

    def set(self, value) -> None:
        self.value = value

    def get_tensor(self) -> LoDTensor:
        """The LoDTensor held here, created empty on first use (Paddle's `get_tensor`)."""
        if self.value is None:
            self.value = LoDTensor()
        if not isinstance(self.value, LoDTensor):
            raise TypeError(f"variable {self.name!r} holds a {self.kind}, not a LoDTensor")
        return self.value

    def get_selected_rows(self) -> SelectedRows:
        if not isinstance(self.value, SelectedRows):
            raise TypeError(f"variable {self.name!r} holds a {self.kind}, not a SelectedRows")
        return self.value

    def __repr__(self) -> str:
        return f"ScopeVariable({self.name!r}, {self.value!r})"


class Scope:
    def __init__(self, parent: Scope | None = None):
        self.parent = parent
        self._vars: dict[str, ScopeVariable] = {}
        self._kids: list[Scope] = []

    def var(self, name: str) -> ScopeVariable:
        """The variable `name` of this scope, created here if this scope lacks it."""
        v = self._vars.get(name)
        if v is None:
            v = self._vars[name] = ScopeVariable(name)
        return v

    def find_var(self, name: str) -> ScopeVariable | None:
        v = self._vars.get(name)
        if v is not None:
            return v
        # Ask the parent (not its dict): a parent may be a running frame (control.py).
        return None if self.parent is None else self.parent.find_var(name)

    def find_local_var(self, name: str) -> ScopeVariable | None:
        return self._vars.get(name)

    def local_var_names(self) -> list[str]:
        return list(self._vars)

    def erase(self, names) -> None:
        for name in names:
            self._vars.pop(name, None)

    def new_scope(self) -> Scope:
        kid = Scope(self)
        self._kids.append(kid)
        return kid

    def drop_kids(self) -> None:
        self._kids.clear()

    @property
    def kids(self) -> list[Scope]:
        return list(self._kids)

    def __contains__(self, name: str) -> bool:
        return self.find_var(name) is not None

    def __repr__(self) -> str:
        return f"Scope({len(self._vars)} vars, {len(self._kids)} kids)"


_global_scope = Scope()


def global_scope() -> Scope:
    return _global_scope


@contextlib.contextmanager
def scope_guard(scope: Scope):
    """Make `scope` the global scope inside the block (Paddle's `scope_guard`)."""
    global _global_scope
    saved, _global_scope = _global_scope, scope
    try:
        yield
    finally:
        _global_scope = saved
