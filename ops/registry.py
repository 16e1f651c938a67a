"""The operator registry: one `OpDef` per op type, holding its whole story.

An OpDef carries the op's spec (input and output slots, typed attributes with
defaults, a docstring with the formula), its var-type inference, its shape
inference, its kernels keyed by (storage types of the key inputs, dtype,
place), an opt-in densify fallback, and its grad maker. Build time (the
builder) and run time (the executor) both consult it.

Op modules load on demand: `get_op_def(type)` imports the module that registers
`type` the first time it is asked (the generated table `ops/_index.py` says
which; `make op-index` rewrites it), so `import paddle_ir` does not pay for the
~90 op modules a program mostly does not use. `registered_op_types()` and
`load_all()` load every one. Each op's whole definition lives in the module that registers
it, so the order modules load in changes nothing. The registry only grows, and
an OpDef is complete once its module has loaded. (paddle-ir's other
module-level state: the builder's default programs and
name generator, the global scope, the core's default-program slot, and the
allocator setting applied once per process.)

Kernels are pure functions `kernel(attrs, *inputs) -> output(s)`: inputs come
in slot order (a list for a duplicable slot, None for an absent dispensable
one), dense tensors as ndarrays, SelectedRows as SelectedRows; a kernel that
declares `lod=True` gets LoDTensor objects for its dense inputs instead and
returns LoDTensors. A single output is returned bare, several as a tuple in
slot order.
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paddle_ir.core.attrs import ATTR_KINDS, check_attr_value, from_attr_proto
from paddle_ir.core.errors import PaddleIRError, ShapeInferenceError
from paddle_ir.core.kinds import STYPE_DENSE
from paddle_ir.ops._index import MODULE_OPS
from paddle_ir.ops.context import default_infer_var_type
from paddle_ir.ops.inert_attrs import INERT
from paddle_ir.ops.paddle_attrs import PADDLE_ATTRS
from paddle_ir.proto import framework_pb2 as pb

# Kernel keys name storage types (core/kinds.py holds the vocabulary); DENSE is the
# short name every op module uses.
DENSE = STYPE_DENSE
CPU = "cpu"

FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
INTS = (np.dtype(np.int32), np.dtype(np.int64))
# The kernels of ops with no key input (tensor arrays, load): the executor asks for float32.
CONTROL_DTYPES = (np.dtype(np.float32),)
NUMERIC = FLOATS + INTS
# The narrow integers and bool, for the ops whose Paddle CPU kernels take them (issue 26:
# quantized tables, uint8 images, masks).
SMALL_INTS = tuple(np.dtype(t) for t in (np.uint8, np.int8, np.int16))
BOOL = (np.dtype(np.bool_),)
ALL_DTYPES = tuple(np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.int32,
                                          np.int64, np.float16, np.float32, np.float64,
                                          np.complex64, np.complex128, np.uint16))

REQUIRED = object()  # an attribute without a default must be given


@dataclass(frozen=True)
class Slot:
    """An input or output slot of an op's spec."""

    name: str
    doc: str = ""
    duplicable: bool = False
    dispensable: bool = False
    # The kernels read only this input's shape and dtype (Paddle's NoNeedBufferVars): the
    # executor may free its data after the last op that reads the data.
    no_need_buffer: bool = False
    # The op reads one of this slot's variables, chosen at run time (select_input): the
    # others may hold no value, which the executor then does not count as an error.
    may_be_unset: bool = False


@dataclass(frozen=True)
class AttrSpec:
    """A typed attribute of an op's spec, with its default (REQUIRED: none)."""

    name: str
    kind: str
    default: Any = REQUIRED
    doc: str = ""
    # Set on the specs the registry makes for attributes Paddle declares and the op module
    # does not (ops/paddle_attrs.py): INERT_ATTR if it cannot change the result
    # (ops/inert_attrs.py), so any value is accepted; PADDLE_DEFAULT_ONLY otherwise, so
    # only Paddle's default is.
    paddle_only: str = ""

    def __post_init__(self):
        if self.kind not in ATTR_KINDS:
            raise ValueError(f"attribute {self.name!r}: unknown kind {self.kind!r}")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def implemented(self) -> bool:
        """Whether the op's kernels read this attribute (declared by the op module)."""
        return not self.paddle_only


def In(name: str, doc: str = "", *, duplicable=False, dispensable=False,  # noqa: N802
       no_need_buffer=False, may_be_unset=False) -> Slot:
    return Slot(name, doc, duplicable, dispensable, no_need_buffer, may_be_unset)


