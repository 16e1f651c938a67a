"""The operator library: one registry, one module per op or tight op family.

Registration is explicit: importing this package imports the modules listed
below, each of which registers its ops with `ops.registry.register_op`.
"""

if __name__ != "paddle_ir.ops":  # the repository root on sys.path must not make a second copy
    raise ImportError(f"ops/ installs as paddle_ir.ops; import that, not {__name__}")

from paddle_ir.ops import (  # noqa: F401 - imported for their registrations
    accuracy,
    activation,
    adagrad,
    adam,
    assign,
    auc,
    cast,
    cast_storage,
    clip,
    compare,
    concat,
    conditional_block,
    cross_entropy,
    elementwise,
    elementwise_more,
    fill,
    fill_any_like,
    gather_scatter,
    gru,
    increment,
    lod_array,
    lod_reset,
    lookup_table,
    losses,
    losses_more,
    lstm,
    matmul,
    misc_more,
    momentum,
    mul,
    nn_more,
    print_op,
    rank_table,
    reduce,
    reduce_more,
    reshape,
    retain,
    scale,
    selected_rows_ops,
    sequence_concat,
    sequence_expand,
    sequence_mask,
    sequence_more,
    sequence_pad,
    sequence_pool,
    sequence_reverse,
    sequence_softmax,
    sgd,
    shape_more,
    sigmoid_cross_entropy_with_logits,
    softmax,
    sparse_dot,
    sum,
    tensor_array,
    tensor_array_more,
    tensor_more,
    top_k,
    unary_math,
    weight_decay,
    while_op,
)
from paddle_ir.ops.registry import get_op_def, registered_op_types

__all__ = ["get_op_def", "registered_op_types"]
