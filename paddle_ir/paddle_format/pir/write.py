"""paddle-ir's ProgramDesc -> Paddle 3's PIR program document (`model.json`).

    data = write_pir_program(desc)     # bytes Paddle 3.x's load_inference_model reads

The inverse of the reader: each old-IR op goes to the PIR op whose op_table.OPS entry
names it (`inverse()`), its input slots to that entry's operands, its attributes back
through the entry's renames; an attribute PIR passes as a value (an `Arg`) becomes a
pd_op.full / pd_op.full_int_array constant, or the tensor the old op already gives for
it. signatures.py (learnt from Paddle itself) supplies what the table does not: each
PIR op's attribute kinds and Paddle's defaults for attributes the old op lacks, and the
dtype Paddle gives each constant operand. A few old idioms PIR spells differently go
through lowering.py (mul, elementwise ops with an `axis`, fill_constant).

Variables become SSA values: an op's output gets a fresh value id and the name then
refers to it, so an old program that writes one name twice (batch_norm's MeanOut) still
reads the newest value. Parameters become `p` ops and are read from .pdiparams in
sorted name order, as Paddle writes them. Problems are gathered and reported together.
"""

from __future__ import annotations

import json

from paddle_ir.core.attrs import from_attr_proto
from paddle_ir.ops import registry as op_registry
from paddle_ir.paddle_format.convert import PaddleFormatError
from paddle_ir.paddle_format.pir.document import DTYPE_NAMES, ELEMENT_TYPES, counted, listed
from paddle_ir.paddle_format.pir.op_table import NOOP_ATTRS, OPS, WITHOUT, Arg, PirOp, Unused
from paddle_ir.paddle_format.pir.signatures import ATTRS, NO_PIR_OP, OPERANDS, RESULTS
from paddle_ir.proto import framework_pb2 as pb

WRITTEN_VERSION = 4  # what Paddle 3.3 writes (document.KNOWN_VERSIONS)
_ELEMENT_NAMES = {v: k for k, v in ELEMENT_TYPES.items()}
_DTYPE_NAMES = {v: k for k, v in DTYPE_NAMES.items() if v >= 0 and k[0].islower()}
_UNDEFINED_DTYPE = "Undefined(ALL_DTYPE)"
# Old attributes that only steer a device, a library or training bookkeeping: dropped
# whatever their value. Any other old attribute PIR has no place for must keep its
# default, or the op is refused (its meaning would be lost).
BOOKKEEPING = frozenset({
    "use_cudnn", "use_mkldnn", "use_quantizer", "mkldnn_data_type", "is_test",
    "op_role", "op_role_var", "op_namescope", "op_callstack", "op_device",
    "with_quant_attr", "workspace_size_MB", "exhaustive_search", "fuse_relu_before_depthwise_conv",
    "data_format", "in_dtype", "is_sparse", "is_distributed", "remote_prefetch",
    "use_addto", "force_fp32_output", "Scale_in", "Scale_out", "Scale_x", "Scale_y",
})


def inverse() -> dict[str, list[str]]:
    """Old op type -> the PIR ops op_table.OPS maps to it, in the table's order."""
    found: dict[str, list[str]] = {}
    for name, entry in OPS.items():
        found.setdefault(entry.type, []).append(name)
    for (name, _), entry in WITHOUT.items():  # written through the full entry, operand null
        found.setdefault(entry.type, []).append(name)
    return found


INVERSE = inverse()


def _pick(old_type: str, attrs: dict) -> str:
    """The PIR op for an old op: the first whose fixed attributes the op has (tril_triu's
    `lower` picks pd_op.tril or pd_op.triu); split's sections choose pd_op.split over
    pd_op.split_with_num."""
    names = INVERSE[old_type]
    if old_type == "split":
        return "pd_op.split" if attrs.get("sections") else "pd_op.split_with_num"
    for name in names:
        if all(attrs.get(k, v) == v for k, v in OPS[name].fixed.items()):
            return name
    return names[0]  # mapped() says which fixed value does not fit


def writable_ops() -> list[str]:
    """The old op types paddle-ir writes as PIR (the table's, plus lowering.py's)."""
    from paddle_ir.paddle_format.pir.lowering import LOWERED

    return sorted({*INVERSE, *LOWERED})


