"""One exception hierarchy for everything paddle-ir reports.

Every error paddle-ir raises on purpose derives from `PaddleIRError`, so a
caller can catch them all, and its text starts with a category tag, as in
ONNX's `[ShapeInferenceError]`. Errors about an operator carry an `OpLocation`
and print where the op sits, its variables, and where the user created it:

    [ShapeInferenceError] block 0, op #3 mul (X=fc_0.tmp_0[32, 784], Y=fc_0.w_0[100, 10]
                          -> Out=fc_0.tmp_1):
      X.shape[1] must equal Y.shape[0], but got X.shape=[32, 784] and Y.shape=[100, 10]

(the headline is one line; it is folded here)
      op created at examples/mnist.py:41
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class OpLocation:
    """Where an operator sits and what it touches, for error messages."""

    op_type: str
    block_idx: int = 0
    op_idx: int | None = None
    inputs: dict[str, list[str]] = field(default_factory=dict)
    outputs: dict[str, list[str]] = field(default_factory=dict)
    creation_site: str | None = None
    # Optional "name -> shape" annotations shown beside variable names.
    shapes: dict[str, object] = field(default_factory=dict)

    def _slot_list(self, slots: dict[str, list[str]]) -> str:
        parts = []
        for slot, names in slots.items():
            shown = []
            for name in names:
                shape = self.shapes.get(name)
                shown.append(f"{name}{list(shape)}" if shape is not None else name)
            parts.append(f"{slot}={', '.join(shown)}")
        return ", ".join(parts)

    def headline(self) -> str:
        where = f"block {self.block_idx}, op "
        where += f"#{self.op_idx} " if self.op_idx is not None else ""
        where += self.op_type
        ins, outs = self._slot_list(self.inputs), self._slot_list(self.outputs)
        if ins or outs:
            where += f" ({ins} -> {outs})" if outs else f" ({ins})"
        return where


class PaddleIRError(Exception):
    """Base class of every error paddle-ir raises on purpose."""

    category = "PaddleIRError"

    def __init__(self, message: str, *, op: OpLocation | None = None, hint: str | None = None):
        self.message = message
        self.op = op
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        if self.op is None:
            text = f"[{self.category}] {self.message}"
        else:
            text = f"[{self.category}] {self.op.headline()}:\n  {self.message}"
            if self.op.creation_site:
                text += f"\n  op created at {self.op.creation_site}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def __str__(self) -> str:
        return self._render()


# --- values and files -------------------------------------------------------


class InvalidLoDError(PaddleIRError, ValueError):
    """A LoD that breaks the offset invariants of the LoD design."""

    category = "InvalidLoD"


class InvalidSelectedRowsError(PaddleIRError, ValueError):
    """Rows out of range, rows/value mismatch, or a bad height."""

    category = "InvalidSelectedRows"


class InvalidCSRError(PaddleIRError, ValueError):
    """A CSR matrix whose indptr, indices or data disagree."""

    category = "InvalidCSR"


class StorageTypeError(PaddleIRError, ValueError):
    """An unknown storage type, or a value that cannot take the storage type asked for."""

    category = "StorageTypeError"


class DataTypeError(PaddleIRError, TypeError):
    """A dtype paddle-ir cannot represent, or one that an op does not accept."""

    category = "DataTypeError"


class TensorFormatError(PaddleIRError, ValueError):
    """A tensor or parameter file that is truncated, corrupt or of another version."""

    category = "TensorFormatError"


class ProgramFormatError(PaddleIRError, ValueError):
    """Bytes that do not parse as a ProgramDesc."""

    category = "ProgramFormatError"


class SavedDirectoryError(PaddleIRError):
    """A saved model or checkpoint directory whose CURRENT pointer or layout is unusable."""

    category = "SavedDirectoryError"


class OutputPathError(PaddleIRError):
    """A path paddle-ir will not write to: not a regular file (a device, FIFO, directory, link)."""

    category = "OutputPathError"


class InputFileError(PaddleIRError):
    """A path paddle-ir will not read: not a regular file, or a link out of a model directory."""

    category = "InputFileError"


class ResourceLimitError(PaddleIRError):
    """An input that would need more memory, time or iterations than the limits allow."""

    category = "ResourceLimitError"


# --- programs: one class per stage -------------------------------------------


class ProgramError(PaddleIRError):
    """Base of the errors about a program, at build time or at run time."""

    category = "ProgramError"


class InvalidProgramError(ProgramError):
    """The program breaks its schema: unknown op, bad slot, wrong attribute type."""

    category = "InvalidProgram"


class ShapeInferenceError(ProgramError):
    category = "ShapeInferenceError"


class VarTypeInferenceError(ProgramError):
    category = "VarTypeInferenceError"


class KernelNotFoundError(ProgramError):
    category = "KernelNotFound"


class MissingVariableError(ProgramError):
    """A variable an op reads has no value in the scope."""

    category = "MissingVariable"


class KernelError(ProgramError):
    """A kernel failed, or returned something other than its InferShape promised."""

    category = "KernelError"


class FeedError(ProgramError, ValueError):
    """A fed value does not match the data variable it is fed to."""

    category = "FeedError"


class FetchError(ProgramError):
    category = "FetchError"


class NanInfError(ProgramError):
    """An op wrote NaN or Inf while the NaN/Inf check was on."""

    category = "NanInf"


class EOFException(PaddleIRError):
    """A reader (py_reader, a non-iterable DataLoader) has no more batches: Fluid's
    `fluid.core.EOFException`. Catch it to end an epoch, then call `reader.reset()`."""

    category = "EOFException"
