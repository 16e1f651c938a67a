"""paddle-ir's parameter files: the combined-records format, and the files of one save.

A combined file holds the persistable LoDTensors of a program (Paddle's combined
format: records in sorted name order, no header). paddle_ir.io's savers and
paddle_ir.paddle_format both read and write it through this module.

Sparse persistables: Paddle's combined file holds LoDTensor records only,
and a record carries no name, so a SelectedRows (or CSR) variable cannot
share it. Each sparse kind goes to a sibling file, `params.selected_rows` and
`params.csr` (`persistables.selected_rows`, ...), holding that kind's records
(tensor_io's SelectedRows and CSR layouts) in the sorted order of those
variables' names. A sibling exists only when the program has such variables
(a save drops a stale one); loading wants it exactly then. The dense file
always exists, empty for a program without dense persistables.

Files name no variables, so loading matches records to the program's
persistables by sorted name and checks each record's dtype and shape against
the variable's declaration: a parameter file that does not belong to its
program fails with a TensorFormatError instead of loading garbage.

The files of one save (paddle_ir.io's inference model, checkpoint and training
job: MODEL_FILENAME, PARAMS_FILENAME, ...) are committed and read as one whole
(`commit_save`, `read_saved`; paddle_ir.core.savedir): they are written into a new
generation subdirectory and committed by replacing the directory's CURRENT file,
so a reader never sees the program of one save with the parameters of another, a
killed save leaves the previous state, and concurrent saves end as one of them.
The files also appear at the top level of the directory (hard links), as older
paddle-ir wrote them; directories without CURRENT (older paddle-ir) are read at
the top level.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paddle_ir.core import record_names, savedir, tensor_io
from paddle_ir.core.atomic import open_regular
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.dtypes import dtype_name, to_numpy_dtype
from paddle_ir.core.errors import InvalidProgramError, MissingVariableError, TensorFormatError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.executor.scope import global_scope
from paddle_ir.framework import Program
from paddle_ir.proto import framework_pb2 as pb

MODEL_FILENAME = "model.pb"
PARAMS_FILENAME = "params"
PERSISTABLES_FILENAME = "persistables"
SELECTED_ROWS_SUFFIX = ".selected_rows"
CSR_SUFFIX = ".csr"
MAIN_FILENAME = "main.pb"
STARTUP_FILENAME = "startup.pb"
# The files older paddle-ir saved at a directory's top level; kept by the first save into
# such a directory.
LEGACY_NAMES = tuple(base + suffix for base in (PARAMS_FILENAME, PERSISTABLES_FILENAME)
                     for suffix in ("", SELECTED_ROWS_SUFFIX, CSR_SUFFIX)) + (
    MODEL_FILENAME, MAIN_FILENAME, STARTUP_FILENAME)

_LOD_TENSOR = pb.VarDesc.LOD_TENSOR
_SR = pb.VarDesc.SELECTED_ROWS
_CSR = pb.VarDesc.CSR

__all__ = [
    "CSR_SUFFIX", "LEGACY_NAMES", "MAIN_FILENAME", "MODEL_FILENAME", "PARAMS_FILENAME",
    "PERSISTABLES_FILENAME", "SELECTED_ROWS_SUFFIX", "STARTUP_FILENAME", "commit_save",
    "load_vars_file", "persistable_names", "read_saved", "save_vars_file", "scan_records",
    "vars_writers",
]


# --- combined files ------------------------------------------------------------------


def _global_scope():
    return global_scope()


@dataclass(frozen=True)
class _Storage:
    """How the persistables of one variable type are stored: which file, which records."""

    var_type: int
    suffix: str  # appended to the combined file's name
    value_class: type
    write: Callable
    read: Callable


_STORAGES = (
    _Storage(_LOD_TENSOR, "", LoDTensor, tensor_io.write_lod_tensor, tensor_io.read_lod_tensor),
    _Storage(_SR, SELECTED_ROWS_SUFFIX, SelectedRows, tensor_io.write_selected_rows,
             tensor_io.read_selected_rows),
    _Storage(_CSR, CSR_SUFFIX, CSRTensor, tensor_io.write_csr, tensor_io.read_csr),
)


def persistable_names(program: Program, var_type: int = _LOD_TENSOR) -> list[str]:
    """The sorted names of the program's persistable variables of `var_type` (all blocks)."""
    return sorted({var.name for block in program.desc.blocks for var in block.vars
                   if var.persistable and var.type == var_type})