def tensor_type(dtype: int, dims, lod_level: int = 0) -> dict:
    element = _ELEMENT_NAMES.get(dtype)
    if element is None:
        raise PaddleFormatError(f"PIR has no tensor element type for data type {dtype} "
                                f"(it has {sorted(_ELEMENT_NAMES)})")
    return {"#": "0.t_dtensor", "D": [{"#": f"0.{element}"}, [int(d) for d in dims], "NCHW",
                                      [[] for _ in range(lod_level)], 0]}


def _attr(kind: str, value) -> dict:
    return {"#": kind, "D": value}


def _bools(name: str, values: list[bool]) -> dict:
    return {"N": name, "AT": _attr("0.a_array", [_attr("0.a_bool", v) for v in values])}


def encode(default: dict, value, where: str):
    """`value` in the encoding of Paddle's `default` for the attribute (its kind)."""
    kind = default["#"]
    short = kind.split(".", 1)[-1]
    if short == "a_array":
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        sample = default["D"][0] if default["D"] else None
        if sample is None:
            if items:
                raise PaddleFormatError(f"{where}: paddle-ir does not know the element kind of "
                                        f"this list attribute")
            return _attr(kind, [])
        return _attr(kind, [encode(sample, v, where) for v in items])
    if short == "a_bool":
        return _attr(kind, bool(value))
    if short in ("a_i32", "a_i64", "a_index"):
        if isinstance(value, float) and not value.is_integer():
            raise PaddleFormatError(f"{where}: {value!r} is not an integer")
        return _attr(kind, int(value))
    if short in ("a_f32", "a_f64"):
        return _attr(kind, float(value))
    if short == "a_str":
        return _attr(kind, str(value))
    if short == "a_dtype":
        if isinstance(value, str):
            return _attr(kind, value)
        return _attr(kind, _UNDEFINED_DTYPE if int(value) < 0 else _DTYPE_NAMES[int(value)])
    if short == "a_intarray":
        return _attr(kind, [int(v) for v in value])
    if short == "a_scalar":
        return _attr(kind, [default["D"][0], value])
    return default  # a_place and the like: Paddle's default


