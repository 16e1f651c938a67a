"""Program files (`.pb`): writing one atomically, reading one as its loaders need it.

`load_program` refuses what running would trip over later (a block attribute
naming no sub-block of its op's block) and warns about ProgramDesc versions
paddle-ir does not know; io re-exports both functions.
"""

from __future__ import annotations

import os
import warnings

from paddle_ir.core import tensor_io
from paddle_ir.core.atomic import open_regular
from paddle_ir.core.errors import ProgramFormatError
from paddle_ir.framework import PROGRAM_FORMAT_VERSION, Program
from paddle_ir.proto import framework_pb2 as pb


def save_program(path, program: Program) -> None:
    """Write `program` as a serialized ProgramDesc (deterministic bytes), atomically."""
    data = program.serialize()
    tensor_io.atomic_write(path, lambda out: out.write(data))


def load_program(path, root=None) -> Program:
    """Read a `.pb` file; a file that is not a ProgramDesc raises ProgramFormatError.

    With `root` (the model directory it belongs to), a link out of it is refused.
    """
    with open_regular(path, root) as f:
        data = f.read()
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


def _warn_about_version(path, desc: pb.ProgramDesc) -> None:
    version = desc.version.version
    if version not in (0, PROGRAM_FORMAT_VERSION) and version not in _KNOWN_VERSIONS:
        warnings.warn(f"{os.fspath(path)} declares ProgramDesc version {version}, which "
                      f"paddle-ir does not know (it writes {PROGRAM_FORMAT_VERSION} and reads "
                      f"Paddle's 1.x-3.x); reading it as if it were known", stacklevel=3)


def check_loaded(desc: pb.ProgramDesc) -> None:
    """What running a program needs that parsing does not check: every block attribute
    names a sub-block of the op's own block (a bad one would recurse or index out of range)."""
    count = len(desc.blocks)
    for b, block in enumerate(desc.blocks):
        for i, op in enumerate(block.ops):
            for attr in op.attrs:
                if attr.type == pb.BLOCK:
                    refs = [attr.block_idx]
                elif attr.type == pb.BLOCKS:
                    refs = list(attr.blocks_idx)
                else:
                    continue
                for ref in refs:
                    if not 0 < ref < count or desc.blocks[ref].parent_idx != b:
                        raise ProgramFormatError(
                            f"block {b}, op #{i} {op.type}: attribute {attr.name!r} refers to "
                            f"block {ref}, which is not a sub-block of block {b} (the program "
                            f"has blocks 0..{count - 1})",
                            hint="`paddle-ir check` lists every problem of the program")
