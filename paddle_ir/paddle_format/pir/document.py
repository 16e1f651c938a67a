"""Paddle 3.x's PIR program document (`model.json`), checked and decoded; nothing mapped yet.

    doc = parse_document(data, "DIR/model.json")   # -> Document

The encoding (Paddle's paddle/fluid/pir/serialize_deserialize, schema.h):

    {"base_code": {"magic": "pir", "version": V, "trainable": bool},
     "program": {"regions": [{"#": "region_0", "blocks": [BLOCK]}]}}
    BLOCK = {"#": "block_0", "args": [VALUE], "ops": [OP]}
    OP    = {"#": "D.name", "I": [{"%": id}], "O": [VALUE], "A": [ATTR], "OA": [...],
             "regions": [REGION]}               # regions only for control flow
    VALUE = {"%": id, "TT": TYPE}               # id 0 is the null value
    TYPE  = {"#": "0.t_dtensor", "D": [ELEMENT, dims, layout, lod, offset]} | {"#": "0.t_vec",
             "D": [TYPE]} | {"#": "0.t_f32"} ... | {"#": "NULL"}
    ATTR  = {"N": name, "AT": {"#": "D.a_kind", "D": data}}

D is a dialect number: 0 builtin, 1 pd_op, 2 cf, 3 custom_op, 4 dist. The parameter op
is compressed to {"#": "p", "A": [is_distributed, is_parameter, need_clip, name],
"O": VALUE, "OA": [persistable, stop_gradient, trainable]}.

Versions 1-4 are what Paddle 3.0-3.3 write. Paddle's patches between them (patch/N.yaml)
change attribute widths (int32 -> int64, float -> double), add attributes with their
defaults and add an output to slogdet; the first two do not reach values as paddle-ir
reads them (numbers are numbers) and the op table supplies every default, so no version
needs its document rewritten; a version outside 1-4 is refused by name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from paddle_ir.paddle_format.convert import PaddleFormatError
from paddle_ir.proto import framework_pb2 as pb

KNOWN_VERSIONS = (1, 2, 3, 4)
MAX_NESTING = 64  # regions inside ops inside regions: the ProgramDesc's block bound
DIALECTS = {"0": "builtin", "1": "pd_op", "2": "cf", "3": "custom_op", "4": "dist_op"}
PARAMETER_OP = "builtin.parameter"

ELEMENT_TYPES = {
    "t_bool": pb.BOOL, "t_i8": pb.INT8, "t_ui8": pb.UINT8, "t_i16": pb.INT16,
    "t_i32": pb.INT32, "t_i64": pb.INT64, "t_f16": pb.FP16, "t_bf16": pb.BF16,
    "t_f32": pb.FP32, "t_f64": pb.FP64, "t_c64": pb.COMPLEX64, "t_c128": pb.COMPLEX128,
}
# phi's DataTypeToString names, as a_dtype attributes hold them; -1 is "undefined".
DTYPE_NAMES = {
    "bool": pb.BOOL, "int8": pb.INT8, "uint8": pb.UINT8, "int16": pb.INT16,
    "int32": pb.INT32, "int64": pb.INT64, "float16": pb.FP16, "bfloat16": pb.BF16,
    "float32": pb.FP32, "float64": pb.FP64, "complex64": pb.COMPLEX64,
    "complex128": pb.COMPLEX128, "Undefined": -1, "undefined": -1,
    "Undefined(ALL_DTYPE)": -1,  # what Paddle's translator writes for "the input's"
}


@dataclass(frozen=True)
class ValueType:
    """A value's type: a dense tensor (dtype, dims, lod_level), a vector of types, or null."""

    kind: str  # "tensor", "array" (a tensor array), "vector" or "null"
    dtype: int = pb.FP32
    dims: tuple[int, ...] = ()
    lod_level: int = 0
    elements: tuple[ValueType, ...] = ()


NULL_TYPE = ValueType("null")


