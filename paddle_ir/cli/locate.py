"""What a model or job directory holds: the one place the CLI turns a directory into files.

`run`, `dump` and `check` call `saved_files` on the directory of one
committed save (inside `read_saved`), so a reader of other layouts (Paddle's
`__model__`, `.pdmodel`) hooks in here once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from paddle_ir.model_files.params_file import (
    MAIN_FILENAME,
    MODEL_FILENAME,
    PARAMS_FILENAME,
    STARTUP_FILENAME,
)


@dataclass(frozen=True)
class SavedFiles:
    """The program files of a directory: an inference model or a training job."""

    kind: str  # "model" or "job"
    program: str  # model.pb, or main.pb
    params: str | None = None  # the model's parameter file
    startup: str | None = None  # the job's startup.pb


def saved_files(directory: str) -> SavedFiles:
    model = os.path.join(directory, MODEL_FILENAME)
    if os.path.exists(model):
        return SavedFiles("model", model, params=os.path.join(directory, PARAMS_FILENAME))
    main = os.path.join(directory, MAIN_FILENAME)
    if os.path.exists(main):
        return SavedFiles("job", main, startup=os.path.join(directory, STARTUP_FILENAME))
    raise FileNotFoundError(
        f"{directory} holds neither {MODEL_FILENAME} (an inference model) nor "
        f"{MAIN_FILENAME} (a training job)")