Out = In
Attr = AttrSpec


@dataclass(frozen=True)
class KernelKey:
    """What selects a kernel: the key inputs' storage types, the dtype, the place."""

    storage: tuple[str, ...]
    dtype: np.dtype
    place: str = CPU

    def __str__(self) -> str:
        return f"({', '.join(self.storage)}; {self.dtype}; {self.place})"


@dataclass
class Kernel:
    """A registered kernel function and how the executor calls it."""

    fn: Callable
    key: KernelKey
    lod: bool  # takes and returns LoDTensors for dense values
    # A control-flow kernel (while, conditional_block): called as fn(ctx, attrs, *inputs)
    # with an executor.control.ControlContext, it runs sub-blocks and writes its outputs
    # through ctx.scope instead of returning them.
    control: bool

    @property
    def name(self) -> str:
        return getattr(self.fn, "__qualname__", repr(self.fn))


# Attributes every op may carry without declaring them (PaddlePaddle's roles).
COMMON_ATTRS = {
    "op_role": AttrSpec("op_role", "int", 0,
                        "0 forward, 1 backward, 2 optimize, 16 learning-rate schedule, 256 loss"),
}
INERT_ATTR, PADDLE_DEFAULT_ONLY = "inert", "default only"
_INERT_SPECS = {name: AttrSpec(name, kind, default, "does not change the result",
                               paddle_only=INERT_ATTR)
                for name, (kind, default) in INERT.items()}


def paddle_forward_type(op_type: str) -> str:
    """The op type whose Paddle definition declares `op_type`'s attributes: a grad op
    carries its forward op's (mul_grad_grad -> mul, cross_entropy_grad2 ->
    cross_entropy2)."""
    return re.sub(r"(_grad)+(\d*)$", r"\2", op_type)


def _paddle_specs(op_type: str) -> dict[str, AttrSpec]:
    """Specs for every attribute Paddle's definition of `op_type` declares."""
    specs = {}
    for name, (kind, default) in PADDLE_ATTRS.get(paddle_forward_type(op_type), {}).items():
        specs[name] = AttrSpec(name, kind, REQUIRED if default is None else default,
                               "declared by Paddle; paddle-ir does not read it",
                               paddle_only=INERT_ATTR if name in INERT else PADDLE_DEFAULT_ONLY)
    return specs


def same_attr_value(kind: str, value, default) -> bool:
    """Whether `value` is `default` as the desc stores it (FLOAT kinds as float32)."""
    if default is REQUIRED:
        return False
    if kind in ("floats", "float64s", "ints", "longs", "bools", "strings"):
        return len(value) == len(default) and all(
            same_attr_value(kind[:-1], v, d) for v, d in zip(value, default, strict=True))
    if kind == "float":
        return bool(np.float32(value) == np.float32(default))
    return bool(value == default)  # (check_attr_value has kept bools and numbers apart)


OP_ROLE_FORWARD, OP_ROLE_BACKWARD, OP_ROLE_OPTIMIZE, OP_ROLE_LOSS = 0, 1, 2, 256
OP_ROLE_LRSCHED = 16  # Fluid's OpRole.LRSched


