"""Finding, reading and writing PaddlePaddle's model files.

Layouts (PATH is what a user types):

    PREFIX.pdmodel + PREFIX.pdiparams   Paddle 2.x / 3.x old IR; PATH is the .pdmodel, the
                                        prefix, or a directory holding one .pdmodel
    DIR/__model__ + one file per var    fluid 1.x, each file one LoDTensor record named
                                        after its variable
    DIR/__model__ + DIR/__params__      fluid 1.x with a combined parameter file

A combined file (.pdiparams, __params__) is the persistable LoDTensors' records
in sorted name order with no header, ending exactly at EOF: paddle-ir's own
combined format, which paddle_ir.model_files.params_file reads, checking every
record against its declaration. Writing stages every file whole before renaming
any into place, the program last.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass

import numpy as np

from paddle_ir.core import tensor_io
from paddle_ir.core.dtypes import dtype_name, to_numpy_dtype
from paddle_ir.core.errors import InputFileError, MissingVariableError, TensorFormatError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.names import file_name_problem
from paddle_ir.framework import Program
from paddle_ir.model_files.params_file import load_vars_file, persistable_names
from paddle_ir.model_files.program_file import read_program_bytes
from paddle_ir.paddle_format.convert import (
    PaddleFormatError,
    from_paddle,
    parse_paddle_program,
    to_paddle,
)
from paddle_ir.proto import framework_pb2 as pb

PDMODEL = ".pdmodel"
PDIPARAMS = ".pdiparams"
FLUID_MODEL = "__model__"
FLUID_PARAMS = "__params__"
LAYOUTS = ("paddle", "fluid")


@dataclass(frozen=True)
class PaddleModel:
    """Where one Paddle model's files are: the program, and its parameters if any."""

    program_file: str
    params_file: str | None = None  # a combined file (.pdiparams or __params__)
    params_dir: str | None = None  # fluid 1.x: one file per variable

    @property
    def layout(self) -> str:
        return "fluid" if os.path.basename(self.program_file) == FLUID_MODEL else "paddle"

    @property
    def directory(self) -> str:
        """The model directory: every file of the model is read from inside it (no link
        out, no name with a path in it)."""
        return os.path.dirname(self.program_file) or "."

    def read_program(self) -> bytes:
        return read_program_bytes(self.program_file, self.directory)


def _with_prefix(prefix: str) -> PaddleModel:
    params = prefix + PDIPARAMS
    return PaddleModel(prefix + PDMODEL, params if os.path.exists(params) else None)


def _fluid(directory: str, program_file: str) -> PaddleModel:
    combined = os.path.join(directory, FLUID_PARAMS)
    if os.path.exists(combined):
        return PaddleModel(program_file, params_file=combined)
    return PaddleModel(program_file, params_dir=directory)


def locate(path) -> PaddleModel | None:
    """The Paddle model PATH names, or None when PATH is not one (see the module doc)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        fluid = os.path.join(path, FLUID_MODEL)
        if os.path.isfile(fluid):
            return _fluid(path, fluid)
        found = sorted(glob.glob(os.path.join(glob.escape(path), "*" + PDMODEL)))
        if len(found) > 1:
            names = ", ".join(os.path.basename(f) for f in found)
            raise PaddleFormatError(f"{path} holds several Paddle programs ({names}); name "
                                    f"the one to use")
        return _with_prefix(found[0][: -len(PDMODEL)]) if found else None
    if path.endswith(PDMODEL):
        return _with_prefix(path[: -len(PDMODEL)])
    if os.path.basename(path) == FLUID_MODEL:
        return _fluid(os.path.dirname(path) or ".", path)
    if not os.path.exists(path) and os.path.exists(path + PDMODEL):
        return _with_prefix(path)  # a path prefix, as Paddle's own loader takes
    return None


def is_paddle_model(path) -> bool:
    return locate(path) is not None


def require_model(path) -> PaddleModel:
    """The model PATH names; any existing file is taken as a Paddle program (--format paddle)."""
    model = locate(path)
    if model is None and os.path.isfile(path):
        return PaddleModel(os.fspath(path))
    if model is None:
        raise PaddleFormatError(
            f"{os.fspath(path)} is not a Paddle model: expected a .pdmodel file, its path "
            f"prefix, a directory holding one, or a fluid 1.x directory with {FLUID_MODEL}")
    return model


def load_paddle_program(path) -> Program:
    """The paddle-ir Program of a Paddle program file (or of the model PATH names)."""
    model = locate(path)
    model = model if model is not None else PaddleModel(os.fspath(path))
    program_file = model.program_file
    desc = from_paddle(parse_paddle_program(model.read_program(), program_file), program_file)
    return Program.from_desc(desc)


def load_paddle_params(model: PaddleModel, program: Program, scope) -> list[str]:
    """Load the model's parameters into `scope`; every record checked against its var."""
    names = persistable_names(program)
    if model.params_file is not None:
        return load_vars_file(model.params_file, program, scope, model.directory)
    if model.params_dir is not None:
        return _load_separate(model.params_dir, program, names, scope)
    if names:
        shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        program_file = model.program_file
        expected = (f"expected {program_file[: -len(PDMODEL)] + PDIPARAMS}"
                    if program_file.endswith(PDMODEL) else "name it with --params")
        raise MissingVariableError(
            f"{program_file} declares {len(names)} persistable variable(s) ({shown}) "
            f"but there is no parameter file beside it ({expected})")
    return []


