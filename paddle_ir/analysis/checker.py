"""Validating a ProgramDesc without running it, reporting every problem, not the first.

    problems = check_program(desc)        # [] when the program is sound
    for p in problems: print(p)

Two passes. The static pass reads the desc as it is: required fields, block
indices and parents, variable declarations, feed and fetch targets, and per
op its type, slots, attributes (names, AttrTypes and values against the op's
spec), block references and the variables it names. The inference pass then
re-appends every op that passed into a fresh Program holding the same blocks
and variables, so the registry's var-type and shape rules run exactly as they
do when a program is built; it reports the rules' errors, and outputs whose
inferred type, dtype, shape or lod_level contradict their declaration.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import DecodeError

from paddle_ir.analysis.inference_pass import InferencePass, default_value
from paddle_ir.core.attrs import check_attr_value
from paddle_ir.core.dtypes import dtype_name, to_numpy_dtype
from paddle_ir.core.errors import OpLocation, PaddleIRError
from paddle_ir.core.file_kinds import foreign_program_note
from paddle_ir.framework import MAX_BLOCK_DEPTH, Program, op_location, undecodable_strings
from paddle_ir.ops import registry as op_registry
from paddle_ir.proto import framework_pb2 as pb

INVALID = "InvalidProgram"
MISMATCH = "InferenceMismatch"


@dataclass
class Problem:
    """One thing wrong with a program: what, and where (a block, an op, or the whole)."""

    category: str
    message: str
    block_idx: int | None = None
    op: OpLocation | None = None

    def __str__(self) -> str:
        if self.op is not None:
            text = f"[{self.category}] {self.op.headline()}: {self.message}"
            if self.op.creation_site:
                text += f" (op created at {self.op.creation_site})"
            return text
        if self.block_idx is not None:
            return f"[{self.category}] block {self.block_idx}: {self.message}"
        return f"[{self.category}] {self.message}"


class _Checker:
    def __init__(self, desc: pb.ProgramDesc):
        self.desc = desc
        self.problems: list[Problem] = []
        self.blocks_ok = True
        self.bad_ops: set[tuple[int, int]] = set()
        self.attrs: dict[tuple[int, int], dict] = {}  # (block, op) -> attributes, if sound
        self.keys: dict[tuple[int, int], tuple] = {}  # (block, op) -> _op_shape, if sound

    def add(self, message: str, block_idx=None, op=None, category=INVALID) -> None:
        self.problems.append(Problem(category, message, block_idx, op))

    # -- structure ----------------------------------------------------------------------
    def check_text(self) -> bool:
        """Every string field is UTF-8; if not, nothing else can be read reliably."""
        garbled = undecodable_strings(self.desc)
        for path in garbled:
            self.add(f"{path} is not UTF-8 text")
        return not garbled

    def check_structure(self) -> None:
        missing = self.desc.FindInitializationErrors()
        for field in missing:
            self.add(f"required field {field} is missing")
        if missing:
            self.blocks_ok = False
        if not self.desc.blocks:
            self.add("the program has no blocks; every program has block 0")
            self.blocks_ok = False
        depth: dict[int, int] = {}  # a block with a bad parent is reported, and counts as 0
        for i, block in enumerate(self.desc.blocks):
            if block.idx != i:
                self.add(f"block #{i} says its idx is {block.idx}", i)
                self.blocks_ok = False
            parent = block.parent_idx
            if i == 0 and parent != -1:
                self.add(f"the global block must have parent_idx -1, got {parent}", i)
                self.blocks_ok = False
            elif i > 0 and not 0 <= parent < i:
                self.add(f"parent_idx {parent} does not name an earlier block "
                         f"(0..{i - 1})", i)
                self.blocks_ok = False
            else:
                depth[i] = depth.get(parent, 0) + 1 if i else 0
                if depth[i] > MAX_BLOCK_DEPTH:
                    self.add(f"nested {depth[i]} blocks deep; paddle-ir allows at most "
                             f"{MAX_BLOCK_DEPTH}", i)
                    self.blocks_ok = False
            forward = block.forward_block_idx
            if forward != -1 and not 0 < forward < len(self.desc.blocks):
                self.add(f"forward_block_idx {forward} does not name a sub-block "
                         f"(1..{len(self.desc.blocks) - 1})", i)
                self.blocks_ok = False
            self.check_vars(i, block)
        if self.desc.blocks:
            declared = {v.name for v in self.desc.blocks[0].vars}
            for kind in ("feed", "fetch"):
                for name in getattr(self.desc, f"{kind}_target_names"):
                    if name not in declared:
                        self.add(f"{kind} target {name!r} is not a variable of block 0")

    def check_vars(self, block_idx: int, block: pb.BlockDesc) -> None:
        seen = set()
        for var in block.vars:
            if var.name in seen:
                self.add(f"variable {var.name!r} is declared twice", block_idx)
                self.blocks_ok = False
            seen.add(var.name)
            if var.type not in pb.VarDesc.VarType.values():
                self.add(f"variable {var.name!r} has unknown variable type {var.type}",
                         block_idx)
                continue
            if var.type == pb.VarDesc.STEP_SCOPES:
                continue  # a list of scopes: no tensor to describe
            tensor = (var.selected_rows_desc if var.type == pb.VarDesc.SELECTED_ROWS
                      else var.lod_desc.tensor)
            if not tensor.HasField("data_type"):
                self.add(f"variable {var.name!r} has no (known) data type", block_idx)
            if any(d < -1 for d in tensor.dims):
                self.add(f"variable {var.name!r} has dims {list(tensor.dims)}; a dim is "
                         f">= 0, or -1 when unknown", block_idx)
            if var.lod_desc.lod_level < 0:
                self.add(f"variable {var.name!r} has lod_level {var.lod_desc.lod_level}",
                         block_idx)

    def _declared(self, block_idx: int, name: str) -> bool:
        return self._declaring_block(block_idx, name) is not None

    def _declaring_block(self, block_idx: int, name: str) -> int | None:
        """The block declaring `name` as seen from `block_idx`: the block, its ancestors,
        and for a grad block also its forward block and that block's ancestors."""
        blocks = self.desc.blocks
        declared = self._block_vars()
        frontier, seen = [block_idx], set()
        while frontier:
            idx = frontier.pop(0)
            if not 0 <= idx < len(blocks) or idx in seen:
                continue
            seen.add(idx)
            if name in declared[idx]:
                return idx
            frontier += [blocks[idx].parent_idx, blocks[idx].forward_block_idx]
        return None

    def _block_vars(self) -> list[dict[str, pb.VarDesc]]:
        """Each block's VarDescs by name, built once: lookups stay O(1) (linear checks)."""
        if getattr(self, "_vars_by_block", None) is None:
            self._vars_by_block = [{} for _ in self.desc.blocks]
            for names, block in zip(self._vars_by_block, self.desc.blocks, strict=True):
                for var in block.vars:
                    names.setdefault(var.name, var)
        return self._vars_by_block

    # -- operators --------------------------------------------------------------------------
    def check_ops(self) -> None:
        """Each op once. Ops alike but for their variable names (a chain of 10^5 `scale`s)
        share one verdict on slots and attributes, so the per-op work is a key and a
        lookup: the spec's rules run once per distinct op shape."""
        clean: dict[tuple, dict] = {}  # op shape -> its attributes, defaults filled
        for b, block in enumerate(self.desc.blocks):
            declared = self._block_vars()[b]
            for i, op in enumerate(block.ops):
                key = _op_shape(b, op)
                if key in clean and all(not n or n in declared for v in op.inputs
                                        for n in v.arguments) and all(
                        not n or n in declared for v in op.outputs for n in v.arguments):
                    self.attrs[(b, i)], self.keys[(b, i)] = clean[key], key
                    continue
                before = len(self.problems)
                values = self.check_op(b, i, op)
                if len(self.problems) > before:
                    self.bad_ops.add((b, i))
                else:
                    opdef = op_registry.get_op_def(op.type)
                    full = dict(values)
                    for spec in opdef.attrs:
                        if spec.name not in full:
                            full[spec.name] = default_value(opdef, spec)
                    self.attrs[(b, i)] = clean[key] = full
                    self.keys[(b, i)] = key

    def check_op(self, b: int, i: int, op: pb.OpDesc) -> dict:
        """Report what is wrong with one op; return its decoded attributes."""
        where = op_location(op, b, i)
        opdef = op_registry.get_op_def(op.type)
        for v in list(op.inputs) + list(op.outputs):
            for name in v.arguments:
                if name and not self._declared(b, name):
                    self.add(f"{v.parameter} names {name!r}, which is not declared in block "
                             f"{b} or its ancestors", op=where)
        if opdef is None:
            self.add(f"unknown op type {op.type!r}", op=where)
            return {}
        self.check_slots(opdef, op, where)
        return self.check_attrs(opdef, op, where)

    def check_slots(self, opdef, op: pb.OpDesc, where: OpLocation) -> None:
        """What only a parsed OpDesc can get wrong: a slot named twice (the spec's own
        rules are OpDef.problems, in check_attrs)."""
        for kind, given in (("input", op.inputs), ("output", op.outputs)):
            named = set()
            for v in given:
                if v.parameter in named:
                    self.add(f"{kind} slot {v.parameter!r} appears twice", op=where)
                named.add(v.parameter)

    def check_attrs(self, opdef, op: pb.OpDesc, where: OpLocation) -> dict:
        """The spec's rules for slots and attributes (all of OpDef.problems), the wire
        types of the attributes, and where sub-block attributes point."""
        values, problems = opdef.decode_attrs(op.attrs)
        problems += opdef.problems(_slot_map(op.inputs), _slot_map(op.outputs), values)
        for problem in problems:
            self.add(problem, op=where)
        for name, value in values.items():
            spec = opdef.attr_spec(name)
            if spec is None or spec.kind not in ("block", "blocks"):
                continue
            if check_attr_value(spec.kind, value):
                continue  # reported above
            for idx in value if isinstance(value, list) else [value]:
                if not 0 < idx < len(self.desc.blocks):
                    self.add(f"attribute {name!r} refers to block {idx}, but the "
                             f"program's sub-blocks are 1..{len(self.desc.blocks) - 1}",
                             op=where)
                elif self.desc.blocks[idx].parent_idx != where.block_idx:
                    # A sub-block sees its parent's variables: it must be run from there.
                    self.add(f"attribute {name!r} refers to block {idx}, whose parent "
                             f"is block {self.desc.blocks[idx].parent_idx}, but the op is "
                             f"in block {where.block_idx}", op=where)
        return values

    # -- inference ------------------------------------------------------------------------
    def check_inference(self) -> None:
        if not self.blocks_ok:
            self.add("build-time inference was skipped: the block structure is invalid")
            return
        skeleton = pb.ProgramDesc()  # the blocks and their variables, without the ops
        for block in self.desc.blocks:
            copy = skeleton.blocks.add(idx=block.idx, parent_idx=block.parent_idx,
                                       forward_block_idx=block.forward_block_idx)
            copy.vars.extend(block.vars)
        fresh = Program.from_desc(skeleton, text_checked=True)  # check_text walked it
        self.inference = InferencePass(fresh)
        written: set[tuple[int, str]] = set()
        for b, block in enumerate(self.desc.blocks):
            for i, op in enumerate(block.ops):
                if (b, i) in self.bad_ops:
                    continue
                try:
                    self.inference.infer(b, i, op, self.attrs[(b, i)], self.keys[(b, i)])
                except PaddleIRError as exc:
                    self.add(exc.message, op=op_location(op, b, i), category=exc.category)
                    continue
                written |= {(b, n) for v in op.outputs for n in v.arguments if n}
        for b, name in sorted(written):
            self.compare(b, name, fresh)

    def compare(self, b: int, name: str, fresh: Program) -> None:
        # An op in a sub-block may write a variable of an ancestor: compare where it lives.
        declared = self.desc.blocks[self._declaring_block(b, name)]
        want = self._block_vars()[declared.idx][name]
        got = fresh.block(declared.idx).var(name)
        diffs = []
        if want.type != got.type:
            diffs.append(f"type {pb.VarDesc.VarType.Name(want.type)} vs "
                         f"{pb.VarDesc.VarType.Name(got.type)}")
        tensor, got_tensor = _tensor_of(want), _tensor_of(got.desc)
        # The wire's dtype numbers first (cheap); numpy's dtypes only when they differ.
        if (tensor.HasField("data_type") and got_tensor.HasField("data_type")
                and tensor.data_type != got_tensor.data_type):
            want_dtype = to_numpy_dtype(tensor.data_type)
            if want_dtype != got.dtype:
                diffs.append(f"dtype {dtype_name(want_dtype)} vs {dtype_name(got.dtype)}")
        dims, shape = list(tensor.dims), list(got_tensor.dims)
        if dims != shape and (len(dims) != len(shape) or any(
                a >= 0 and c >= 0 and a != c for a, c in zip(dims, shape, strict=True))):
            diffs.append(f"shape {dims} vs {shape}")
        if want.type == pb.VarDesc.LOD_TENSOR and want.lod_desc.lod_level != got.lod_level:
            diffs.append(f"lod_level {want.lod_desc.lod_level} vs {got.lod_level}")
        if diffs:
            self.add(f"variable {name!r} is declared differently from what its ops infer "
                     f"(declared vs inferred): {'; '.join(diffs)}", declared.idx,
                     category=MISMATCH)


