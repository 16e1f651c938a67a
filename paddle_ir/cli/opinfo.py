"""`paddle-ir ops [TYPE]`: the registered operators, or one operator's full spec."""

from __future__ import annotations

from collections import defaultdict

from paddle_ir.core.dtypes import dtype_name
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.ops import registry as op_registry

_REQUIRED = "(required)"


def add_parser(subparsers, common) -> None:
    p = subparsers.add_parser(
        "ops", parents=[common], help="list registered operators, or describe one",
        description="Without TYPE: every registered op type with the first line of its doc. "
                    "With TYPE: its inputs, outputs, attributes (kinds, defaults, docs), "
                    "kernels (storage, dtypes), fallback and gradient.")
    p.add_argument("type", nargs="?", help="an op type, e.g. elementwise_add")
    p.set_defaults(handler=ops_command)


def _first_line(doc: str) -> str:
    return doc.strip().splitlines()[0] if doc.strip() else ""


def list_ops() -> str:
    types = op_registry.registered_op_types()
    width = max((len(t) for t in types), default=0)
    lines = [f"{len(types)} registered op types:"]
    for t in types:
        lines.append(f"  {t:<{width}}  {_first_line(op_registry.get_op_def(t).doc)}".rstrip())
    return "\n".join(lines) + "\n"


def _slot_line(slot) -> str:
    flags = [f for f, on in (("duplicable", slot.duplicable), ("dispensable", slot.dispensable),
                             ("no_need_buffer", slot.no_need_buffer)) if on]
    text = f"    {slot.name}"
    if flags:
        text += f" [{', '.join(flags)}]"
    if slot.doc:
        text += f"  {slot.doc}"
    return text


def describe_op(op_type: str) -> str:
    opdef = op_registry.get_op_def(op_type)
    if opdef is None:
        import difflib  # only for a misspelt op type

        close = difflib.get_close_matches(op_type, op_registry.registered_op_types(), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise PaddleIRError(f"unknown op type {op_type!r}{hint} (`paddle-ir ops` lists them)")
    lines = [opdef.type, ""]
    if opdef.doc:
        lines += ["  " + line if line else "" for line in opdef.doc.splitlines()] + [""]
    lines.append("  inputs:" if opdef.inputs else "  inputs: (none)")
    lines += [_slot_line(s) for s in opdef.inputs]
    lines.append("  outputs:" if opdef.outputs else "  outputs: (none)")
    lines += [_slot_line(s) for s in opdef.outputs]
    lines.append("  attributes:" if opdef.attrs else "  attributes: (none)")
    for a in opdef.attrs:
        default = _REQUIRED if a.required else f"= {a.default!r}"
        lines.append(f"    {a.name} : {a.kind} {default}" + (f"  {a.doc}" if a.doc else ""))
    by_storage = defaultdict(list)
    for key in opdef.kernels:
        by_storage[(key.storage, key.place)].append(dtype_name(key.dtype))
    keyed = ", ".join(opdef.key_inputs) or "(no inputs)"
    lines.append(f"  kernels (storage of {keyed}; dtype from {opdef.dtype_from or 'float32'}):")
    if not by_storage:
        lines.append("    (none)")
    for (storage, place), dtypes in sorted(by_storage.items()):
        lines.append(f"    {', '.join(storage) or '-'} on {place}: {', '.join(sorted(dtypes))}")
    lines.append("  sparse inputs without a kernel: "
                 + ("densified (fallback, warns once)" if opdef.fallback else "an error"))
    lines.append("  gradient: " + ("has a grad maker" if opdef.grad_maker_fn else "none"))
    return "\n".join(lines) + "\n"


def ops_command(args) -> int:
    print(describe_op(args.type) if args.type else list_ops(), end="")
    return 0