@dataclass
class OpDef:
    """An op type's spec, inference rules, kernels and grad maker (the module doc)."""

    type: str
    doc: str
    inputs: tuple[Slot, ...]
    outputs: tuple[Slot, ...]
    attrs: tuple[AttrSpec, ...]
    # Slots whose storage types select the kernel, and the slot (or "attr:NAME")
    # whose dtype does.
    key_inputs: tuple[str, ...] = ()
    dtype_from: str | None = None
    # Densify SelectedRows inputs and use the dense kernel when no kernel matches.
    fallback: bool = False
    infer_shape_fn: Callable | None = None
    infer_var_type_fn: Callable | None = None
    grad_maker_fn: Callable | None = None
    kernels: dict[KernelKey, Kernel] = field(default_factory=dict)
    # Output slots the op may leave unwritten (a conditional_block that does not run)
    # keep their prior values there: the executor binds them before the op
    may_skip_outputs: tuple[str, ...] = ()
    # The module whose import registered the op (what ops/_index.py records).
    module: str = ""

    # -- lookups -------------------------------------------------------------------
    def input_slot(self, name: str) -> Slot | None:
        return next((s for s in self.inputs if s.name == name), None)

    def output_slot(self, name: str) -> Slot | None:
        return next((s for s in self.outputs if s.name == name), None)

    def attr_spec(self, name: str) -> AttrSpec | None:
        return self._attr_index.get(name)

    @functools.cached_property
    def _attr_index(self) -> dict[str, AttrSpec]:
        """name -> spec, built once per op type (every op's compile looks up each attribute
        it carries: a scan of the spec per lookup cost a compile more than the lookups)."""
        index = dict(_INERT_SPECS)
        index.update(COMMON_ATTRS)
        index.update(_paddle_specs(self.type))
        index.update((a.name, a) for a in reversed(self.attrs))  # the first of a name wins
        return index

    def find_kernel(self, key: KernelKey) -> Kernel | None:
        return self.kernels.get(key)

    def kernel_list(self) -> str:
        if not self.kernels:
            return "(none)"
        return ", ".join(str(k) for k in sorted(self.kernels, key=str))

    # -- checking an op against this spec ----------------------------------------------
    def problems(self, inputs: Mapping[str, Sequence[str]], outputs: Mapping[str, Sequence[str]],
                 attrs: Mapping[str, Any]) -> list[str]:
        """Everything wrong with an op of this type that binds `inputs` and `outputs` (slot
        -> variable names) and sets `attrs` (name -> value; defaults not filled in).

        The one statement of these rules: the builder raises the first problem, the
        executor raises the first, and `paddle-ir check` lists them all.
        """
        found = []
        for kind, given, slots in (("input", inputs, self.inputs),
                                   ("output", outputs, self.outputs)):
            known = {s.name: s for s in slots}
            for slot, names in given.items():
                spec = known.get(slot)
                if spec is None:
                    found.append(f"{self.type} has no {kind} slot {slot!r}; its {kind}s are "
                                 f"{list(known)}")
                elif len(names) > 1 and not spec.duplicable:
                    found.append(f"{kind} {slot} of {self.type} takes one variable, got "
                                 f"{len(names)}: {list(names)}")
            for s in slots:
                if not s.dispensable and not given.get(s.name):
                    found.append(f"{kind} {s.name} of {self.type} is required but is not given")
        for name, value in attrs.items():
            problem = self.attr_problem(name, value)
            if problem:
                found.append(problem)
        for spec in self.attrs:
            if spec.required and spec.name not in attrs:
                found.append(f"attribute {spec.name!r} of {self.type} is required but is not "
                             f"given")
        return found

    def attr_problem(self, name: str, value) -> str | None:
        """What is wrong with setting attribute `name` of this op to `value`, or None.

        An attribute Paddle declares that the op module does not implement is accepted
        whatever its value when it cannot change the result (ops/inert_attrs.py), and
        only at Paddle's default otherwise: never silently ignored.
        """
        spec = self.attr_spec(name)
        if spec is None:
            return (f"{self.type} has no attribute {name!r}; its attributes are "
                    f"{[a.name for a in self.attrs]}")
        problem = check_attr_value(spec.kind, value)
        if problem:
            return (f"attribute {name!r} of {self.type} must be {problem}, got "
                    f"{type(value).__name__} {value!r}")
        if spec.paddle_only == PADDLE_DEFAULT_ONLY and not same_attr_value(
                spec.kind, value, spec.default):
            supported = ("Paddle gives it no default, so no value is"
                         if spec.required else f"only Paddle's default {spec.default!r} is")
            return (f"attribute {name!r} of {self.type} = {value!r} changes the result and "
                    f"paddle-ir does not implement it: {supported} supported")
        return None

    def decode_attrs(self, protos: Iterable[pb.OpDesc.Attr]) -> tuple[dict, list[str]]:
        """The values of a parsed OpDesc's attributes, for `problems`, and what is wrong
        on the wire: an attribute stored as another AttrType than its kind's (left out of
        the values)."""
        values, found = {}, []
        for a in protos:
            spec = self.attr_spec(a.name)
            # (every AttrType of the schema has a kind: proto2 keeps out unknown ones)
            if spec is not None and a.type != ATTR_KINDS[spec.kind][0]:
                found.append(f"attribute {a.name!r} of {self.type} must be {spec.kind} "
                             f"(AttrType {pb.AttrType.Name(ATTR_KINDS[spec.kind][0])}), but "
                             f"the program stores {pb.AttrType.Name(a.type)}")
            else:  # an unknown name is `problems`' to report
                values[a.name] = from_attr_proto(a)
        return values, found

    def with_defaults(self, attrs: Mapping[str, Any]) -> dict:
        """`attrs` with every unset attribute of the spec at its default, in spec order."""
        full = {spec.name: attrs[spec.name] if spec.name in attrs else spec.default
                for spec in self.attrs}
        full.update((name, value) for name, value in attrs.items() if name not in full)
        return full

    def infer(self, ctx) -> None:
        """Var-type inference, then shape inference, over `ctx` (an ops.context.InferContext):
        the one order the builder, the executor and `paddle-ir check` use."""
        try:
            (self.infer_var_type_fn or default_infer_var_type)(ctx)
            if self.infer_shape_fn is not None:
                self.infer_shape_fn(ctx)
        except (PaddleIRError, MemoryError):
            raise
        except Exception as exc:  # a rule tripped over an input it did not check: say where
            raise ShapeInferenceError(
                f"the shape rule of {self.type} failed on these inputs and attributes "
                f"({type(exc).__name__}: {exc})", op=ctx.location()) from exc

    # -- decorators used by op modules ---------------------------------------------
    def infer_shape(self, fn: Callable) -> Callable:
        self.infer_shape_fn = fn
        return fn

    def infer_var_type(self, fn: Callable) -> Callable:
        self.infer_var_type_fn = fn
        return fn

    def grad_maker(self, fn: Callable) -> Callable:
        self.grad_maker_fn = fn
        return fn

    def kernel(
        self,
        storage: Iterable[str] | None = None,
        dtypes: Iterable[np.dtype] = FLOATS,
        place: str = CPU,
        lod: bool = False,
        control: bool = False,
    ) -> Callable:
        """Register `fn` for every dtype in `dtypes` with the given key storage types."""
        stypes = tuple(storage) if storage is not None else (DENSE,) * len(self.key_inputs)
        if len(stypes) != len(self.key_inputs):
            raise ValueError(f"{self.type}: kernel storage {stypes} does not match key inputs "
                             f"{self.key_inputs}")

        def register(fn: Callable) -> Callable:
            for dt in dtypes:
                key = KernelKey(stypes, np.dtype(dt), place)
                if key in self.kernels:
                    raise ValueError(f"{self.type}: kernel {key} registered twice")
                self.kernels[key] = Kernel(fn, key, lod, control)
            return fn

        return register


