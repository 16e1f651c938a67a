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
record against its declaration. Writing is saving.py's (a staged save, as
paddle-ir's own); a directory a save committed (it has CURRENT) is read from
its committed generation.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass

from paddle_ir.core import savedir, tensor_io
from paddle_ir.core.dtypes import dtype_name, to_numpy_dtype
from paddle_ir.core.errors import MissingVariableError, TensorFormatError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.framework import Program
from paddle_ir.model_files.layouts import FLUID_MODEL, FLUID_PARAMS, PDIPARAMS, PDMODEL
from paddle_ir.model_files.params_file import load_vars_file, persistable_names
from paddle_ir.paddle_format.convert import (
    PaddleFormatError,
    from_paddle,
    parse_paddle_program,
)
from paddle_ir.proto import framework_pb2 as pb

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


def _with_prefix(prefix: str) -> PaddleModel:
    params = prefix + PDIPARAMS
    return PaddleModel(prefix + PDMODEL, params if os.path.exists(params) else None)


def _fluid(directory: str, program_file: str) -> PaddleModel:
    combined = os.path.join(directory, FLUID_PARAMS)
    if os.path.exists(combined):
        return PaddleModel(program_file, params_file=combined)
    return PaddleModel(program_file, params_dir=directory)


def _committed(path: str) -> str:
    """`path` in the committed generation of its directory when a save committed it
    (paddle_ir.core.savedir: it has CURRENT), so that the files found are of one save."""
    if os.path.isdir(path):
        return savedir.committed_dir(path)
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        return path
    committed = savedir.committed_dir(parent)
    if committed == parent:
        return path
    inside = os.path.join(committed, os.path.basename(path))
    # A file no save wrote (copied in beside the saves) is only at the top level.
    return inside if os.path.lexists(inside) or os.path.lexists(inside + PDMODEL) else path


def locate(path) -> PaddleModel | None:
    """The Paddle model PATH names, or None when PATH is not one (see the module doc)."""
    path = _committed(os.fspath(path))
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
    program_file = model.program_file if model is not None else os.fspath(path)
    with open(program_file, "rb") as f:
        data = f.read()
    desc = from_paddle(parse_paddle_program(data, program_file), program_file)
    return Program.from_desc(desc)


def load_paddle_params(model: PaddleModel, program: Program, scope) -> list[str]:
    """Load the model's parameters into `scope`; every record checked against its var."""
    names = persistable_names(program)
    if model.params_file is not None:
        return load_vars_file(model.params_file, program, scope)
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
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            raise TensorFormatError(
                f"{directory} has no file {name!r}: a fluid 1.x model keeps each persistable "
                f"variable in a file named after it")
        value = tensor_io.load_lod_tensor(path)
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
    """(program, feed names, fetch Variables) of a Paddle model, its parameters in `scope`.

    The files are of one save, even while another save replaces them (savedir.read).
    """
    path = os.fspath(path)
    scope = _global_scope() if scope is None else scope

    def read_files(_directory):  # locate reads CURRENT itself, for a prefix's parent too
        model = require_model(path)
        program = load_paddle_program(model.program_file)
        load_paddle_params(model, program, scope)
        return program

    program = savedir.read(path if os.path.isdir(path) else os.path.dirname(path) or ".",
                           read_files)
    block = program.global_block()
    return program, program.feed_target_names, [block.var(n) for n in
                                                 program.fetch_target_names]
