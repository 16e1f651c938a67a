"""`paddle-ir view MODEL`: open a program in Netron, through a Paddle-format copy.

Netron reads Paddle's .pdmodel (and the .pdiparams beside it for the weights).
It serves the directory of the file it is given over HTTP, on 127.0.0.1 only
(loopback) and without authentication: any local user can read what that
directory holds while it runs. So Netron is always given a private copy (a
0700 temporary directory, removed when Netron stops) holding only the model's
files: a paddle-ir program is written into it as a Paddle one, a Paddle model's
files are copied, read as every model reader reads them (inside the model's
directory, regular files only). Netron is an optional extra:
`pip install 'paddle-ir[view]'`.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from paddle_ir.cli import paddle_input
from paddle_ir.core.atomic import open_regular
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.executor.scope import Scope
from paddle_ir.io.inference_model import load_inference_model
from paddle_ir.model_files.params_file import MAIN_FILENAME, MODEL_FILENAME, persistable_names
from paddle_ir.model_files.program_file import load_program


def add_parser(subparsers, common) -> None:
    p = subparsers.add_parser(
        "view", parents=[common], help="open a program in Netron (pip install netron); "
        "its server is loopback-only and unauthenticated, and serves a private copy of the "
        "model's files", description=__doc__.split("\n", 2)[2])
    p.add_argument("path", help="a paddle-ir model directory or .pb, or a Paddle model")
    paddle_input.add_format_option(p)
    p.set_defaults(handler=view_command)


def netron_launcher(path: str) -> None:
    """Serve `path` with Netron and open the browser; returns when Netron stops."""
    try:
        import netron
    except ImportError:
        raise PaddleIRError(
            "`paddle-ir view` needs Netron, which is not installed: pip install "
            "'paddle-ir[view]' (or pip install netron); `paddle-ir dump --format dot -o "
            "x.svg` draws the graph without it") from None
    netron.start(path)
    netron.wait()


def paddle_copy(path: str, directory: str, model_format: str = "auto") -> str:
    """The .pdmodel to show for `path`: the model itself if it is Paddle's, else a copy
    written into `directory` (with its parameters when `path` has them)."""
    paddle = paddle_input.paddle_model(path, model_format)
    if paddle is not None:
        return _copy_paddle_model(paddle, directory)
    from paddle_ir.paddle_format import write_paddle_model

    scope = Scope()
    with_params = os.path.isdir(path) and os.path.exists(os.path.join(path, MODEL_FILENAME))
    if with_params:
        program, _, _ = load_inference_model(path, scope=scope, optimize=False)
    else:  # a bare program, or a training job's main program: shown without weights
        program = load_program(os.path.join(path, MAIN_FILENAME)
                                  if os.path.isdir(path) else path)
    stem = os.path.splitext(os.path.basename(os.path.normpath(path)))[0] or "model"
    return write_paddle_model(os.path.join(directory, stem), program, scope,
                              params=with_params, staged=False)[-1]  # a private copy


def _copy_into(source: str, root: str, target: str) -> None:
    """Copy the regular file `source` (inside `root`) to `target`, streaming."""
    import shutil  # only `view` needs it

    with open_regular(source, root) as f, open(target, "xb") as out:
        shutil.copyfileobj(f, out)


def _copy_paddle_model(model, directory: str) -> str:
    """Copy a Paddle model's own files, and nothing beside them, into `directory`; the
    copy's program file."""
    from paddle_ir.core.names import file_name_problem
    from paddle_ir.paddle_format import load_paddle_program
    from paddle_ir.paddle_format.files import FLUID_MODEL, PDIPARAMS, PDMODEL

    root = model.directory
    if model.layout == "fluid":
        target = os.path.join(directory, FLUID_MODEL)
        names = []
        if model.params_file is not None:
            names = [os.path.basename(model.params_file)]
        elif model.params_dir is not None:  # one file per persistable, named after it
            program = load_paddle_program(model.program_file)
            names = [n for n in persistable_names(program) if file_name_problem(n) is None
                     and os.path.exists(os.path.join(root, n))]
        for name in names:
            _copy_into(os.path.join(root, name), root, os.path.join(directory, name))
    else:
        target = os.path.join(directory, os.path.basename(model.program_file))
        if model.params_file is not None:
            _copy_into(model.params_file, root, target[: -len(PDMODEL)] + PDIPARAMS)
    with open(target, "xb") as out:
        out.write(model.read_program())
    return target


def view_model(path: str, launcher: Callable[[str], None] | None = None,
               model_format: str = "auto") -> None:
    """Write the Paddle-format copy and hand it to `launcher` (Netron by default)."""
    import tempfile  # only `view` needs it: the CLI's other commands start without it

    launch = netron_launcher if launcher is None else launcher
    with tempfile.TemporaryDirectory(prefix="paddle-ir-view-") as directory:
        launch(paddle_copy(path, directory, model_format))


def view_command(args) -> int:
    view_model(args.path, model_format=args.model_format)
    return 0
