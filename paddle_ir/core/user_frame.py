"""The user's frame: the innermost Python frame outside paddle-ir itself.

Ops record it as their creation site (`file:line`), and warnings point at it.
paddle-ir's own code is the `paddle_ir` package directory; in a source checkout
`ops/` and `executor/` sit beside it and count as paddle-ir's too. Frames of
the import machinery and of contextlib (`with loop.block():` appends an op
from a context manager's exit) are skipped as well.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ROOT = os.path.dirname(_PACKAGE)
# Installed, ops and executor are inside the package; in a checkout they are its siblings
# (and only then: an installed site-packages may hold unrelated top-level `ops`).
_OWN_DIRS = (_PACKAGE + os.sep,) + (() if os.path.isdir(os.path.join(_PACKAGE, "ops")) else
                                    tuple(os.path.join(_ROOT, d) + os.sep
                                          for d in ("ops", "executor")))
_CONTEXTLIB = os.path.abspath(contextlib.__file__)


def _classify(filename: str) -> str | None:
    own = (filename.startswith(_OWN_DIRS) or filename == _CONTEXTLIB
           or "importlib" in filename)
    return None if own else filename


# Cached: every appended op walks the stack, and an abspath per frame made building
# (and `paddle-ir check`, which rebuilds) cost more than running the program. Only
# absolute names are cached: a relative one (a script run by path) depends on the cwd.
_classify_absolute = functools.lru_cache(maxsize=4096)(_classify)


def _user_path(co_filename: str) -> str | None:
    """The absolute path of a user's code file, or None for paddle-ir's own files."""
    if os.path.isabs(co_filename):
        return _classify_absolute(os.path.normpath(co_filename))
    return _classify(os.path.abspath(co_filename))


def user_stacklevel() -> int:
    """`warnings.warn`'s stacklevel, called by the function that calls warn."""
    frame, level = sys._getframe(1), 1
    while frame is not None and _user_path(frame.f_code.co_filename) is None:
        frame, level = frame.f_back, level + 1
    return level


def creation_site() -> str | None:
    """`file:line` of the user's frame, relative to the working directory when it is near."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = _user_path(frame.f_code.co_filename)
        if filename is not None:
            try:
                shown = os.path.relpath(filename)
            except ValueError:  # another drive on Windows
                shown = filename
            if shown.startswith(".." + os.sep + ".."):
                shown = filename
            return f"{shown}:{frame.f_lineno}"
        frame = frame.f_back
    return None
