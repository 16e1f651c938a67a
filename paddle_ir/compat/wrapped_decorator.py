"""Fluid's `fluid.wrapped_decorator`: decorators that keep the decorated function's
signature (Fluid builds them on the `decorator` package; functools.wraps keeps the
name, docstring and `inspect.signature` here)."""

from __future__ import annotations

import contextlib
import functools

__all__ = ["signature_safe_contextmanager", "wrap_decorator"]


def wrap_decorator(decorator_func):
    """Turn `decorator_func(func) -> wrapper` into a decorator whose wrappers keep func's
    name, docstring and signature."""

    def decorate(func):
        return functools.wraps(func)(decorator_func(func))

    return decorate


signature_safe_contextmanager = wrap_decorator(contextlib.contextmanager)