def _declarations(program: Program) -> dict[str, pb.VarDesc]:
    found = {}
    for block in program.desc.blocks:
        for var in block.vars:
            found.setdefault(var.name, var)
    return found


def _value_of(scope, name: str, storage: _Storage):
    holder = scope.find_var(name)
    value = None if holder is None else holder.value
    if value is None:
        raise MissingVariableError(
            f"persistable variable {name!r} has no value in the scope, so it cannot be saved",
            hint="did you run the startup program (or load the parameters) first?")
    if not isinstance(value, storage.value_class):
        raise InvalidProgramError(
            f"persistable variable {name!r} is declared "
            f"{pb.VarDesc.VarType.Name(storage.var_type)} but the scope holds a "
            f"{type(value).__name__}")
    if len(value.shape) > tensor_io.MAX_DIMS:  # what no reader would read back
        raise InvalidProgramError(
            f"persistable variable {name!r} has {len(value.shape)} dims; paddle-ir saves "
            f"tensors of at most {tensor_io.MAX_DIMS} dims, as many as it reads")
    return value


def vars_writers(filename: str, program: Program, scope,
                  with_names: bool = False) -> tuple[dict, list[str], list[str]]:
    """(file name -> writer, every file name of this kind, names saved) for `filename`.

    All values are gathered here, before anything is written. A sparse
    sibling is written only when the program has such variables; the dense
    file always. `with_names` adds FILE.names (core/record_names.py), so that a
    program declaring a subset of the variables can load them.
    """
    known = {s.var_type for s in _STORAGES}
    for block in program.desc.blocks:
        for var in block.vars:
            if var.persistable and var.type not in known:
                raise InvalidProgramError(
                    f"persistable variable {var.name!r} has variable type {var.type}, which "
                    f"paddle-ir cannot save")
    files, every, saved = {}, [], []
    for storage in _STORAGES:
        names = persistable_names(program, storage.var_type)
        values = [_value_of(scope, n, storage) for n in names]
        target = filename + storage.suffix
        every.append(target)
        if not names and storage.suffix:
            continue

        def write(out, storage=storage, values=values):
            for value in values:
                storage.write(out, value)

        files[target] = write  # a dense file always exists, maybe empty
        saved += names
    if with_names:
        data = record_names.encode({pb.VarDesc.VarType.Name(s.var_type):
                                    persistable_names(program, s.var_type) for s in _STORAGES})
        files[filename + record_names.SUFFIX] = lambda out: out.write(data)
        every.append(filename + record_names.SUFFIX)
    return files, every, saved


def save_vars_file(path, program: Program, scope=None) -> list[str]:
    """Write the program's persistables from `scope`: `path` and its sparse siblings.

    All values are gathered before anything is written, so a missing value
    leaves the files as they were; the files are staged whole before any is
    renamed into place, one by one (a directory replaced as one whole is what
    paddle_ir.io.save_persistables does). Returns the names saved.
    """
    scope = _global_scope() if scope is None else scope
    path = os.fspath(path)
    directory, filename = os.path.split(path)
    files, every, saved = vars_writers(filename, program, scope)
    tensor_io.atomic_write_many({os.path.join(directory, n): w for n, w in files.items()})
    for name in every:
        if name not in files and os.path.isfile(os.path.join(directory, name)):
            os.unlink(os.path.join(directory, name))  # a stale sibling
    return saved


