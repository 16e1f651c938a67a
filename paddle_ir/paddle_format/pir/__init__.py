"""Paddle 3.x's PIR programs (`model.json` + `model.pdiparams`), read into paddle-ir.

    desc = read_pir_program(data, "DIR/model.json")   # -> paddle-ir's ProgramDesc

document.py checks and decodes the JSON, op_table.py is the one table from `pd_op.*`
ops to paddle-ir's, translate.py turns SSA values into named variables through it, and
program_ops.py handles the ops that shape the program (parameters, data, fetch,
constants, vectors). The parameters are Paddle's combined .pdiparams, read as for a
.pdmodel.
"""

from __future__ import annotations

from paddle_ir.paddle_format.pir.document import KNOWN_VERSIONS, parse_document
from paddle_ir.paddle_format.pir.op_table import OPS
from paddle_ir.paddle_format.pir.translate import translate

PIR_SUFFIX = ".json"


def looks_like_pir(data: bytes) -> bool:
    """Whether a program file's bytes are JSON (a PIR program) rather than a protobuf."""
    return data.lstrip()[:1] == b"{"


def read_pir_program(data: bytes, source: str):
    """paddle-ir's ProgramDesc for the bytes of a PIR `.json` program."""
    return translate(parse_document(data, source))


__all__ = ["KNOWN_VERSIONS", "OPS", "PIR_SUFFIX", "looks_like_pir", "read_pir_program"]
