"""Program files (`.pb`): writing one atomically, reading one as its loaders need it.

`load_program` refuses what running would trip over later (a block attribute
naming no sub-block of its op's block) and warns about ProgramDesc versions
paddle-ir does not know; io re-exports both functions.
"""

from __future__ import annotations

import os
import warnings

from paddle_ir.core import tensor_io
from paddle_ir.core.atomic import read_regular
from paddle_ir.core.block_tree import check_block_refs
from paddle_ir.core.errors import ProgramFormatError
from paddle_ir.framework import PROGRAM_FORMAT_VERSION, Program
from paddle_ir.proto import framework_pb2 as pb

# protobuf refuses a message of 2 GiB or more: a larger file is no program (and a device or
# a growing file behind the name is not read without end).
MAX_PROGRAM_BYTES = 2**31 - 1
PROGRAM_FORMAT_NAME = "a ProgramDesc"


def read_program_bytes(path, root=None) -> bytes:
    """The bytes of a program file: a regular file (inside `root` when given), bounded."""
    return read_regular(path, MAX_PROGRAM_BYTES, PROGRAM_FORMAT_NAME, root)


def save_program(path, program: Program) -> None:
    """Write `program` as a serialized ProgramDesc (deterministic bytes), atomically."""
    data = program.serialize()
    tensor_io.atomic_write(path, lambda out: out.write(data))


def load_program(path, root=None) -> Program:
    """Read a `.pb` file; a file that is not a ProgramDesc raises ProgramFormatError.

    With `root` (the model directory it belongs to), a link out of it is refused.
    """
    data = read_program_bytes(path, root)
    try:
        program = Program.parse(data)
        check_loaded(program.desc)
    except ProgramFormatError as exc:
        raise ProgramFormatError(f"{os.fspath(path)}: {exc.message}") from None
    _warn_about_version(path, program.desc)
    return program


# Versions a ProgramDesc may declare: none (0, Paddle 1.x), paddle-ir's own, and Paddle's
# 1.x-3.x (major * 1,000,000 + minor * 1,000 + patch).
_KNOWN_VERSIONS = range(1_000_000, 4_000_000)


def version_warning(desc: pb.ProgramDesc) -> str | None:
    """What to say about a ProgramDesc version paddle-ir does not know, or None. One text
    for every reader: the loaders warn with it, `paddle-ir check` prints it."""
    version = desc.version.version
    if version in (0, PROGRAM_FORMAT_VERSION) or version in _KNOWN_VERSIONS:
        return None
    return (f"declares ProgramDesc version {version}, which paddle-ir does not know (it "
            f"writes {PROGRAM_FORMAT_VERSION} and reads Paddle's 1.x-3.x); reading it as if "
            f"it were known")


def _warn_about_version(path, desc: pb.ProgramDesc) -> None:
    warning = version_warning(desc)
    if warning is not None:
        warnings.warn(f"{os.fspath(path)} {warning}", stacklevel=3)


def check_loaded(desc: pb.ProgramDesc) -> None:
    """What running a program needs that parsing does not check: every block attribute
    names a sub-block of the op's own block (a bad one would recurse or index out of range)."""
    check_block_refs(desc)