class Writer:
    """One program's translation into a PIR block: value ids, ops and problems so far."""

    def __init__(self, desc: pb.ProgramDesc):
        self.desc = desc
        self.block = desc.blocks[0]
        self.vars = {}  # block 0's declarations first, then the sub-blocks' own
        for block in desc.blocks:
            for v in block.vars:
                self.vars.setdefault(v.name, v)
        self.next_id = 1
        self.env: dict[str, int] = {}  # variable name -> its newest value id
        self.types: dict[int, dict] = {}
        self.ops: list[dict] = []
        self.problems: list[str] = []
        self.unwritable: dict[str, int] = {}

    # --- values ---------------------------------------------------------------------

    def new_value(self, vtype: dict) -> dict:
        vid = self.next_id
        self.next_id += 1
        self.types[vid] = vtype
        return {"%": vid, "TT": vtype}

    def var_type(self, name: str) -> dict:
        var = self.vars.get(name)
        if var is None or var.type not in (pb.VarDesc.LOD_TENSOR, pb.VarDesc.LOD_TENSOR_ARRAY):
            kind = "undeclared" if var is None else pb.VarDesc.VarType.Name(var.type)
            self.problems.append(f"variable {name!r} is {kind}; PIR's writer takes dense "
                                 f"tensors")
            return tensor_type(pb.FP32, [-1])
        t = var.lod_desc.tensor
        if var.type == pb.VarDesc.LOD_TENSOR_ARRAY:
            return {"#": "0.t_dtensor_array",
                    "D": [tensor_type(t.data_type, [])["D"][0], list(t.dims), "NCHW"]}
        return tensor_type(t.data_type, t.dims, var.lod_desc.lod_level)

    def use(self, name: str, where: str) -> int:
        if name not in self.env:
            self.problems.append(f"{where}: reads {name!r}, which nothing before it writes "
                                 f"(not a feed, a parameter or an earlier op's output)")
            self.env[name] = self.new_value(self.var_type(name))["%"]
        return self.env[name]

    def scratch(self, base: str, dtype: int, dims: list[int]) -> str:
        """A variable of the writer's own (a lowering's intermediate), never in `desc`."""
        name, k = base, 0
        while name in self.vars:
            k += 1
            name = f"{base}.{k}"
        var = pb.VarDesc(name=name, type=pb.VarDesc.LOD_TENSOR)
        var.lod_desc.tensor.data_type = dtype
        var.lod_desc.tensor.dims.extend(dims)
        self.vars[name] = var
        return name

    def dims(self, name: str) -> list[int]:
        var = self.vars.get(name)
        return list(var.lod_desc.tensor.dims) if var is not None else []

    def dtype(self, name: str) -> int:
        var = self.vars.get(name)
        return var.lod_desc.tensor.data_type if var is not None else pb.FP32

    # --- ops ------------------------------------------------------------------------

    def emit(self, name: str, operands: list[int], results: list[dict],
             attrs: list[dict], **extra) -> list[dict]:
        short = name.split(".", 1)[1]
        dialect = {"pd_op": "1", "builtin": "0"}[name.split(".", 1)[0]]
        op = {"#": f"{dialect}.{short}", "A": attrs, "I": [{"%": i} for i in operands],
              "O": results, "OA": [_bools("stop_gradient", [False] * len(results))], **extra}
        self.ops.append(op)
        return results

    def constant(self, pir: str, index: int, arg: Arg, value, where: str) -> int:
        """A pd_op.full (a scalar) or pd_op.full_int_array (a list) operand holding `value`."""
        dtype = OPERANDS.get(pir, ())[index] if index < len(OPERANDS.get(pir, ())) else None
        if arg.kind == "scalar":
            dtype = dtype or "float32"
            (result,) = self.emit("pd_op.full", [], [self.new_value(
                tensor_type(DTYPE_NAMES[dtype], [1]))], [
                {"N": "shape", "AT": _attr("1.a_intarray", [1])},
                {"N": "value", "AT": _attr("0.a_f64", float(value))},
                {"N": "dtype", "AT": _attr("1.a_dtype", dtype)},
                {"N": "place", "AT": _attr("1.a_place", [1, 0, ""])}])
        else:
            values = [int(v) for v in value]
            (result,) = self.emit("pd_op.full_int_array", [], [self.new_value(
                tensor_type(pb.INT64, [len(values)]))], [
                {"N": "value", "AT": _attr("0.a_array", [_attr("0.a_i64", v) for v in values])},
                {"N": "dtype", "AT": _attr("1.a_dtype", "int64")},
                {"N": "place", "AT": _attr("1.a_place", [1, 0, ""])}])
        return result["%"]

    def combine(self, ids: list[int]) -> int:
        (result,) = self.emit("builtin.combine", ids, [self.new_value(
            {"#": "0.t_vec", "D": [self.types[i] for i in ids]})], [])
        return result["%"]

    def bind(self, names: list[str]) -> list[dict]:
        results = []
        for name in names:
            value = self.new_value(self.var_type(name))
            self.env[name] = value["%"]
            results.append(value)
        return results

    def op(self, op: pb.OpDesc, where: str) -> None:
        from paddle_ir.paddle_format.pir.lowering import LOWERED

        opdef = op_registry.get_op_def(op.type)
        if opdef is None:
            self.unwritable[op.type] = self.unwritable.get(op.type, 0) + 1
            return
        attrs = {a.name: from_attr_proto(a) for a in op.attrs}
        for spec in opdef.attrs:
            if spec.name not in attrs and not spec.required:
                attrs[spec.name] = spec.default
        inputs = {v.parameter: list(v.arguments) for v in op.inputs if v.arguments}
        outputs = {v.parameter: list(v.arguments) for v in op.outputs if v.arguments}
        lowered = LOWERED.get(op.type)
        if lowered is not None and lowered(self, op.type, inputs, outputs, attrs, where):
            return
        if op.type not in INVERSE:
            self.unwritable[op.type] = self.unwritable.get(op.type, 0) + 1
            return
        self.mapped(_pick(op.type, attrs), op.type, inputs, outputs, attrs, opdef, where)

    def mapped(self, pir: str, old_type: str, inputs: dict, outputs: dict, attrs: dict,
               opdef, where: str) -> None:
        entry: PirOp = OPS[pir]
        where = f"{where} ({pir})"
        consumed = set(entry.fixed) | {"reduce_all"} if entry.derive else set(entry.fixed)
        for name, value in entry.fixed.items():
            if name in attrs and attrs[name] != value:
                self.problems.append(f"{where}: attribute {name} = {value!r} is the only value "
                                     f"PIR's {pir} has, got {attrs[name]!r}")
        if entry.derive is not None and attrs.get("reduce_all"):
            attrs = {**attrs, "dim": []}
        operands: list[int] = []
        for i, arg in enumerate(entry.inputs):
            if isinstance(arg, str):
                names = inputs.get(arg, [])
                duplicable = any(s.name == arg and s.duplicable for s in opdef.inputs)
                ids = [self.use(n, where) for n in names]
                if duplicable:
                    operands.append(self.combine(ids))
                elif ids:
                    operands.append(ids[0])
                else:
                    operands.append(0)
            elif arg is None:
                operands.append(0)
            elif isinstance(arg, Unused):
                operands.append(self.constant(pir, i, Arg("", "scalar"), arg.value, where))
            else:
                consumed.add(arg.attr)
                if arg.list_slot and inputs.get(arg.list_slot):
                    consumed.add(arg.list_slot)
                    operands.append(self.combine([self.use(n, where)
                                                  for n in inputs[arg.list_slot]]))
                elif arg.slot and inputs.get(arg.slot):
                    operands.append(self.use(inputs[arg.slot][0], where))
                elif arg.attr in attrs:
                    operands.append(self.constant(pir, i, arg, attrs[arg.attr], where))
                else:
                    self.problems.append(f"{where}: has no {arg.attr} to pass")
                    operands.append(0)
        used = {a for a in entry.inputs if isinstance(a, str)} | {
            s for a in entry.inputs if isinstance(a, Arg) for s in (a.slot, a.list_slot) if s}
        for slot in inputs:
            if slot not in used:
                self.problems.append(f"{where}: input {slot} = {inputs[slot]} has no operand "
                                     f"in PIR's {pir}")
        renamed = {old: new for new, old in entry.attrs.items()}
        pir_attrs = []
        for name, default in ATTRS.get(pir, ()):
            old = entry.attrs.get(name, name)
            if (pir, name) in NOOP_ATTRS:
                value = NOOP_ATTRS[pir, name]
            elif name == "dtype" and entry.derive is not None and old not in attrs:
                value = -1
            else:
                value = attrs.get(old, _MISSING)
            consumed.add(old)
            if value is _MISSING or default["#"].endswith("a_place"):
                pir_attrs.append({"N": name, "AT": default})
                continue
            try:
                pir_attrs.append({"N": name, "AT": encode(default, value, f"{where} {name}")})
            except (PaddleFormatError, KeyError, TypeError, ValueError) as exc:
                self.problems.append(f"{where}: attribute {old} = {value!r} cannot be written "
                                     f"({exc})")
        for spec in opdef.attrs:
            if (spec.name in consumed or spec.name in renamed or spec.name in BOOKKEEPING
                    or spec.name not in attrs):
                continue
            if spec.required or attrs[spec.name] != spec.default:
                self.problems.append(
                    f"{where}: attribute {spec.name} = {attrs[spec.name]!r} has no place in "
                    f"PIR's {pir} (it holds {[n for n, _ in ATTRS.get(pir, ())]})")
        count = RESULTS.get(pir, len(entry.outputs))
        vectors = {s.name for s in opdef.outputs if s.duplicable}
        results, splits = [], []
        for k in range(count):
            slot = entry.outputs[k] if k < len(entry.outputs) else None
            names = outputs.get(slot, []) if slot else []
            if slot in vectors and names:  # a vector result, taken apart by builtin.split
                vec = self.vector(names)
                results.append(vec)
                splits.append((vec, names))
            elif slot in vectors:  # a vector the old op leaves out (einsum's caches): null,
                results.append(self.new_value({"#": "NULL"}))  # as Paddle's translator does
            elif names:
                results.extend(self.bind(names[:1]))
            else:  # a result the old op leaves out (Mask, ReserveSpace): typed like X
                first = next(iter(inputs.values()), [None])[0]
                results.append(self.new_value(tensor_type(
                    self.dtype(first) if first else pb.FP32, [-1])))
        self.emit(pir, operands, results, pir_attrs)
        for vec, names in splits:
            self.split_vector(vec, names)

    def vector(self, names: list[str]) -> dict:
        return self.new_value({"#": "0.t_vec", "D": [self.var_type(n) for n in names]})

    def split_vector(self, vec: dict, names: list[str]) -> None:
        self.emit("builtin.split", [vec["%"]], self.bind(names), [])

    # --- program --------------------------------------------------------------------

    def write(self) -> dict:
        feeds = list(self.desc.feed_target_names)
        for name in sorted(v.name for v in self.block.vars if v.persistable
                           and v.type == pb.VarDesc.LOD_TENSOR):
            value = self.new_value(self.var_type(name))
            self.env[name] = value["%"]
            self.ops.append({"#": "p", "A": [0, 1, 1, name], "DA": [], "O": value,
                             "OA": [1, 0, 1], "QA": []})
        for name in feeds:
            if name not in self.vars:
                self.problems.append(f"feed target {name!r} is not declared")
                continue
            var = self.vars[name]
            (value,) = self.bind([name])
            self.emit("pd_op.data", [], [value], [
                {"N": "name", "AT": _attr("0.a_str", name)},
                {"N": "shape", "AT": _attr("1.a_intarray", list(var.lod_desc.tensor.dims))},
                {"N": "dtype", "AT": encode({"#": "1.a_dtype"}, var.lod_desc.tensor.data_type,
                                            name)},
                {"N": "place", "AT": _attr("1.a_place", [0, 0, ""])}])
        for index, op in enumerate(self.block.ops):
            if op.type in ("feed", "fetch"):
                continue
            self.op(op, f"block 0, op #{index} {op.type}")
        for col, name in enumerate(self.desc.fetch_target_names):
            source = self.use(name, f"fetch target #{col}")
            self.ops.append({
                "#": "1.fetch", "A": [{"N": "name", "AT": _attr("0.a_str", name)},
                                      {"N": "col", "AT": _attr("0.a_i32", col)}],
                "I": [{"%": source}], "O": [self.new_value(self.types[source])],
                "OA": [_bools("persistable", [True]), _bools("stop_gradient", [False])]})
        self.finish()
        return {"base_code": {"magic": "pir", "trainable": False, "version": WRITTEN_VERSION},
                "program": {"regions": [{"#": "region_0", "blocks": [
                    {"#": "block_0", "args": [], "ops": self.ops}]}]}}

    def finish(self) -> None:
        if self.unwritable:
            dropped = sorted(t for t in self.unwritable if t in NO_PIR_OP)
            why = (f"; Paddle 3's PIR has no form of {', '.join(dropped)} (its translator "
                   f"has no {', '.join(NO_PIR_OP[t] for t in dropped)}: Paddle 3 dropped "
                   f"these old ops, LoD ones included), so no PIR model can hold them"
                   if dropped else "")
            fused = sorted(t for t in self.unwritable if t in _LOAD_TIME_FUSIONS)
            if fused:
                why += (f"; {', '.join(fused)} are paddle-ir's load-time fusions "
                        f"(paddle_ir/passes/inference.py): load the model with "
                        f"optimize=False (paddle-ir convert does) to save what it holds")
            raise PaddleFormatError(
                f"the program has {len(self.unwritable)} op type(s) paddle-ir cannot write "
                f"as Paddle 3 PIR: {counted(self.unwritable)}{why}",
                hint="docs/paddle_format.md lists the ops the PIR writer covers; save in "
                     "Paddle's old IR instead (--layout paddle: .pdmodel), which Paddle 3 "
                     "still runs with FLAGS_enable_pir_api=0")
        if self.problems:
            raise PaddleFormatError(
                f"{len(self.problems)} thing(s) in the program cannot be written as Paddle 3 "
                f"PIR:" + listed(self.problems))


# Ops paddle-ir's load-time passes write into an inference program (fused kernels): a
# program loaded with optimize=True holds them, the model file it came from does not.
_LOAD_TIME_FUSIONS = frozenset({"fc", "fused_conv2d"})

_MISSING = object()


def write_pir_program(desc: pb.ProgramDesc) -> bytes:
    """The bytes of a PIR `.json` program for paddle-ir's `desc` (block 0 and its targets)."""
    return json.dumps(Writer(desc).write(), separators=(",", ":")).encode()
