"""ParamAttr: how a layer should create its parameter (name, initializer, lr, regularizer)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class ParamAttr:
    name: str | None = None
    initializer: Any = None
    learning_rate: float = 1.0
    regularizer: Any = None
    trainable: bool = True

    @staticmethod
    def to_attr(arg) -> ParamAttr | None:
        """Accept what Paddle layers accept: None, a name, an initializer, a ParamAttr, or False."""
        if arg is None:
            return ParamAttr()
        if arg is False:
            return None
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if callable(arg):
            return ParamAttr(initializer=arg)
        raise TypeError(f"cannot make a ParamAttr from {arg!r}")