def _load_separate(directory: str, program: Program, names: list[str], scope) -> list[str]:
    values = {}
    declared = {v.name: v for b in program.desc.blocks for v in b.vars}
    for name in names:
        problem = file_name_problem(name)
        if problem is not None:
            raise InputFileError(
                f"the program declares a persistable variable named {name[:80]!r}, but a "
                f"fluid 1.x model keeps each in a file of {directory} named after it, and "
                f"{problem}; paddle-ir reads nothing outside the model directory")
        path = os.path.join(directory, name)
        try:
            value = tensor_io.load_lod_tensor(path, directory)
        except FileNotFoundError:
            raise TensorFormatError(
                f"{directory} has no file {name!r}: a fluid 1.x model keeps each persistable "
                f"variable in a file named after it") from None
        _check(path, name, value, declared[name])
        values[name] = value
    for name, value in values.items():
        scope.var(name).value = value
    return list(values)


def _check(path: str, name: str, value: LoDTensor, var: pb.VarDesc) -> None:
    tensor = var.lod_desc.tensor
    want, dims = to_numpy_dtype(tensor.data_type), list(tensor.dims)
    shape = list(value.shape)
    if value.dtype != want or len(dims) != len(shape) or any(
            d >= 0 and d != s for d, s in zip(dims, shape, strict=True)):
        raise TensorFormatError(
            f"{path} holds {dtype_name(value.dtype)} {shape}, but the program declares "
            f"{name!r} as {dtype_name(want)} {dims}")


def _global_scope():
    from paddle_ir.executor.scope import global_scope

    return global_scope()


def load_inference_model(path, scope=None):
    """(program, feed names, fetch Variables) of a Paddle model, its parameters in `scope`."""
    model = require_model(path)
    program = load_paddle_program(model.program_file)
    load_paddle_params(model, program, _global_scope() if scope is None else scope)
    block = program.global_block()
    return program, program.feed_target_names, [block.var(n) for n in
                                                 program.fetch_target_names]


# --- writing ----------------------------------------------------------------------------


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
                       params: bool = True) -> list[str]:
    """Write `program` and its persistables from `scope` in Paddle's files; the file names
    (the program last).

    layout "paddle": PATH is a prefix (PATH.pdmodel + PATH.pdiparams; a trailing
    .pdmodel is dropped). layout "fluid": PATH is a directory (__model__ plus one
    file per persistable variable). `params=False` writes the program alone.
    """
    if layout not in LAYOUTS:
        raise PaddleFormatError(f"unknown Paddle layout {layout!r}; choose one of {LAYOUTS}")
    scope = _global_scope() if scope is None else scope
    values = _dense_values(program, scope) if params else {}
    data = to_paddle(program.desc).SerializeToString(deterministic=True)
    path = os.fspath(path)
    files = {}
    if layout == "paddle":
        prefix = path[: -len(PDMODEL)] if path.endswith(PDMODEL) else path
        os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)

        def write_params(out):
            for name in sorted(values):
                tensor_io.write_lod_tensor(out, values[name])

        if params:
            files[prefix + PDIPARAMS] = write_params
        files[prefix + PDMODEL] = lambda out: out.write(data)  # renamed last
    else:
        os.makedirs(path, exist_ok=True)
        for name in sorted(values):
            files[os.path.join(path, name)] = (
                lambda out, value=values[name]: tensor_io.write_lod_tensor(out, value))
        files[os.path.join(path, FLUID_MODEL)] = lambda out: out.write(data)
    tensor_io.atomic_write_many(files)
    return list(files)


def save_inference_model(dirname, program: Program, scope=None, layout: str = "paddle",
                         model_filename: str | None = None) -> list[str]:
    """paddle_ir.io.save_inference_model's Paddle formats, for an already pruned program.

    layout "paddle": DIR/model.pdmodel + DIR/model.pdiparams (or the prefix
    `model_filename` names, when it ends in .pdmodel); "fluid": DIR/__model__ and
    one file per persistable.
    """
    if layout == "paddle":
        stem = model_filename if model_filename and model_filename.endswith(PDMODEL) \
            else "model"
        return write_paddle_model(os.path.join(dirname, stem), program, scope, layout)
    return write_paddle_model(dirname, program, scope, layout)
