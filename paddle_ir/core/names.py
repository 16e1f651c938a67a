"""What a variable may be called, checked when it is created (build time).

A name travels into files: an .npz member (`--out`), a line of `dump`, and,
for a persistable variable, a file name in Paddle's one-file-per-variable
layout. So every name is non-empty text without NUL and at most
MAX_NAME_LENGTH characters, and a persistable name is also a plain file name
(no path separator, not "." or "..", at most 255 bytes). Paddle's own names
(`fc_0.w_0`, `x@GRAD@RENAME@1`, `save_infer_model/scale_0.tmp_0`, which is not
persistable) all pass.
"""

from __future__ import annotations

from paddle_ir.core.errors import InvalidProgramError

MAX_NAME_LENGTH = 4096
MAX_FILE_NAME_BYTES = 255
MAX_DIMS = 32  # what the tensor readers accept (numpy 1.x's limit)


def check_var_name(name: str, persistable: bool = False) -> None:
    """Raise InvalidProgramError naming what is wrong with `name`."""
    bad = None
    if not isinstance(name, str) or not name:
        bad = "a variable name must be a non-empty string"
    elif "\0" in name:
        bad = "a variable name may not contain a NUL character"
    elif len(name) > MAX_NAME_LENGTH:
        bad = f"a variable name has at most {MAX_NAME_LENGTH} characters, got {len(name)}"
    elif persistable and ("/" in name or "\\" in name or name in (".", "..")):
        bad = ("a persistable variable's name becomes a file name when it is saved one file "
               "per variable, so it may not contain / or \\ or be . or ..")
    elif persistable and len(name.encode("utf-8", "surrogateescape")) > MAX_FILE_NAME_BYTES:
        bad = (f"a persistable variable's name becomes a file name, so it has at most "
               f"{MAX_FILE_NAME_BYTES} bytes")
    if bad:
        raise InvalidProgramError(f"invalid variable name {name[:80]!r}: {bad}")


def file_name_problem(name: str) -> str | None:
    """Why `name` cannot be a file directly inside a directory, or None when it can.

    A reader joins a variable's name (a fluid per-variable file, a `filename=`)
    to its directory: a separator, "..", an absolute path or a NUL would take it
    elsewhere, so such a name is refused before anything is opened.
    """
    if not isinstance(name, str) or not name:
        return "it is empty"
    if "\0" in name:
        return "it contains a NUL character"
    if "/" in name or "\\" in name or name in (".", ".."):
        return "it is not a plain file name (it contains / or \\, or is . or ..)"
    if len(name.encode("utf-8", "surrogateescape")) > MAX_FILE_NAME_BYTES:
        return f"it is longer than {MAX_FILE_NAME_BYTES} bytes"
    return None


def check_var_dims(name: str, dims) -> None:
    if len(dims) > MAX_DIMS:
        raise InvalidProgramError(f"variable {name[:80]!r} has {len(dims)} dims; paddle-ir "
                                  f"reads and writes tensors of at most {MAX_DIMS} dims")
