"""Writing Paddle's model files as one staged save, as paddle-ir's own (core/savedir.py).

    layout "paddle"   PREFIX.pdmodel + PREFIX.pdiparams, committed into PREFIX's directory
    layout "fluid"    DIR/__model__ + one file per persistable, committed into DIR
    layout "pir"      PREFIX.json (Paddle 3's PIR, pir/write.py) + PREFIX.pdiparams

The files go into a new generation directory and are committed by replacing
CURRENT; then the directory's top-level names are hard links to the
generation's files, which is where Paddle's own loaders find them
(`paddle.static.load_inference_model(DIR/model)`, fluid 1.x's `__model__`
directory). paddle-ir's readers read the committed generation, so neither a
killed save nor a concurrent one shows them a mix of two models. Hard links
rather than a rename of the whole directory: the directory keeps its inode,
owner and mode, and what else it holds (a checkpoint, the user's files) stays.
Paddle's loaders read the top-level links, which are consistent once a save
has finished (docs/architecture.md, "Saved directories").

A directory-wide save (`save_inference_model(format=...)`, the fluid layout)
drops the other layouts' model files (layouts.MODEL_NAMES), so that the
directory loads as the model just saved whichever loader reads it; a prefix
(`paddle-ir convert IN OUT/model`) replaces its own two files.
"""

from __future__ import annotations

import os

import numpy as np

from paddle_ir.core import tensor_io
from paddle_ir.core.errors import MissingVariableError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.framework import Program
from paddle_ir.model_files.layouts import (
    FLUID_MODEL,
    MODEL_NAMES,
    PADDLE_STEM,
    PDIPARAMS,
    PDMODEL,
    check_variable_file_names,
    commit_model_files,
)
from paddle_ir.model_files.params_file import persistable_names
from paddle_ir.paddle_format.convert import PaddleFormatError, to_paddle
from paddle_ir.paddle_format.files import LAYOUTS, PIR_JSON, _global_scope
from paddle_ir.paddle_format.pir.write import write_pir_program
from paddle_ir.proto import framework_pb2 as pb


def _dense_values(program: Program, scope) -> dict[str, LoDTensor | np.ndarray]:
    sparse = [v.name for b in program.desc.blocks for v in b.vars
              if v.persistable and v.type != pb.VarDesc.LOD_TENSOR]
    if sparse:
        raise PaddleFormatError(
            f"Paddle's inference files hold dense tensors only; the program has sparse or "
            f"structured persistable variables: {sparse[:8]}")
    values = {}
    for name in persistable_names(program):
        holder = scope.find_var(name)
        value = None if holder is None else holder.value
        if value is None:
            raise MissingVariableError(
                f"persistable variable {name!r} has no value in the scope, so it cannot be "
                f"saved", hint="did you run the startup program (or load the parameters)?")
        values[name] = value
    return values


def write_paddle_model(path, program: Program, scope=None, layout: str = "paddle",
                       params: bool = True, whole_directory: bool = False,
                       staged: bool = True) -> list[str]:
    """Save `program` and its persistables from `scope` in Paddle's files, as one whole;
    the paths of the files (the program last).

    layout "paddle": PATH is a prefix (PATH.pdmodel + PATH.pdiparams; a trailing
    .pdmodel is dropped); layout "pir" the same with PATH.json, the program Paddle
    3.x loads with PIR on (its default). layout "fluid": PATH is a directory (__model__ plus one
    file per persistable variable; names that layout cannot hold are refused).
    `params=False` writes the program alone (dropping an older parameter file).
    `whole_directory` (always so for fluid) drops the other layouts' model files.
    `staged=False` writes the plain files alone, for a fresh private directory no
    other process reads (`paddle-ir view`'s copy).
    """
    if layout not in LAYOUTS:
        raise PaddleFormatError(f"unknown Paddle layout {layout!r}; choose one of {LAYOUTS}")
    scope = _global_scope() if scope is None else scope
    values = _dense_values(program, scope) if params else {}
    path = os.fspath(path)
    files = {}
    program_suffix = PIR_JSON if layout == "pir" else PDMODEL
    if layout in ("paddle", "pir"):
        prefix = path[: -len(program_suffix)] if path.endswith(program_suffix) else path
        directory, stem = os.path.split(os.path.abspath(prefix))

        def write_params(out):
            for name in sorted(values):
                tensor_io.write_lod_tensor(out, values[name])

        if params:
            files[stem + PDIPARAMS] = write_params
        files[stem + program_suffix] = None
        owned = {stem + program_suffix, stem + PDIPARAMS}
    else:
        directory, prefix = path, path
        check_variable_file_names(values, "fluid")
        for name in sorted(values):
            files[name] = lambda out, value=values[name]: tensor_io.write_lod_tensor(out, value)
        files[FLUID_MODEL] = None
        owned = set(files)
        whole_directory = True
    if layout == "pir":
        data = write_pir_program(program.desc)
    else:
        data = to_paddle(program.desc).SerializeToString(deterministic=True)
    files[FLUID_MODEL if layout == "fluid" else stem + program_suffix] = \
        lambda out: out.write(data)
    if whole_directory:
        owned |= set(MODEL_NAMES)
    os.makedirs(directory, exist_ok=True)
    if staged:
        commit_model_files(directory, files, owned)
    else:
        tensor_io.atomic_write_many({os.path.join(directory, n): w for n, w in files.items()})
    if layout != "fluid":
        return [os.path.join(os.path.dirname(prefix), name) for name in files]
    return [os.path.join(path, name) for name in files]


def save_inference_model(dirname, program: Program, scope=None, layout: str = "paddle",
                         model_filename: str | None = None) -> list[str]:
    """paddle_ir.io.save_inference_model's Paddle formats, for an already pruned program.

    layout "paddle": DIR/model.pdmodel + DIR/model.pdiparams (or the prefix
    `model_filename` names, when it ends in .pdmodel); "pir": DIR/model.json +
    DIR/model.pdiparams (model_filename ending in .json likewise); "fluid":
    DIR/__model__ and one file per persistable. Each replaces the model DIR held, in
    any layout.
    """
    if layout in ("paddle", "pir"):
        suffix = PIR_JSON if layout == "pir" else PDMODEL
        stem = model_filename if model_filename and model_filename.endswith(suffix) \
            else PADDLE_STEM
        return write_paddle_model(os.path.join(dirname, stem), program, scope, layout,
                                  whole_directory=True)
    return write_paddle_model(dirname, program, scope, layout)
