"""Errors for a Fluid name paddle-ir lacks: they name the closest names that exist.

A Fluid program reaching for `fluid.layers.sums` should learn about `sum` and
`square_error_cost` there and then, not from a bare AttributeError.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from paddle_ir.core.errors import PaddleIRError


class MissingNameError(PaddleIRError, AttributeError):
    """A module of paddle-ir has no such name (an AttributeError, so hasattr() still works)."""

    category = "MissingNameError"


def missing_attribute(module: str, name: str, names: Iterable[str]) -> AttributeError:
    """The error for `module.name`; dunder lookups get a plain AttributeError (import machinery)."""
    if name.startswith("__"):
        return AttributeError(f"module {module!r} has no attribute {name!r}")
    pool = sorted(set(names))
    close = difflib.get_close_matches(name, pool, n=4, cutoff=0.6)
    # Prefix or substring matches catch what edit distance misses (sums -> sum).
    close += [n for n in pool if n not in close and (n.startswith(name[:3]) and
                                                      (name in n or n in name))][:4 - len(close)]
    hint = (f"the closest names that exist: {', '.join(close)}" if close
            else f"see dir({module}) for what exists")
    return MissingNameError(f"{module} has no attribute {name!r}: paddle-ir does not provide "
                            f"it", hint=hint)
