"""Finding, reading and writing PaddlePaddle's model files.

Layouts (PATH is what a user types):

    PREFIX.pdmodel + PREFIX.pdiparams   Paddle 2.x / 3.x old IR; PATH is the .pdmodel, the
                                        prefix, or a directory holding one .pdmodel
    PREFIX.json + PREFIX.pdiparams      Paddle 3.x PIR (its default); PATH is the .json,
                                        the prefix, or a directory holding one (a .json
                                        is taken as a program when a .pdiparams shares its
                                        prefix or it opens like one: see pir/)
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
from paddle_ir.core.atomic import open_regular
from paddle_ir.core.dtypes import dtype_name, to_numpy_dtype
from paddle_ir.core.errors import (
    InputFileError,
    MissingVariableError,
    PaddleIRError,
    TensorFormatError,
)
from paddle_ir.core.file_kinds import is_pir_json
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.names import file_name_problem
from paddle_ir.framework import Program
from paddle_ir.model_files.layouts import FLUID_MODEL, FLUID_PARAMS, PDIPARAMS, PDMODEL, PIR_JSON
from paddle_ir.model_files.params_file import load_vars_file, persistable_names
from paddle_ir.model_files.program_file import read_program_bytes
from paddle_ir.paddle_format.convert import (
    PaddleFormatError,
    from_paddle,
    parse_paddle_program,
)
from paddle_ir.proto import framework_pb2 as pb

LAYOUTS = ("paddle", "fluid", "pir")


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
    def is_pir(self) -> bool:
        """A Paddle 3 PIR program (model.json) rather than a ProgramDesc."""
        return self.program_file.endswith(PIR_JSON)

    @property
    def directory(self) -> str:
        """The model directory: every file of the model is read from inside it (no link
        out, no name with a path in it)."""
        return os.path.dirname(self.program_file) or "."

    def read_program(self) -> bytes:
        return read_program_bytes(self.program_file, self.directory)


def _with_prefix(prefix: str, suffix: str = PDMODEL) -> PaddleModel:
    params = prefix + PDIPARAMS
    return PaddleModel(prefix + suffix, params if os.path.exists(params) else None)


def _is_pir_program(path: str) -> bool:
    """A .json beside a .pdiparams of its prefix, or one that opens like a PIR program."""
    if os.path.exists(path[: -len(PIR_JSON)] + PDIPARAMS):
        return True
    try:  # open_regular: a FIFO named *.json must not block the search
        with open_regular(path) as f:
            return is_pir_json(f.read(256))
    except (OSError, PaddleIRError):
        return False


def _programs_in(path: str) -> list[str]:
    pattern = os.path.join(glob.escape(path), "*")
    found = sorted(glob.glob(pattern + PDMODEL))
    found += [f for f in sorted(glob.glob(pattern + PIR_JSON)) if _is_pir_program(f)]
    return found


def _orphan_params(path: str) -> PaddleFormatError:
    return PaddleFormatError(
        f"{path} is a Paddle parameter file (.pdiparams: tensor records with no names), "
        f"and its program is missing: expected {path[: -len(PDIPARAMS)]}{PIR_JSON} (Paddle "
        f"3 PIR) or {path[: -len(PDIPARAMS)]}{PDMODEL} beside it",
        hint="copy the program that was saved with it; the parameters alone cannot run")


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
        found = _programs_in(path)
        if len(found) > 1:
            names = ", ".join(os.path.basename(f) for f in found)
            raise PaddleFormatError(f"{path} holds several Paddle programs ({names}); name "
                                    f"the one to use")
        if found:
            suffix = PDMODEL if found[0].endswith(PDMODEL) else PIR_JSON
            return _with_prefix(found[0][: -len(suffix)], suffix)
        params = sorted(glob.glob(os.path.join(glob.escape(path), "*" + PDIPARAMS)))
        if params:
            raise _orphan_params(params[0])
        return None
    for suffix in (PDMODEL, PIR_JSON):
        if path.endswith(suffix) and (suffix == PDMODEL or _is_pir_program(path)):
            return _with_prefix(path[: -len(suffix)], suffix)
    if os.path.basename(path) == FLUID_MODEL:
        return _fluid(os.path.dirname(path) or ".", path)
    if path.endswith(PDIPARAMS):
        prefix = path[: -len(PDIPARAMS)]
        for suffix in (PDMODEL, PIR_JSON):
            if os.path.isfile(prefix + suffix):
                return _with_prefix(prefix, suffix)
        raise _orphan_params(path)
    if not os.path.exists(path):
        for suffix in (PDMODEL, PIR_JSON):
            if os.path.exists(path + suffix):
                return _with_prefix(path, suffix)  # a path prefix, as Paddle's loader takes
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
            f"{os.fspath(path)} is not a Paddle model: expected a .pdmodel or PIR .json "
            f"file, its path prefix, a directory holding one, or a fluid 1.x directory "
            f"with {FLUID_MODEL}")
    return model


def read_program_desc(program_file: str, data: bytes | None = None) -> pb.ProgramDesc:
    """paddle-ir's ProgramDesc of a Paddle program file (its bytes, when read already), told
    apart by its bytes: Paddle 3's PIR JSON, or a ProgramDesc (.pdmodel, __model__)."""
    if data is None:  # bounded, a regular file inside its directory
        data = read_program_bytes(program_file, os.path.dirname(program_file) or ".")
    if is_pir_json(data) or program_file.endswith(PIR_JSON):
        from paddle_ir.paddle_format.pir import read_pir_program

        return read_pir_program(data, program_file)
    return from_paddle(parse_paddle_program(data, program_file), program_file)


def load_paddle_program(path) -> Program:
    """The paddle-ir Program of a Paddle program file (or of the model PATH names)."""
    model = locate(path)
    model = model if model is not None else PaddleModel(os.fspath(path))
    return Program.from_desc(read_program_desc(model.program_file, model.read_program()))


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
        suffix = next((x for x in (PDMODEL, PIR_JSON) if program_file.endswith(x)), None)
        expected = (f"expected {program_file[: -len(suffix)] + PDIPARAMS}"
                    if suffix else "name it with --params")
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
