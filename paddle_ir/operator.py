"""Operators at build time: the Operator view, and what appending an op checks.

Appending an op validates it against its op spec (slots, attribute types,
defaults), runs its var-type and shape inference over the block's VarDescs
through a BuildContext, and records the user's file:line that created it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from typing import TYPE_CHECKING

from paddle_ir.core.attrs import check_attr_value, from_attr_proto, to_attr_proto
from paddle_ir.core.errors import InvalidProgramError, OpLocation
from paddle_ir.ops import registry as op_registry
from paddle_ir.ops.context import InferContext, VarInfo, default_infer_var_type
from paddle_ir.printer import op_to_string
from paddle_ir.proto import framework_pb2 as pb
from paddle_ir.variable import Variable

if TYPE_CHECKING:  # Block is only named in annotations here
    from paddle_ir.framework import Block

GRAD_SUFFIX = "@GRAD"

_PACKAGE_DIRS = tuple(
    os.path.dirname(os.path.abspath(p)) + os.sep
    for p in (__file__, op_registry.__file__)
) + (os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "executor")
     + os.sep,)


_CONTEXTLIB = os.path.abspath(contextlib.__file__)


def grad_var_name(name: str) -> str:
    return name + GRAD_SUFFIX


@functools.lru_cache(maxsize=4096)
def _user_file(co_filename: str) -> str | None:
    """How to show a code file as a creation site, or None for paddle-ir's own files.

    Cached: every appended op walks the stack, and abspath/relpath per frame
    made building (and `paddle-ir check`, which rebuilds) cost more than running.
    """
    filename = os.path.abspath(co_filename)
    # `with loop.block():` appends the loop op from a context manager's exit.
    if filename.startswith(_PACKAGE_DIRS) or "importlib" in filename or filename == _CONTEXTLIB:
        return None
    try:
        shown = os.path.relpath(filename)
    except ValueError:  # another drive on Windows
        shown = filename
    return filename if shown.startswith(".." + os.sep + "..") else shown


def _creation_site() -> str | None:
    """file:line of the innermost frame outside paddle-ir itself (the user's line)."""
    frame = sys._getframe(2)
    while frame is not None:
        shown = _user_file(frame.f_code.co_filename)
        if shown is not None:
            return f"{shown}:{frame.f_lineno}"
        frame = frame.f_back
    return None


class Operator:
    """A view over one OpDesc: its type, slots and attributes."""

    def __init__(self, block: Block, desc: pb.OpDesc):
        self.block = block
        self.desc = desc

    @property
    def type(self) -> str:
        return self.desc.type

    @property
    def idx(self) -> int:
        return self.block.ops.index(self)

    def input(self, slot: str) -> list[str]:
        return next((list(v.arguments) for v in self.desc.inputs if v.parameter == slot), [])

    def output(self, slot: str) -> list[str]:
        return next((list(v.arguments) for v in self.desc.outputs if v.parameter == slot), [])

    @property
    def input_names(self) -> list[str]:
        return [v.parameter for v in self.desc.inputs]

    @property
    def output_names(self) -> list[str]:
        return [v.parameter for v in self.desc.outputs]

    @property
    def input_arg_names(self) -> list[str]:
        return [a for v in self.desc.inputs for a in v.arguments]

    @property
    def output_arg_names(self) -> list[str]:
        return [a for v in self.desc.outputs for a in v.arguments]

    def has_attr(self, name: str) -> bool:
        return any(a.name == name for a in self.desc.attrs)

    def attr(self, name: str):
        for a in self.desc.attrs:
            if a.name == name:
                return from_attr_proto(a)
        raise KeyError(f"op {self.type} has no attribute {name!r}")

    @property
    def attrs(self) -> dict:
        return {a.name: from_attr_proto(a) for a in self.desc.attrs}

    def _set_attr(self, name: str, value) -> None:
        opdef = op_registry.get_op_def(self.type)
        spec = opdef.attr_spec(name) if opdef else None
        if spec is None:
            raise InvalidProgramError(f"op {self.type} declares no attribute {name!r}")
        for i, a in enumerate(self.desc.attrs):
            if a.name == name:
                del self.desc.attrs[i]
                break
        self.desc.attrs.append(to_attr_proto(name, spec.kind, value))
        self.block.program._bump()

    @property
    def creation_site(self) -> str | None:
        return self.desc.creation_site if self.desc.HasField("creation_site") else None

    def location(self) -> OpLocation:
        return op_location(self.desc, self.block.idx, self.idx)

    def __repr__(self) -> str:
        return op_to_string(self.desc)


def op_location(desc: pb.OpDesc, block_idx: int, op_idx: int | None, shapes=None) -> OpLocation:
    return OpLocation(
        op_type=desc.type,
        block_idx=block_idx,
        op_idx=op_idx,
        inputs={v.parameter: list(v.arguments) for v in desc.inputs},
        outputs={v.parameter: list(v.arguments) for v in desc.outputs},
        creation_site=desc.creation_site if desc.HasField("creation_site") else None,
        shapes=shapes or {},
    )


class BuildContext(InferContext):
    """Inference over VarDescs, for an op being appended to a block."""

    is_runtime = False

    def __init__(self, op: Operator, attrs: dict, op_idx: int):
        self.op = op
        self.op_type = op.type
        self.attrs = attrs
        self._op_idx = op_idx
        self._inputs = {v.parameter: list(v.arguments) for v in op.desc.inputs}
        self._outputs = {v.parameter: list(v.arguments) for v in op.desc.outputs}

    def input_names(self, slot):
        return self._inputs.get(slot, [])

    def output_names(self, slot):
        return self._outputs.get(slot, [])

    def output_slots(self):
        return list(self._outputs)

    def var_info(self, name):
        var = self.op.block._var_recursive(name)
        return VarInfo(var.shape, var.dtype, var.lod_level, var.type)

    def _set_var(self, name, shape, dtype, lod_level, var_type):
        var = self.op.block._var_recursive(name)
        if var_type is not None:
            var.type = var_type
        if shape is not None:
            var.shape = shape
        if dtype is not None:
            var.dtype = dtype
        if lod_level is not None:
            var.lod_level = lod_level

    def _share_lod(self, src, dst):
        self._set_var(dst, None, None, self.op.block._var_recursive(src).lod_level, None)

    def location(self):
        shapes = {}
        for names in self._inputs.values():  # outputs have no shape until inference ran
            for n in names:
                var = self.op.block._find_var_recursive(n)
                if var is not None:
                    shapes[n] = var.shape
        return op_location(self.op.desc, self.op.block.idx, self._op_idx, shapes)


def _names_of(value) -> list[str]:
    """Slot arguments given as a Variable, a name, or a list of either."""
    if value is None:
        return []
    if isinstance(value, (Variable, str)):
        value = [value]
    names = []
    for item in value:
        if isinstance(item, Variable):
            names.append(item.name)
        elif isinstance(item, str):
            names.append(item)
        else:
            raise InvalidProgramError(
                f"a slot argument must be a Variable or a variable name, got {item!r}"
            )
    return names


def _check_slots_and_attrs(opdef, in_args, out_args, attrs, location) -> dict:
    """Validate slots against the op spec; return attrs with defaults filled, in spec order."""
    for kind, given, slots in (("input", in_args, opdef.inputs), ("output", out_args,
                                                                  opdef.outputs)):
        known = {s.name: s for s in slots}
        for slot, names in given.items():
            if slot not in known:
                raise InvalidProgramError(
                    f"{opdef.type} has no {kind} slot {slot!r}; its {kind}s are "
                    f"{[s.name for s in slots]}", op=location)
            if len(names) > 1 and not known[slot].duplicable:
                raise InvalidProgramError(
                    f"{kind} {slot} of {opdef.type} takes one variable, got {len(names)}: {names}",
                    op=location)
        for s in slots:
            if not s.dispensable and not given.get(s.name):
                raise InvalidProgramError(
                    f"{kind} {s.name} of {opdef.type} is required but was not given",
                    op=location)
    result = {}
    for spec in opdef.attrs:
        if spec.name in attrs:
            value = attrs.pop(spec.name)
        elif spec.required:
            raise InvalidProgramError(
                f"attribute {spec.name!r} of {opdef.type} is required", op=location)
        else:
            value = spec.default
        problem = check_attr_value(spec.kind, value)
        if problem:
            raise InvalidProgramError(
                f"attribute {spec.name!r} of {opdef.type} must be {problem}, got "
                f"{type(value).__name__} {value!r}", op=location)
        result[spec.name] = value
    for name, value in attrs.items():
        spec = op_registry.COMMON_ATTRS.get(name)
        if spec is None:
            raise InvalidProgramError(
                f"{opdef.type} has no attribute {name!r}; its attributes are "
                f"{[a.name for a in opdef.attrs]}", op=location)
        problem = check_attr_value(spec.kind, value)
        if problem:
            raise InvalidProgramError(
                f"attribute {name!r} must be {problem}, got {value!r}", op=location)
        result[name] = value
    return result


def infer_op(opdef, ctx: InferContext) -> None:
    """Var-type inference, then shape inference: the order both build and run time use."""
    (opdef.infer_var_type_fn or default_infer_var_type)(ctx)
    if opdef.infer_shape_fn is not None:
        opdef.infer_shape_fn(ctx)