@dataclass
class Operation:
    name: str  # dialect spelled out: "pd_op.matmul", "builtin.parameter"
    index: int  # position in its block, for messages
    operands: list[int]
    results: list[tuple[int, ValueType]]
    attrs: dict[str, object]
    regions: list[list[Block]] = field(default_factory=list)

    def where(self, block: str = "block_0") -> str:
        return f"{block}, op #{self.index} {self.name}"


@dataclass
class Block:
    name: str
    args: list[tuple[int, ValueType]]
    ops: list[Operation]


@dataclass
class Document:
    source: str
    version: int
    trainable: bool
    block: Block


class _Reader:
    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, message: str):
        raise PaddleFormatError(f"{self.source}: {where}: {message}")

    def need(self, obj, key: str, kind, where: str, default=None):
        if not isinstance(obj, dict):
            self.fail(where, f"expected a JSON object, got {_kind(obj)}")
        if key not in obj:
            if default is not None:
                return default
            self.fail(where, f"has no {key!r}")
        value = obj[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            self.fail(where, f"{key!r} must be a JSON {names}, got {_kind(value)}")
        if kind is int and not _is_int(value):
            self.fail(where, f"{key!r} = {_short(value)} is beyond the int64 range")
        return value

    # --- types and attributes -----------------------------------------------------------

    def value_type(self, obj, where: str, depth: int = 0) -> ValueType:
        if depth > MAX_NESTING:
            self.fail(where, f"types nested more than {MAX_NESTING} deep")
        ident = self.need(obj, "#", str, where)
        if ident == "NULL":
            return NULL_TYPE
        short = ident.split(".", 1)[-1]
        if short in ("t_dtensor", "t_dtensor_array", "t_tensor_array"):
            data = self.need(obj, "D", list, where)
            if len(data) < 3 if short != "t_dtensor" else len(data) < 5:
                self.fail(where, f"a {short} type needs [element, dims, layout"
                                 f"{', lod, offset' if short == 't_dtensor' else ''}], "
                                 f"got {len(data)} item(s)")
            element = self.value_type(data[0], where, depth + 1)
            if element.kind != "element":
                self.fail(where, f"a tensor's element type must be a scalar type, got {ident}")
            dims = data[1]
            if not isinstance(dims, list) or not all(_is_int(d) and d >= -1 for d in dims):
                self.fail(where, f"dims must be a list of integers >= -1, got {_short(dims)}")
            if len(dims) > 32:
                self.fail(where, f"a tensor of {len(dims)} dims; paddle-ir allows at most 32")
            lod = data[3] if short == "t_dtensor" else []
            if not isinstance(lod, list):
                self.fail(where, f"the LoD must be a list, got {_kind(lod)}")
            kind = "tensor" if short == "t_dtensor" else "array"
            return ValueType(kind, element.dtype, tuple(dims), len(lod))
        if short == "t_vec":
            data = self.need(obj, "D", list, where)
            return ValueType("vector", elements=tuple(
                self.value_type(t, where, depth + 1) for t in data))
        if short in ELEMENT_TYPES:
            return ValueType("element", ELEMENT_TYPES[short])
        self.fail(where, f"type {ident!r} is not one paddle-ir knows (dense tensors, "
                         f"tensor arrays, vectors and scalar element types)")
        raise AssertionError  # unreachable

    def attr_value(self, obj, where: str, depth: int = 0):
        if depth > MAX_NESTING:
            self.fail(where, f"attributes nested more than {MAX_NESTING} deep")
        ident = self.need(obj, "#", str, where)
        short = ident.split(".", 1)[-1]
        data = obj.get("D") if isinstance(obj, dict) else None
        checks = {"a_bool": bool, "a_str": str, "a_tensorname": str, "a_layout": str}
        if short in checks:
            if not isinstance(data, checks[short]):
                self.fail(where, f"a {short} attribute holds {_kind(data)}")
            return data
        if short in ("a_i32", "a_i64", "a_index"):
            if not _is_int(data):
                self.fail(where, f"a {short} attribute holds {_kind(data)}, not an integer")
            return data
        if short in ("a_f32", "a_f64"):
            if not _is_number(data):
                self.fail(where, f"a {short} attribute holds {_kind(data)}, not a number")
            return float(data)
        if short == "a_array":
            if not isinstance(data, list):
                self.fail(where, f"an a_array attribute holds {_kind(data)}, not a list")
            return [self.attr_value(item, where, depth + 1) for item in data]
        if short == "a_intarray":
            if not isinstance(data, list) or not all(_is_int(d) for d in data):
                self.fail(where, f"an a_intarray attribute holds {_short(data)}")
            return list(data)
        if short == "a_dtype":
            if not isinstance(data, str) or data not in DTYPE_NAMES:
                self.fail(where, f"data type {_short(data)} is not one paddle-ir has "
                                 f"({', '.join(n for n in DTYPE_NAMES if n[0].islower())})")
            return DTYPE_NAMES[data]
        if short == "a_scalar":
            if (not isinstance(data, list) or len(data) < 2 or not isinstance(data[0], str)
                    or data[0] not in DTYPE_NAMES
                    or not all(_is_number(v) for v in data[1:])):
                self.fail(where, f"an a_scalar attribute holds {_short(data)}; expected "
                                 f"[dtype, value]")
            if len(data) > 2:
                self.fail(where, "a complex scalar attribute, which paddle-ir does not "
                                 "implement")
            return data[1]
        if short == "a_place":
            return "place"  # a device choice, never math
        if short == "a_type":
            return self.value_type(data, where, depth + 1)
        self.fail(where, f"attribute kind {ident!r} is not one paddle-ir knows")
        raise AssertionError  # unreachable

    # --- structure ---------------------------------------------------------------------

    def block(self, obj, where: str, depth: int) -> Block:
        name = self.need(obj, "#", str, where)
        where = f"{where} {name}"
        args = [self.result(a, f"{where}, argument #{i}", arg=True)
                for i, a in enumerate(self.need(obj, "args", list, where))]
        ops = [self.operation(o, i, where, depth)
               for i, o in enumerate(self.need(obj, "ops", list, where))]
        return Block(name, args, ops)

    def result(self, obj, where: str, arg: bool = False) -> tuple[int, ValueType]:
        ident = self.need(obj, "%" if not arg else "#", int, where)
        return ident, self.value_type(self.need(obj, "TT", dict, where), where)

    def operation(self, obj, index: int, block: str, depth: int) -> Operation:
        where = f"{block}, op #{index}"
        name = self.need(obj, "#", str, where)
        where = f"{where} {name}"
        if name == "p":
            return self.parameter(obj, index, where)
        dialect, _, short = name.partition(".")
        if dialect not in DIALECTS or not short:
            self.fail(where, f"op name {name!r} has no known dialect number "
                             f"({', '.join(f'{k} {v}' for k, v in DIALECTS.items())})")
        full = f"{DIALECTS[dialect]}.{short}"
        operands = []
        for i, operand in enumerate(self.need(obj, "I", list, where, default=[])):
            operands.append(self.need(operand, "%", int, f"{where}, operand #{i}"))
        results = [self.result(r, f"{where}, result #{i}")
                   for i, r in enumerate(self.need(obj, "O", list, where, default=[]))]
        attrs = {}
        for i, attr in enumerate(self.need(obj, "A", list, where, default=[])):
            at = f"{where}, attribute #{i}"
            attr_name = self.need(attr, "N", str, at)
            attrs[attr_name] = self.attr_value(self.need(attr, "AT", dict, at),
                                               f"{where}, attribute {attr_name}")
        regions = []
        for r, region in enumerate(self.need(obj, "regions", list, where, default=[])):
            if depth + 1 > MAX_NESTING:
                self.fail(where, f"regions nested more than {MAX_NESTING} deep")
            at = f"{where}, region #{r}"
            regions.append([self.block(b, at, depth + 1)
                            for b in self.need(region, "blocks", list, at)])
        return Operation(full, index, operands, results, attrs, regions)

    def parameter(self, obj, index: int, where: str) -> Operation:
        attrs = self.need(obj, "A", list, where)
        if len(attrs) < 4 or not isinstance(attrs[3], str) or not attrs[3]:
            self.fail(where, f"a parameter op's A must be [is_distributed, is_parameter, "
                             f"need_clip, name], got {_short(attrs)}")
        result = self.need(obj, "O", dict, where)
        # OA is [persistable, stop_gradient, trainable]; a non-persistable one (rnn's
        # dropout state) has no record in .pdiparams
        flags = obj.get("OA") if isinstance(obj, dict) else None
        persistable = not (isinstance(flags, list) and flags and flags[0] in (0, False))
        return Operation(PARAMETER_OP, index, [], [self.result(result, where)],
                         {"parameter_name": attrs[3], "persistable": persistable})


def parse_document(data: bytes, source: str) -> Document:
    """The checked document of a PIR `.json` program; PaddleFormatError says what is wrong."""
    try:
        root = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        raise PaddleFormatError(f"{source} is not a Paddle PIR program: it is not JSON "
                                f"({exc})") from None
    except RecursionError:
        raise PaddleFormatError(f"{source} is not a Paddle PIR program: its JSON nests "
                                f"too deep to read") from None
    reader = _Reader(source)
    if not isinstance(root, dict) or "base_code" not in root:
        reader.fail("the document", "is JSON but not a Paddle PIR program (no base_code "
                                    "object); Paddle 3 writes model.json with "
                                    "base_code and program")
    base = reader.need(root, "base_code", dict, "the document")
    magic = base.get("magic")
    if magic != "pir":
        reader.fail("base_code", f"magic is {_short(magic)}, not 'pir'")
    version = reader.need(base, "version", int, "base_code")
    if version not in KNOWN_VERSIONS:
        raise PaddleFormatError(
            f"{source} is a Paddle PIR program of version {version}, which paddle-ir does "
            f"not know (it reads versions {KNOWN_VERSIONS[0]}-{KNOWN_VERSIONS[-1]}, "
            f"written by Paddle 3.0-3.3)",
            hint="save the model with Paddle 3.3 or older, or in old-IR mode "
                 "(FLAGS_enable_pir_api=0) as .pdmodel")
    trainable = base.get("trainable", False)
    program = reader.need(root, "program", dict, "the document")
    regions = reader.need(program, "regions", list, "program")
    if len(regions) != 1:
        reader.fail("program", f"has {len(regions)} top-level regions; a program has one")
    blocks = reader.need(regions[0], "blocks", list, "program region_0")
    if len(blocks) != 1:
        reader.fail("program region_0", f"has {len(blocks)} blocks; a program has one")
    return Document(source, version, bool(trainable), reader.block(blocks[0], "program", 0))


MAX_LISTED = 20  # problems shown in one error; the rest are counted


def listed(problems: list[str]) -> str:
    """Problems one per line (the first MAX_LISTED, then how many more)."""
    shown = problems[:MAX_LISTED]
    more = (f"\n  ... and {len(problems) - len(shown)} more"
            if len(problems) > len(shown) else "")
    return "".join(f"\n  {p}" for p in shown) + more


def counted(kinds: dict[str, int]) -> str:
    """Op types with their counts: `pd_op.fancier, pd_op.fancy (x2)`."""
    return ", ".join(f"{n} (x{c})" if c > 1 else n for n, c in sorted(kinds.items()))


def _is_int(v) -> bool:
    """An integer Paddle could have written: an int64 (JSON itself has no bound)."""
    return isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63


def _is_number(v) -> bool:
    return _is_int(v) or isinstance(v, float)


def _kind(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null", int: "an integer", float: "a number"}.get(
        type(value), type(value).__name__)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
