"""tdm_child: the children of tree nodes in a TDM (tree-based deep match) tree.

TreeInfo [node_nums, 3 + child_nums] holds per node id: item_id, layer_id,
parent_id, then its child ids (0-padded). For each node id n in X:

    Child[..., :]    = TreeInfo[n, 3:3 + child_nums]   if n != 0 and TreeInfo[n, 3] != 0
                     = 0                               otherwise (node 0 and leaves)
    LeafMask[..., c] = 1 if TreeInfo[Child[..., c], 0] != 0 (the child is an item) else 0

Child and LeafMask are X.shape + [child_nums], of the `dtype` attribute (2
int32, 3 int64), with X's LoD. No gradient (Paddle's EmptyGradOpMaker). Ids
outside [0, node_nums) and child ids outside the tree are refused (Paddle
checks the first and reads out of bounds on the second).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import to_numpy_dtype
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import INTS, Attr, In, Out, register_op
from paddle_ir.ops.sequence_ops.sequence_common import lod_error

tdm_child = register_op(
    "tdm_child",
    inputs=[In("X", "int32/int64 node ids, any shape"),
            In("TreeInfo", "int32/int64 [node_nums, 3 + child_nums]: item, layer, parent, "
                           "children")],
    outputs=[Out("Child", "X.shape + [child_nums] child node ids (0 where none)"),
             Out("LeafMask", "X.shape + [child_nums]: 1 where the child is an item")],
    attrs=[Attr("child_nums", "int", 0, "children per node (TreeInfo pads with 0)"),
           Attr("dtype", "int", 2, "the outputs' data type: 2 int32, 3 int64")],
    key_inputs=["X"],
    doc=__doc__,
)


@tdm_child.infer_shape
def _(ctx):
    child_nums, code = ctx.attr("child_nums"), ctx.attr("dtype")
    ctx.enforce(child_nums > 0, lambda: f"child_nums must be > 0, got {child_nums}")
    ctx.enforce(code in (2, 3), lambda: f"dtype must be 2 (int32) or 3 (int64), got {code}")
    for slot in ("X", "TreeInfo"):
        ctx.enforce(ctx.input_dtype(slot) in INTS,
                    lambda: f"{slot} must be int32 or int64, got {ctx.input_dtype(slot)}")
    info = ctx.input_shape("TreeInfo")
    # Paddle reads columns 3 .. 3 + child_nums - 1 of each row; wider rows are allowed.
    ctx.enforce(len(info) == 2 and (info[1] < 0 or info[1] >= 3 + child_nums), lambda:
                f"TreeInfo must be [node_nums, 3 + child_nums] = [?, {3 + child_nums}] (item, "
                f"layer, parent, then the children), got {shape_str(info)}")
    shape = tuple(ctx.input_shape("X")) + (child_nums,)
    for slot in ("Child", "LeafMask"):
        ctx.set_output(slot, shape, to_numpy_dtype(code))
        ctx.share_lod("X", slot)


@tdm_child.kernel(dtypes=INTS, lod=True)
def tdm_child_kernel(attrs, x, tree_info):
    child_nums, out_dtype = attrs["child_nums"], to_numpy_dtype(attrs["dtype"])
    ids, info = x.numpy().astype(np.int64), tree_info.numpy().astype(np.int64)
    node_nums = info.shape[0]
    bad = (ids < 0) | (ids >= node_nums)
    if bad.any():
        raise lod_error("tdm_child", f"X's node ids must be in [0, {node_nums}) (TreeInfo's "
                                     f"rows), got {int(ids[bad][0])}")
    children = info[ids, 3:3 + child_nums]
    has_child = (ids != 0) & (info[ids, 3] != 0)
    children = np.where(has_child[..., None], children, 0)
    outside = (children < 0) | (children >= node_nums)
    if outside.any():
        raise lod_error("tdm_child", f"TreeInfo's child ids must be in [0, {node_nums}), got "
                                     f"{int(children[outside][0])}")
    mask = np.where(has_child[..., None], info[children, 0] != 0, False)
    return (LoDTensor.unchecked(children.astype(out_dtype), x.offsets),
            LoDTensor.unchecked(mask.astype(out_dtype), x.offsets))
