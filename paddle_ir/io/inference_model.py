"""Fluid's save_inference_model / load_inference_model: a program pruned to feed -> fetch,
in test mode, with the parameters it reads.

    inference model   model.pb         the program pruned to feed -> fetch, test mode,
                                       naming its feed and fetch targets
                      params           its persistable LoDTensors (Paddle's combined
                                       format: paddle_ir.model_files.params_file)

The program and its parameters replace the previous ones in the directory as one
whole (params_file.commit_save). Both functions take Fluid's signatures:
`model_filename=None` and `params_filename=None` (the names above then), Fluid's
positional order (model_filename after main_program / executor); a string where
paddle-ir takes `scope` is read as the model file name. `format="paddle"`, `"pir"` and
`"fluid"` write Paddle's formats instead, and a Paddle model is loaded too,
through paddle_ir.paddle_format (imported only then: it is large).
"""

from __future__ import annotations

import os

from paddle_ir.core.errors import InvalidProgramError, ProgramFormatError
from paddle_ir.executor.scope import global_scope
from paddle_ir.framework import Program, default_main_program, names_of
from paddle_ir.model_files.layouts import MODEL_NAMES
from paddle_ir.model_files.params_file import (
    MODEL_FILENAME,
    PARAMS_FILENAME,
    commit_save,
    load_vars_file,
    read_saved,
    vars_writers,
)
from paddle_ir.model_files.program_file import load_program
from paddle_ir.passes.prune import prune

__all__ = ["load_inference_model", "save_inference_model"]


def save_inference_model(dirname, feeded_var_names, target_vars, executor=None,
                         main_program: Program | None = None, scope=None,
                         model_filename: str | None = None,
                         params_filename: str | None = None,
                         export_for_deployment: bool = True, program_only: bool = False,
                         format: str = "paddle-ir") -> Program:  # noqa: A002 - the user's word
    """Save the feed -> fetch subgraph of `main_program` and the parameters it reads.

    The saved program is a test-mode clone (backward and optimizer ops
    dropped, `is_test` set) pruned to the ops that compute `target_vars` from
    `feeded_var_names`, with feed_target_names and fetch_target_names set.
    Returns that program. `executor` is accepted for Paddle's signature; the
    values come from `scope` (the global scope by default). The program and
    its parameters replace the previous ones in `dirname` as one whole.
    `format="paddle"` writes Paddle's DIR/model.pdmodel + DIR/model.pdiparams
    instead, `format="pir"` Paddle 3's DIR/model.json + DIR/model.pdiparams (what
    paddle.jit.load and paddle.static.load_inference_model read with PIR on), and
    `format="fluid"` fluid 1.x's DIR/__model__ + one file per parameter
    (paddle_ir.paddle_format).

    `export_for_deployment` is accepted (the saved program is always the pruned
    test-mode one); `program_only=True` is refused rather than ignored.
    """
    if isinstance(scope, str):  # Fluid's sixth and seventh: model_filename, params_filename
        scope, model_filename, params_filename = None, scope, model_filename
    if program_only:
        raise InvalidProgramError("save_inference_model(program_only=True) is not supported; "
                                  "the program is saved with its parameters")
    model_filename = MODEL_FILENAME if model_filename is None else model_filename
    params_filename = PARAMS_FILENAME if params_filename is None else params_filename
    program = default_main_program() if main_program is None else main_program
    feeds = names_of(feeded_var_names, "feeded_var_names")
    targets = names_of(target_vars, "target_vars")
    if not targets:
        raise InvalidProgramError("save_inference_model needs at least one target variable")
    pruned = prune(program, feeds, targets)
    scope = global_scope() if scope is None else scope
    if format != "paddle-ir":
        from paddle_ir import paddle_format

        paddle_format.save_inference_model(dirname, pruned, scope, format, model_filename)
        return pruned
    files, every, _ = vars_writers(params_filename, pruned, scope)
    data = pruned.serialize()
    files[model_filename] = lambda out: out.write(data)
    # The other layouts' model files go: the directory then loads as this model.
    commit_save(dirname, files, every + [model_filename, *MODEL_NAMES])
    return pruned


def load_inference_model(dirname, executor=None, scope=None, model_filename=None,
                         params_filename=None, pserver_endpoints=None, *,
                         optimize: bool = True):
    """(program, feed_names, fetch_targets) of a saved model, its parameters in `scope`.

    `dirname` may also name a Paddle model (a .pdmodel, its path prefix, or a fluid
    1.x __model__ directory), read through paddle_ir.paddle_format.

    With `optimize` (the default) an inference program comes back rewritten by the
    load-time passes of paddle_ir.passes.inference (batch_norm folded into the
    convolution before it, test-mode dropout and identity ops removed), its folded
    parameters in `scope`; `optimize=False` returns the program as saved.
    """
    if isinstance(scope, str):  # Fluid's third positional argument is model_filename
        scope, model_filename, params_filename = None, scope, model_filename
    if scope is None:
        scope = global_scope()
    program, feed_names, fetch_targets = _load(dirname, scope, model_filename, params_filename)
    if not optimize:
        return program, feed_names, fetch_targets
    from paddle_ir.passes.inference import optimize_inference

    fetch_names = [v.name for v in fetch_targets]
    optimized = optimize_inference(program, scope, keep=list(feed_names) + fetch_names)
    if optimized is program:
        return program, feed_names, fetch_targets
    block = optimized.global_block()
    return optimized, list(optimized.feed_target_names), [block.var(n) for n in fetch_names]


def _load(dirname, scope, model_filename, params_filename):
    model_filename = MODEL_FILENAME if model_filename is None else model_filename
    params_filename = PARAMS_FILENAME if params_filename is None else params_filename
    scope = global_scope() if scope is None else scope
    if not os.path.isdir(dirname):
        from paddle_ir import paddle_format

        if paddle_format.is_paddle_model(dirname):  # a .pdmodel or its prefix
            return paddle_format.load_inference_model(dirname, scope)
        raise ProgramFormatError(f"{os.fspath(dirname)} is not a directory: there is no "
                                 f"inference model to load",
                                 hint="save one with save_inference_model(dirname, ...)")

    def read_files(directory):
        if not os.path.exists(os.path.join(directory, model_filename)):
            from paddle_ir import paddle_format

            if paddle_format.is_paddle_model(directory):
                return paddle_format.load_inference_model(directory, scope)[0]
        program = load_program(os.path.join(directory, model_filename), directory)
        load_vars_file(os.path.join(directory, params_filename), program, scope, directory)
        return program

    program = read_saved(dirname, read_files)
    block = program.global_block()
    fetch_targets = [block.var(n) for n in program.fetch_target_names]
    return program, program.feed_target_names, fetch_targets
