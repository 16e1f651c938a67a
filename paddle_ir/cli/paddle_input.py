"""How the CLI tells a Paddle model from a paddle-ir one (`--format`, else by its files).

A path is read as Paddle's when `--format paddle` (or `pir`) says so, or, by default,
when it holds no paddle-ir program (model.pb / main.pb) and names a Paddle model: a
.pdmodel or PIR .json file, its path prefix, a directory with one, or a fluid 1.x
__model__ dir. `--format pir` insists that the program is Paddle 3's PIR JSON.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from paddle_ir.model_files.params_file import MAIN_FILENAME, MODEL_FILENAME

if TYPE_CHECKING:
    from paddle_ir.paddle_format import PaddleModel

FORMATS = ("auto", "paddle-ir", "paddle", "pir")


def add_format_option(parser, flag: str = "--format") -> None:
    parser.add_argument(flag, dest="model_format", choices=FORMATS, default="auto",
                        help="the model's file format (default: told by its files)")


def _ours(path: str) -> bool:
    if os.path.isdir(path):
        return any(os.path.exists(os.path.join(path, n))
                   for n in (MODEL_FILENAME, MAIN_FILENAME))
    return path.endswith(".pb")


def paddle_model(path: str, model_format: str = "auto") -> PaddleModel | None:
    """The Paddle model `path` names, or None when it is to be read as paddle-ir's."""
    if model_format == "paddle-ir" or (model_format != "paddle" and _ours(path)):
        return None
    # paddle_format (and Paddle's schema) loads only when a path may be Paddle's: a
    # paddle-ir model starts the CLI without it.
    from paddle_ir.paddle_format import locate, require_model

    if model_format == "pir":
        return _pir_model(require_model(path))
    return require_model(path) if model_format == "paddle" else locate(path)


def _pir_model(model):
    from paddle_ir.core.atomic import open_regular
    from paddle_ir.core.file_kinds import is_pir_json
    from paddle_ir.paddle_format import PaddleFormatError

    with open_regular(model.program_file) as f:
        head = f.read(256)
    if not is_pir_json(head):
        raise PaddleFormatError(
            f"--format pir, but {model.program_file} is not a Paddle 3 PIR program (JSON "
            f"opening with base_code)", hint="leave --format out, or use --format paddle "
                                             "for a .pdmodel or fluid __model__")
    return model
