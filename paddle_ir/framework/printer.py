"""A readable listing of a ProgramDesc, in the spirit of Paddle's `str(program)`.

    { // block 0 (parent -1)
        var x : LOD_TENSOR.shape(-1, 784).dtype(float32).lod_level(0)
        persist param fc_0.w_0 : LOD_TENSOR.shape(784, 10).dtype(float32).lod_level(0)

        {Out=[fc_0.tmp_0]} = mul(inputs={X=[x], Y=[fc_0.w_0]}, x_num_col_dims = 1)  # mlp.py:12
    }

Works on any ProgramDesc, including one parsed from a file with unknown ops.
"""

from __future__ import annotations

from paddle_ir.core.attrs import attr_kind, from_attr_proto
from paddle_ir.core.dtypes import dtype_name, to_numpy_dtype
from paddle_ir.core.kinds import VAR_TYPE_NAMES
from paddle_ir.proto import framework_pb2 as pb


def _format_attr_value(attr: pb.OpDesc.Attr) -> str:
    try:
        value = from_attr_proto(attr)
    except KeyError:
        return f"<{attr_kind(attr)}>"
    if attr.type == pb.BLOCK:
        return f"block[{value}]"
    if attr.type == pb.BLOCKS:
        return "[" + ", ".join(f"block[{v}]" for v in value) + "]"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return repr(float(f"{value:.7g}")) if attr.type == pb.FLOAT else repr(value)
    if isinstance(value, list) and attr.type == pb.FLOATS:
        return "[" + ", ".join(repr(float(f"{v:.7g}")) for v in value) + "]"
    return repr(value)


def op_to_string(op: pb.OpDesc, with_site: bool = True) -> str:
    outs = ", ".join(f"{v.parameter}=[{', '.join(v.arguments)}]" for v in op.outputs)
    ins = ", ".join(f"{v.parameter}=[{', '.join(v.arguments)}]" for v in op.inputs)
    attrs = "".join(f", {a.name} = {_format_attr_value(a)}" for a in sorted(op.attrs,
                                                                          key=lambda a: a.name))
    text = f"{{{outs}}} = {op.type}(inputs={{{ins}}}{attrs})"
    if with_site and op.HasField("creation_site"):
        text += f"  # {op.creation_site}"
    return text


def describe_var(desc: pb.VarDesc) -> str:
    """`name : TYPE.shape(...).dtype(...).lod_level(n)`, as Paddle prints VarDescs."""
    if desc.type == pb.VarDesc.STEP_SCOPES:  # scopes, not a tensor
        return f"{desc.name} : STEP_SCOPES"
    if desc.type == pb.VarDesc.SELECTED_ROWS:
        tensor, lod = desc.selected_rows_desc, ""
    else:
        tensor = desc.lod_desc.tensor
        lod = f".lod_level({desc.lod_desc.lod_level})"
    dtype = dtype_name(to_numpy_dtype(tensor.data_type)) if tensor.HasField("data_type") else "?"
    kind = VAR_TYPE_NAMES.get(desc.type, f"VarType({desc.type})")
    shape = ", ".join(str(d) for d in tensor.dims)
    return f"{desc.name} : {kind}.shape({shape}).dtype({dtype}){lod}"


def var_to_string(var: pb.VarDesc) -> str:
    prefix = "persist " if var.persistable else ""
    prefix += "param " if var.is_parameter else "var "
    return prefix + describe_var(var)


def block_to_string(block: pb.BlockDesc, with_site: bool = True) -> str:
    forward = (f", grad of block {block.forward_block_idx}"
               if block.forward_block_idx >= 0 else "")
    lines = [f"{{ // block {block.idx} (parent {block.parent_idx}{forward})"]
    lines += [f"    {var_to_string(v)}" for v in block.vars]
    if block.vars and block.ops:
        lines.append("")
    lines += [f"    {op_to_string(op, with_site)}" for op in block.ops]
    lines.append("}")
    return "\n".join(lines)


def program_to_string(program: pb.ProgramDesc, with_site: bool = True) -> str:
    parts = [block_to_string(b, with_site) for b in program.blocks]
    header = []
    if program.feed_target_names:
        header.append(f"// feed targets: {', '.join(program.feed_target_names)}")
    if program.fetch_target_names:
        header.append(f"// fetch targets: {', '.join(program.fetch_target_names)}")
    return "\n".join(header + parts) + "\n"
