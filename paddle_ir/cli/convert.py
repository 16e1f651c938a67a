"""`paddle-ir convert IN OUT`: a Paddle model to paddle-ir's files, or back.

    paddle-ir convert DIR/model.pdmodel OUT_DIR     Paddle -> OUT_DIR/model.pb + params
    paddle-ir convert fluid_dir OUT_DIR             fluid 1.x __model__ dir -> the same
    paddle-ir convert MODEL_DIR OUT/model           paddle-ir -> OUT/model.pdmodel +
                                                    OUT/model.pdiparams (Paddle 2.x/3.x)
    paddle-ir convert MODEL_DIR OUT --layout fluid  paddle-ir -> OUT/__model__ + a file
                                                    per parameter (fluid 1.x)
    paddle-ir convert OLD_MODEL OUT/model --to pir  any model (a .pdmodel, a fluid 1.x
                                                    directory, paddle-ir's) -> Paddle 3's
                                                    OUT/model.json + OUT/model.pdiparams

Which way is told by IN (see --format). A bare program file converts alone
(OUT.pb, or OUT.pdmodel) unless --params names its parameter file.
"""

from __future__ import annotations

import argparse
import os

from paddle_ir.cli import paddle_input
from paddle_ir.executor.scope import Scope
from paddle_ir.io.inference_model import load_inference_model
from paddle_ir.model_files.layouts import MODEL_NAMES
from paddle_ir.model_files.params_file import (
    MODEL_FILENAME,
    PARAMS_FILENAME,
    commit_save,
    load_vars_file,
    vars_writers,
)
from paddle_ir.model_files.program_file import load_program, save_program


def add_parser(subparsers, common) -> None:
    p = subparsers.add_parser(
        "convert", parents=[common], help="convert a Paddle model to paddle-ir's files or back",
        description=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="a Paddle model, or a paddle-ir model directory or .pb")
    p.add_argument("output", help="where to write (a directory, a prefix, or a .pb)")
    p.add_argument("--layout", choices=("paddle", "fluid", "pir"), default="paddle",
                   help="Paddle files to write: PREFIX.pdmodel + .pdiparams (default), a "
                        "fluid 1.x directory, or Paddle 3's PREFIX.json + .pdiparams")
    p.add_argument("--to", choices=("pir",), default=None,
                   help="pir: write Paddle 3's PIR (PREFIX.json + .pdiparams) from any model "
                        "paddle-ir reads: the migration of old Paddle models to Paddle 3")
    p.add_argument("--params", metavar="FILE", help="parameter file for a bare program file")
    paddle_input.add_format_option(p)
    p.set_defaults(handler=convert_command)


def _read_paddle(model, params: str | None):
    """(program, scope, whether parameters were loaded) of a Paddle model."""
    from paddle_ir.paddle_format import load_paddle_params, load_paddle_program

    program = load_paddle_program(model.program_file)
    scope = Scope()
    if params:
        load_vars_file(params, program, scope)
    elif model.params_file or model.params_dir:
        load_paddle_params(model, program, scope)
    return program, scope, bool(params or model.params_file or model.params_dir)


def _from_paddle(model, output: str, params: str | None) -> list[str]:
    program, scope, loaded = _read_paddle(model, params)
    if not loaded and output.endswith(".pb"):  # a program alone (a training main program)
        os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
        save_program(output, program)
        return [output]
    if not loaded:
        scope = None  # the program alone: its directory loads no stale parameters
    data = program.serialize()
    files, every = {MODEL_FILENAME: lambda out: out.write(data)}, []
    if scope is not None:
        writers, every, _ = vars_writers(PARAMS_FILENAME, program, scope)
        files = {**writers, **files}
    # As save_inference_model: the model replaces what `output` held, in any layout, whole.
    commit_save(output, files, [*every, *MODEL_NAMES])
    return [os.path.join(output, name) for name in files]


def _to_paddle(path: str, output: str, layout: str, params: str | None) -> list[str]:
    from paddle_ir.paddle_format import write_paddle_model

    scope = Scope()
    if os.path.isdir(path):
        program, _, _ = load_inference_model(path, scope=scope, optimize=False)
    else:
        program = load_program(path)
        if params:
            load_vars_file(params, program, scope)
    return write_paddle_model(output, program, scope, layout)  # a staged save, whole


def _to_pir(paddle, path: str, output: str, params: str | None) -> list[str]:
    """Any model paddle-ir reads, written as Paddle 3's PIR program and parameters."""
    from paddle_ir.paddle_format import write_paddle_model

    if paddle is None:
        return _to_paddle(path, output, "pir", params)
    program, scope, loaded = _read_paddle(paddle, params)
    return write_paddle_model(output, program, scope, "pir", params=loaded)


def convert_command(args) -> int:
    paddle = paddle_input.paddle_model(args.input, args.model_format)
    if args.to == "pir" or args.layout == "pir":
        written = _to_pir(paddle, args.input, args.output, args.params)
    elif paddle is not None:
        written = _from_paddle(paddle, args.output, args.params)
    else:
        written = _to_paddle(args.input, args.output, args.layout, args.params)
    for path in written:
        print(f"wrote {path}")
    return 0
