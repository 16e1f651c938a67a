"""The names file beside a combined checkpoint: which variable each record holds.

A combined file (Paddle's layout) holds records in sorted name order and no
names, so it loads only into a program declaring exactly the persistables it
was saved from. Fluid's checkpoints (one file per variable) load into any
program declaring a subset, which is how an inference program takes its
parameters from a training checkpoint. `save_persistables` therefore writes
`FILE.names` beside `FILE` in the same staged save: one JSON object

    {"format": 1, "names": {"LOD_TENSOR": [...], "SELECTED_ROWS": [...], "CSR": [...]}}

listing, per variable type, the names of the records in file order. A loader
that finds it reads every record and keeps the ones its program declares.
Read with json (data only, never evaluated), bounded in size and checked.
"""

from __future__ import annotations

import os

from paddle_ir.core.atomic import open_regular
from paddle_ir.core.errors import TensorFormatError

SUFFIX = ".names"
MAX_BYTES = 64 << 20  # names of millions of variables; a larger file is not ours


def encode(names_by_type: dict[str, list[str]]) -> bytes:
    import json  # only saves and loads of checkpoints need it, not start-up

    return json.dumps({"format": 1, "names": names_by_type}, indent=0).encode()


def read(path: str, root=None) -> dict[str, list[str]] | None:
    """The names recorded beside the combined file `path`, or None if it has no names file."""
    target = os.fspath(path) + SUFFIX
    try:
        f = open_regular(target, root)
    except FileNotFoundError:
        return None
    with f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise TensorFormatError(f"{target} is larger than {MAX_BYTES} bytes; it is not a "
                                "names file paddle-ir wrote")
    import json

    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise TensorFormatError(f"{target} is not a names file (JSON): {exc}") from None
    names = doc.get("names") if isinstance(doc, dict) and doc.get("format") == 1 else None
    if not (isinstance(names, dict) and all(
            isinstance(k, str) and isinstance(v, list) and all(isinstance(n, str) for n in v)
            for k, v in names.items())):
        raise TensorFormatError(f"{target} must hold {{\"format\": 1, \"names\": {{type: "
                                "[names]}}}}, as save_persistables writes it")
    return names
