"""Fluid's `name_scope` (fluid.name_scope, fluid.framework.name_scope)."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def name_scope(prefix: str | None = None):
    """Fluid's name_scope: groups ops for visualisation only; names and results are unchanged."""
    yield
