"""embedding: the lookup-table layer, with dense or SelectedRows gradients."""

from __future__ import annotations

from paddle_ir.core.dtypes import convert_dtype
from paddle_ir.framework import Variable
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper


def embedding(input: Variable, size, is_sparse: bool = False,  # noqa: A002 - Paddle's name
              is_distributed: bool = False, padding_idx: int | None = None, param_attr=None,
              dtype="float32", name=None, *, ids_any_shape: bool = False) -> Variable:
    """Rows of a [vocab, dim] table (`embedding_N.w_0`) for int64 ids: Out = W[input].

    `input` is [N, 1] (the `lookup_table` op; Out [N, dim]) or ids of any other
    shape (`lookup_table_v2`; Out = input.shape + [dim]); Out keeps its LoD.
    `is_sparse=True` makes the table's gradient a SelectedRows of the looked-up
    rows, which sparse optimizer kernels update row by row. `padding_idx` (a
    negative value counts from the end, as in Paddle) looks up zeros and gets
    no gradient. `is_distributed=True` marks a table that the distribute
    transpiler shards over parameter servers and never places whole on a
    trainer (paddle_ir.transpiler); on one machine it changes nothing.
    `ids_any_shape=True` always uses lookup_table_v2 (Fluid 1.7's top-level
    `fluid.embedding`: [N, 1] ids give [N, 1, dim]).
    """
    vocab, dim = (int(d) for d in size)
    helper = LayerHelper("embedding", name)
    attr = ParamAttr.to_attr(param_attr)
    w = helper.create_parameter(attr, [vocab, dim], convert_dtype(dtype))
    if padding_idx is None:
        padding = -1
    else:
        padding = int(padding_idx) if padding_idx >= 0 else vocab + int(padding_idx)
    op_type = "lookup_table" if (not ids_any_shape and len(input.shape) >= 2
                                 and input.shape[-1] == 1) else "lookup_table_v2"
    out = helper.create_variable_for_type_inference(w.dtype)
    helper.append_op(op_type, inputs={"W": w, "Ids": input}, outputs={"Out": out},
                     attrs={"is_sparse": bool(is_sparse), "padding_idx": padding,
                            "is_distributed": bool(is_distributed)})
    return out