def _check_against(path, name: str, value, var: pb.VarDesc) -> None:
    tensor = var.selected_rows_desc if var.type == _SR else var.lod_desc.tensor
    dims = list(tensor.dims)
    shape = list(value.shape)
    want = to_numpy_dtype(tensor.data_type) if tensor.HasField("data_type") else value.dtype
    bad_shape = dims and (len(dims) != len(shape)
                          or any(d >= 0 and d != s for d, s in zip(dims, shape, strict=True)))
    if value.dtype != want or bad_shape:
        raise TensorFormatError(
            f"{os.fspath(path)}: the record for {name!r} holds {dtype_name(value.dtype)} "
            f"{shape}, but the program declares {dtype_name(want)} {dims}; the file does "
            f"not belong to this program",
            hint="records are matched to the persistable variables by sorted name")


def scan_records(path, var_type: int = _LOD_TENSOR) -> list[tuple[int, object]]:
    """Every record of a combined file of `var_type` values, with its byte size (for dump)."""
    storage = next(s for s in _STORAGES if s.var_type == var_type)
    records = []
    with open_regular(path) as f:
        end = os.fstat(f.fileno()).st_size
        while f.tell() < end:
            start = f.tell()
            value = storage.read(f, f"{os.fspath(path)} (record #{len(records)})")
            records.append((f.tell() - start, value))
    return records


def _read_records(f, path, names: Sequence[str], storage: _Storage) -> dict:
    result = {}
    with f:
        end = os.fstat(f.fileno()).st_size
        for i, name in enumerate(names):
            if f.tell() == end:
                raise TensorFormatError(
                    f"{os.fspath(path)} ends after {i} of {len(names)} records; missing from "
                    f"{name!r} on (expected, in sorted order: {list(names)})")
            result[name] = storage.read(f, f"{os.fspath(path)} (record #{i}, {name!r})")
        if f.tell() != end:
            raise TensorFormatError(
                f"{os.fspath(path)} has {end - f.tell()} bytes after its {len(names)} expected "
                f"records; it holds more variables than the program declares persistable")
    return result


def load_vars_file(path, program: Program, scope=None, root=None) -> list[str]:
    """Load the program's persistables from `path` (and its siblings) into `scope`.

    Every record is read and checked against its declaration before any is
    stored, so a mismatched file leaves the scope as it was. Returns the names.
    With `root` (the model directory), a link out of it is refused.
    """
    scope = _global_scope() if scope is None else scope
    declared = _declarations(program)
    recorded = record_names.read(path, root)  # None: the records are the program's, in order
    values: dict = {}
    for storage in _STORAGES:
        names = persistable_names(program, storage.var_type)
        target = os.fspath(path) + storage.suffix
        kind = pb.VarDesc.VarType.Name(storage.var_type)
        in_file = names if recorded is None else recorded.get(kind, [])
        missing = sorted(set(names) - set(in_file))
        if missing:
            raise TensorFormatError(
                f"{target} holds no record for {missing[:8]}{' ...' if len(missing) > 8 else ''}"
                f": the program declares {kind} persistables the checkpoint does not have "
                f"(its {os.path.basename(target)}{record_names.SUFFIX} lists {len(in_file)})")
        try:
            f = open_regular(target, root)
        except FileNotFoundError:
            f = None
        if f is not None:
            records = _read_records(f, target, in_file, storage)
            records = {n: records[n] for n in names}  # a subset program keeps its own
            for name, value in records.items():
                _check_against(target, name, value, declared[name])
            values.update(records)
        elif names:
            raise TensorFormatError(
                f"{target} does not exist, but the program has {len(names)} persistable "
                f"{kind} variables to load: {names[:8]}{' ...' if len(names) > 8 else ''}")
    for name, value in values.items():
        scope.var(name).value = value
    return list(values)


# --- the files of one save ------------------------------------------------------------


def commit_save(dirname, files: dict, owned) -> None:
    """Replace the files of the save in `dirname` as one whole (see savedir.commit)."""
    from paddle_ir.model_files.layouts import commit_model_files  # it imports this module

    commit_model_files(dirname, files, owned)


def read_saved(dirname, read_files):
    """`read_files(directory)` on the files of one whole save in `dirname` (see savedir.read).

    `directory` is the committed generation, or `dirname` itself when it has no
    CURRENT (older paddle-ir, Paddle's layouts).
    """
    return savedir.read(dirname, read_files)