def _tensor_of(var: pb.VarDesc) -> pb.TensorDesc:
    return var.selected_rows_desc if var.type == _SELECTED_ROWS else var.lod_desc.tensor


_SELECTED_ROWS = pb.VarDesc.SELECTED_ROWS


def check_program(desc: pb.ProgramDesc) -> list[Problem]:
    """Every problem found in `desc`, in the order: structure, ops, inference."""
    checker = _Checker(desc)
    if not checker.check_text():
        return checker.problems
    checker.check_structure()
    if checker.desc.blocks:
        checker.check_ops()
        checker.check_inference()
    return checker.problems


def check_bytes(data: bytes) -> list[Problem]:
    """check_program for serialized bytes; bytes that do not parse are one problem."""
    desc = pb.ProgramDesc()
    try:
        desc.ParseFromString(data)
    except (DecodeError, RuntimeWarning, ValueError) as exc:
        return [Problem("ProgramFormatError",
                        f"the bytes are not a paddle-ir ProgramDesc ({len(data)} bytes): {exc}"
                        f"{foreign_program_note(data)}")]
    return check_program(desc)


def _op_shape(b: int, op: pb.OpDesc) -> tuple:
    """What the static checks of an op depend on besides its variable names: its block,
    type, slots with their argument counts, and attributes (as bytes)."""
    return (b, op.type, tuple((v.parameter, len(v.arguments)) for v in op.inputs),
            tuple((v.parameter, len(v.arguments)) for v in op.outputs),
            tuple(a.SerializePartialToString() for a in op.attrs))


def _slot_map(vars_) -> dict[str, list[str]]:
    """Slot -> arguments; a slot named twice keeps all its arguments (reported apart)."""
    slots: dict[str, list[str]] = {}
    for v in vars_:
        slots.setdefault(v.parameter, []).extend(v.arguments)
    return slots
