"""A ProgramDesc as a Graphviz DOT graph: ops and variables as differently shaped nodes.

    ops               rounded boxes, blue
    variables         ellipses, labelled with shape and dtype
    persistable       filled yellow
    SELECTED_ROWS     red octagons, marked "SELECTED_ROWS"
    CSR               red hexagons, marked "CSR"
    LoD (level > 0)   a double outline, marked "lod_level=N"

Each block is a cluster; an op that refers to a sub-block gets a dashed edge
to it. Edges carry the slot names. The output is deterministic (no ids, no
dict order surprises), so it can be diffed and tested.
"""

from __future__ import annotations

from paddle_ir.core.attrs import block_refs
from paddle_ir.core.dtypes import dtype_name, to_numpy_dtype
from paddle_ir.proto import framework_pb2 as pb

_SR = pb.VarDesc.SELECTED_ROWS
_CSR = pb.VarDesc.CSR


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _var_node(var: pb.VarDesc, block_idx: int) -> str:
    tensor = var.selected_rows_desc if var.type == _SR else var.lod_desc.tensor
    dtype = dtype_name(to_numpy_dtype(tensor.data_type)) if tensor.HasField("data_type") else "?"
    lines = [var.name, f"[{', '.join(str(d) for d in tensor.dims)}] {dtype}"]
    attrs = {"shape": "ellipse"}
    styles = []
    if var.type == _SR:
        lines.append("SELECTED_ROWS")
        attrs.update(shape="octagon", color="#c0392b", fontcolor="#c0392b")
    elif var.type == _CSR:
        lines.append("CSR")
        attrs.update(shape="hexagon", color="#c0392b", fontcolor="#c0392b")
    elif var.lod_desc.lod_level > 0:
        lines.append(f"lod_level={var.lod_desc.lod_level}")
        attrs["peripheries"] = "2"
    if var.persistable:
        lines.append("persistable")
        styles.append("filled")
        attrs["fillcolor"] = "#fff2cc"
    if styles:
        attrs["style"] = ",".join(styles)
    attrs["label"] = "\n".join(lines)
    return f"{_quote(_var_id(block_idx, var.name))} [{_attr_list(attrs)}];"


def _var_id(block_idx: int, name: str) -> str:
    return f"var:{block_idx}:{name}"


def _op_id(block_idx: int, op_idx: int) -> str:
    return f"op:{block_idx}:{op_idx}"


def _attr_list(attrs: dict) -> str:
    return ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items())


def _owner(desc: pb.ProgramDesc, block_idx: int, name: str, declared: list[dict]) -> int | None:
    """The block that declares `name` as seen from `block_idx` (walking up the parents)."""
    idx, hops = block_idx, 0
    while 0 <= idx < len(desc.blocks) and hops <= len(desc.blocks):
        if name in declared[idx]:
            return idx
        idx, hops = desc.blocks[idx].parent_idx, hops + 1
    return None


def program_to_dot(desc: pb.ProgramDesc, block: int | None = None) -> str:
    """DOT source for the whole program, or for one block (with the outer variables it uses)."""
    shown = range(len(desc.blocks)) if block is None else [block]
    lines = ["digraph program {", "  compound=true;", "  rankdir=TB;",
             '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    edges: list[str] = []
    outer: dict[str, pb.VarDesc] = {}  # variables of other blocks that the shown ops use
    # Each block's variables by name, built once: the graph costs linear time in its size.
    declared = [{} for _ in desc.blocks]
    for names, block_desc in zip(declared, desc.blocks, strict=True):
        for var in block_desc.vars:
            names.setdefault(var.name, var)
    for b in shown:
        block_desc = desc.blocks[b]
        lines.append(f"  subgraph cluster_block{b} {{")
        lines.append(f"    label={_quote(f'block {b} (parent {block_desc.parent_idx})')};")
        lines.append('    color="#999999";')
        for var in block_desc.vars:
            lines.append("    " + _var_node(var, b))
        for i, op in enumerate(block_desc.ops):
            label = op.type
            lines.append(f"    {_quote(_op_id(b, i))} [shape=box, style=\"rounded,filled\", "
                         f"fillcolor=\"#dbe9f6\", label={_quote(label)}];")
            for direction, slots in (("in", op.inputs), ("out", op.outputs)):
                for v in slots:
                    for name in v.arguments:
                        owner = _owner(desc, b, name, declared)
                        if owner is None:
                            node = _var_id(b, name)
                            outer.setdefault(node, pb.VarDesc(name=name))
                        else:
                            node = _var_id(owner, name)
                            if owner not in shown:
                                outer.setdefault(node, declared[owner][name])
                        ends = (node, _op_id(b, i)) if direction == "in" else (_op_id(b, i),
                                                                                node)
                        edges.append(f"  {_quote(ends[0])} -> {_quote(ends[1])} "
                                     f"[label={_quote(v.parameter)}];")
            for ref in block_refs(op):
                if ref in shown and 0 <= ref < len(desc.blocks) and desc.blocks[ref].ops:
                    edges.append(f"  {_quote(_op_id(b, i))} -> {_quote(_op_id(ref, 0))} "
                                 f"[style=dashed, lhead={_quote(f'cluster_block{ref}')}, "
                                 f"label=\"sub-block\"];")
        lines.append("  }")
    for node_id, var in sorted(outer.items()):
        if var.HasField("type"):
            owner = int(node_id.split(":", 2)[1])
            lines.append("  " + _var_node(var, owner))
        else:  # undeclared anywhere: show it, marked, rather than fail
            lines.append(f"  {_quote(node_id)} [shape=ellipse, style=dashed, "
                         f"label={_quote(var.name + chr(10) + 'undeclared')}];")
    lines += edges
    lines.append("}")
    return "\n".join(lines) + "\n"