_REGISTRY: dict[str, OpDef] = {}


def register_op(
    op_type: str,
    *,
    inputs: Iterable[Slot] = (),
    outputs: Iterable[Slot] = (),
    attrs: Iterable[AttrSpec] = (),
    doc: str = "",
    key_inputs: Iterable[str] | None = None,
    dtype_from: str | None = None,
    fallback: bool = False,
    may_skip_outputs: Iterable[str] = (),
) -> OpDef:
    """Declare an op type. Kernels, inference rules and the grad maker attach to the result."""
    module = _importing_module()
    owner = _MODULE_OF.get(op_type)
    if owner is not None and owner != module and owner not in _LOADED:
        _load(owner)  # an op module's type registered from elsewhere fails here, not later
    if op_type in _REGISTRY:
        raise ValueError(f"op type {op_type!r} is registered twice")
    inputs, outputs, attrs = tuple(inputs), tuple(outputs), tuple(attrs)
    if key_inputs is None:
        key_inputs = (inputs[0].name,) if inputs else ()
    key_inputs = tuple(key_inputs)
    if dtype_from is None:
        dtype_from = key_inputs[0] if key_inputs else None
    opdef = OpDef(op_type, doc.strip(), inputs, outputs, attrs, key_inputs, dtype_from, fallback)
    opdef.may_skip_outputs = tuple(may_skip_outputs)
    opdef.module = module
    _REGISTRY[op_type] = opdef
    return opdef


def _importing_module() -> str:
    """The module whose top-level code is running (the innermost one on the stack): the
    op module that registers, also when it does so through a helper of another module."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    return frame.f_globals.get("__name__", "") if frame is not None else ""


# op type -> the module that registers it, from the generated table.
_MODULE_OF = {t: module for module, types in MODULE_OPS.items() for t in types}
_LOADED: set[str] = set()  # modules of MODULE_OPS imported through _load


def _load(module: str) -> None:
    # import_module waits while another thread is importing the module, so an OpDef is
    # never handed out half-built.
    importlib.import_module(module)
    _LOADED.add(module)


def get_op_def(op_type: str) -> OpDef | None:
    module = _MODULE_OF.get(op_type)
    if module is not None and module not in _LOADED:
        _load(module)
    return _REGISTRY.get(op_type)


def load_all() -> None:
    """Import every op module (for whatever enumerates the ops)."""
    for module in MODULE_OPS:
        if module not in _LOADED:
            _load(module)


def registered_op_types() -> list[str]:
    load_all()
    return sorted(_REGISTRY)
