"""The file names of every model layout a directory can hold, and the variable names
a one-file-per-variable layout cannot hold.

    paddle-ir      model.pb + params (+ params.selected_rows, params.csr)
    paddle         STEM.pdmodel + STEM.pdiparams            (Paddle 2.x / 3.x)
    fluid          __model__ + one file per persistable     (fluid 1.x)
                   __model__ + __params__                   (fluid 1.x, combined)

One directory is loaded as one model: paddle-ir's model.pb first, then a
fluid `__model__` (whose combined `__params__` is preferred over per-variable
files), then a `.pdmodel`. So an inference-model save into a directory drops
the other layouts' files (`MODEL_NAMES`): what loads from the directory
afterwards is the model just saved, whichever loader reads it.

A per-variable save (fluid's layout, `fluid.io.save_persistables(dirname,
filename=None)`) names each file after its variable, so a variable called
`__params__` would be taken for a combined parameter file, one called
`__model__` or `params` would replace another save's file, and `../x` or an
empty name is no file of the directory at all: `check_variable_file_names`
refuses them at save time, naming the variable and the layout.

Every save into a directory goes through `commit_model_files` (savedir.commit):
the first save into a directory without CURRENT carries what the directory
held into its first generation (paddle-ir's older files, Paddle's model files,
the per-variable files a fluid `__model__` names, and for a per-variable save
the files of its program's other persistables), so that what loaded before
still loads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import BinaryIO

from paddle_ir.core import record_names, savedir
from paddle_ir.core.atomic import open_regular
from paddle_ir.core.errors import InvalidProgramError, SavedDirectoryError
from paddle_ir.core.savedir import CURRENT
from paddle_ir.model_files.params_file import (
    CSR_SUFFIX,
    LEGACY_NAMES,
    MODEL_FILENAME,
    PARAMS_FILENAME,
    PERSISTABLES_FILENAME,
    SELECTED_ROWS_SUFFIX,
)

PDMODEL = ".pdmodel"
PDIPARAMS = ".pdiparams"
PIR_JSON = ".json"  # Paddle 3's PIR program, beside its .pdiparams
FLUID_MODEL = "__model__"
FLUID_PARAMS = "__params__"
PADDLE_STEM = "model"  # save_inference_model(format="paddle")'s DIR/model.pdmodel

# Every file an inference model of some layout keeps under a fixed name.
MODEL_NAMES = (
    MODEL_FILENAME, PARAMS_FILENAME, PARAMS_FILENAME + SELECTED_ROWS_SUFFIX,
    PARAMS_FILENAME + CSR_SUFFIX, FLUID_MODEL, FLUID_PARAMS, PADDLE_STEM + PDMODEL,
    PADDLE_STEM + PDIPARAMS, PADDLE_STEM + PIR_JSON)

# Names a variable's file may not take in a directory: the files of the other saves.
_TAKEN = frozenset(MODEL_NAMES) | frozenset(LEGACY_NAMES) | {
    PERSISTABLES_FILENAME + record_names.SUFFIX}


def check_variable_file_names(names: Iterable[str], layout: str) -> None:
    """Refuse persistable names that `layout` (one file per variable) cannot hold."""
    for name in names:
        bad = None
        if name in _TAKEN:
            bad = (f"that is the name of another file of a model directory ({FLUID_MODEL}, "
                   f"{FLUID_PARAMS}, {MODEL_FILENAME}, {PARAMS_FILENAME}, ...), which the "
                   f"variable's file would replace or be taken for")
        elif name.endswith((PDMODEL, PDIPARAMS)):
            bad = "a file of that name would be read as a Paddle model file"
        else:
            try:
                savedir.check_file_name(name)
            except SavedDirectoryError as exc:
                bad = exc.message.split(": ", 1)[1]
        if bad:
            raise InvalidProgramError(
                f"persistable variable {name[:80]!r} cannot be saved in the {layout} layout "
                f"(one file per variable, named after it): {bad}",
                hint="rename the variable, or save with a combined parameter file "
                     "(filename=..., or format='paddle')")


def commit_model_files(dirname, files: Mapping[str, Callable[[BinaryIO], None]],
                       owned: Iterable[str], keep: Iterable[str] = ()) -> None:
    """savedir.commit of one save of any layout (see the module doc); `keep`: more
    names of files a directory without CURRENT may hold that the save must carry (a
    per-variable save's program's other persistables: its optimizer state)."""
    legacy = set(LEGACY_NAMES) | set(MODEL_NAMES) | set(keep)
    try:
        entries = os.listdir(dirname)
    except OSError:
        entries = []  # not there yet: commit makes it
    if entries and CURRENT not in entries:
        legacy |= {n for n in entries if n.endswith((PDMODEL, PDIPARAMS))}
        if FLUID_MODEL in entries:
            legacy |= _fluid_persistables(os.path.join(dirname, FLUID_MODEL))
    savedir.commit(dirname, files, owned, legacy_names=legacy)


def _fluid_persistables(path: str) -> set[str]:
    """The persistables a fluid `__model__` names (its per-variable files), or none when
    it is no ProgramDesc (then it loads nothing to keep whole)."""
    from paddle_ir.proto import paddle_framework_pb2 as ppb  # only for such a directory

    desc = ppb.ProgramDesc()
    try:
        with open_regular(path) as f:
            desc.ParseFromString(f.read())
    except Exception:  # noqa: BLE001 - any damage: nothing to carry, the load says why
        return set()
    return {v.name for b in desc.blocks for v in b.vars if v.persistable}
