"""The inference context: what an op's InferShape and InferVarType rules see.

The same rule runs at build time, over VarDescs (unknown dims are -1, LoD is a
`lod_level`), and at run time, over the actual values (real shapes, real LoD).
The builder and the executor each implement the few primitive methods; the
rules only use the helpers below, so one function serves both, as Paddle's
InferShapeContext does.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from paddle_ir.core.errors import OpLocation, ShapeInferenceError, VarTypeInferenceError
from paddle_ir.core.kinds import (  # noqa: F401 - the VarTypes rules name, from the one table
    CSR,
    LOD_RANK_TABLE,
    LOD_TENSOR,
    LOD_TENSOR_ARRAY,
    SELECTED_ROWS,
    STEP_SCOPES,
    VAR_TYPE_NAMES,
)

_MAX_NBYTES = 2**63 - 1
MAX_LOD_LEVEL = 32


@dataclass
class VarInfo:
    """What inference knows of a variable: shape, dtype, LoD level, VarType."""

    shape: tuple[int, ...]
    dtype: np.dtype | None
    lod_level: int
    var_type: int


class InferContext(ABC):
    """Base of the build-time and run-time contexts. Subclasses fill the primitives."""

    op_type: str
    attrs: dict
    is_runtime: bool = False

    # -- primitives: the builder's and the executor's contexts implement these ----
    @abstractmethod
    def input_names(self, slot: str) -> list[str]: ...

    @abstractmethod
    def output_names(self, slot: str) -> list[str]: ...

    @abstractmethod
    def output_slots(self) -> list[str]: ...

    @abstractmethod
    def var_info(self, name: str) -> VarInfo: ...

    @abstractmethod
    def _set_var(self, name: str, shape, dtype, lod_level, var_type) -> None: ...

    @abstractmethod
    def _share_lod(self, src: str, dst: str) -> None: ...

    @abstractmethod
    def location(self) -> OpLocation: ...

    # -- reading inputs ---------------------------------------------------------
    def attr(self, name: str):
        return self.attrs[name]

    def has_input(self, slot: str) -> bool:
        return bool(self.input_names(slot))

    def has_output(self, slot: str) -> bool:
        return bool(self.output_names(slot))

    def input_count(self, slot: str) -> int:
        return len(self.input_names(slot))

    def _input(self, slot: str, i: int) -> VarInfo:
        names = self.input_names(slot)
        if i >= len(names):
            self.fail(f"input {slot} is required but was not given")
        return self.var_info(names[i])

    def input_shape(self, slot: str, i: int = 0) -> tuple[int, ...]:
        return self._input(slot, i).shape

    def input_shapes(self, slot: str) -> list[tuple[int, ...]]:
        return [self.var_info(n).shape for n in self.input_names(slot)]

    def input_dtype(self, slot: str, i: int = 0) -> np.dtype:
        dtype = self._input(slot, i).dtype
        if dtype is None:  # a parsed VarDesc without a (known) data_type
            self.fail(f"input {slot} ({self.input_names(slot)[i]}) has no data type")
        return dtype

    def input_lod_level(self, slot: str, i: int = 0) -> int:
        return self._input(slot, i).lod_level

    def input_var_type(self, slot: str, i: int = 0) -> int:
        return self._input(slot, i).var_type

    def input_var_types(self, slot: str) -> list[int]:
        return [self.var_info(n).var_type for n in self.input_names(slot)]

    def output_var_type(self, slot: str, i: int = 0) -> int:
        return self.var_info(self.output_names(slot)[i]).var_type

    # -- writing outputs --------------------------------------------------------
    def set_output(self, slot: str, shape: Sequence[int], dtype=None, i: int = 0) -> None:
        """Declare the shape (and dtype) of output `slot`[i]; -1 marks an unknown dim."""
        names = self.output_names(slot)
        if i < len(names):
            shape = tuple(-1 if d is None else int(d) for d in shape)
            dtype = None if dtype is None else np.dtype(dtype)
            # Rules multiply dims in Python ints: huge declared dims must fail here,
            # not as an out-of-range protobuf field or numpy's "array is too big".
            known = [d for d in shape if d >= 0]
            if any(d < -1 for d in shape) or math.prod(max(d, 1) for d in known) * (
                    1 if dtype is None else dtype.itemsize) > _MAX_NBYTES:
                self.fail(f"output {slot} ({names[i]}) would have shape {shape_str(shape)}, "
                          f"which overflows: a tensor holds at most 2**63 - 1 bytes")
            self._set_var(names[i], shape, dtype, None, None)

    def set_output_dtype(self, slot: str, dtype, i: int = 0) -> None:
        """Declare only the dtype of output `slot`[i] (a tensor array before its first write)."""
        names = self.output_names(slot)
        if i < len(names):
            self._set_var(names[i], None, np.dtype(dtype), None, None)

    def set_output_lod_level(self, slot: str, lod_level: int, i: int = 0) -> None:
        names = self.output_names(slot)
        if i < len(names):
            # Rules add levels read from a file: a huge declared lod_level must fail here,
            # not as an out-of-range int32 when the VarDesc is written.
            if not 0 <= lod_level <= MAX_LOD_LEVEL:
                self.fail(f"output {slot} ({names[i]}) would have lod_level {lod_level}; a "
                          f"LoD has 0 to {MAX_LOD_LEVEL} levels")
            self._set_var(names[i], None, None, lod_level, None)

    def share_lod(self, in_slot: str, out_slot: str, i: int = 0, j: int = 0) -> None:
        """Output `out_slot`[j] carries the LoD of input `in_slot`[i] (if both exist)."""
        ins, outs = self.input_names(in_slot), self.output_names(out_slot)
        if i < len(ins) and j < len(outs):
            self._share_lod(ins[i], outs[j])

    def set_output_type(self, slot: str, var_type: int, i: int | None = None) -> None:
        names = self.output_names(slot)
        for name in names if i is None else names[i : i + 1]:
            self._set_var(name, None, None, None, var_type)

    # -- failing ----------------------------------------------------------------
    def fail(self, message: str, hint: str | None = None):
        raise ShapeInferenceError(message, op=self.location(), hint=hint)

    def fail_var_type(self, message: str, hint: str | None = None):
        raise VarTypeInferenceError(message, op=self.location(), hint=hint)

    def enforce(self, condition: bool, message: str | Callable[[], str],
                hint: str | Callable[[], str] | None = None) -> None:
        """Fail with `message` (and `hint`) unless `condition`. Either may be a callable
        giving the text (`lambda: f"..."`): a rule runs on every compile and its messages
        are formatted only when it fails (the f-strings cost 0.03 ms an op)."""
        if not condition:
            self.fail(message() if callable(message) else message,
                      hint() if callable(hint) else hint)

    def enforce_positive(self, *names: str) -> None:
        """Each named attribute (an int or a list of ints) must hold only values >= 1:
        strides, window sizes and factors that numpy would divide by or loop over."""
        for name in names:
            value = self.attr(name)
            many = isinstance(value, (list, tuple))
            values = list(value) if many else [value]
            self.enforce(all(v >= 1 for v in values),
                         lambda: f"{name} must be positive (>= 1), got {values if many else value}")


def default_infer_var_type(ctx: InferContext) -> None:
    """Every output is a dense LoDTensor unless an op's own rule says otherwise."""
    for slot in ctx.output_slots():
        ctx.set_output_type(slot, LOD_TENSOR)


def dims_match(a: int, b: int) -> bool:
    """Two dims agree when equal or when either is unknown (-1)."""
    return a == b or a < 0 or b < 0


def dims_known(*dims: int) -> bool:
    """Every dim is known (not -1), so a rule can compare or compute with them."""
    return all(d >= 0 for d in dims)


def same_as_input(ctx: InferContext, src: str = "X", dst: str = "Out") -> None:
    """The shape rule of an op whose output `dst` has input `src`'s shape, dtype and LoD."""
    ctx.set_output(dst, ctx.input_shape(src), ctx.input_dtype(src))
    ctx.share_lod(src, dst)


def shape_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"
