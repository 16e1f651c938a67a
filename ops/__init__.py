"""The operator library: one registry, one module per op or tight op family.

Registration is explicit: importing this package imports the modules listed
below, each of which registers its ops with `ops.registry.register_op`.
"""

from ops import (  # noqa: F401 - imported for their registrations
    accuracy,
    activation,
    adagrad,
    adam,
    cast,
    cast_storage,
    concat,
    cross_entropy,
    elementwise,
    fill,
    fill_any_like,
    gru,
    lod_reset,
    lookup_table,
    lstm,
    matmul,
    momentum,
    mul,
    reduce,
    reshape,
    retain,
    scale,
    sequence_concat,
    sequence_expand,
    sequence_mask,
    sequence_pad,
    sequence_pool,
    sequence_reverse,
    sequence_softmax,
    sgd,
    sigmoid_cross_entropy_with_logits,
    softmax,
    sparse_dot,
    sum,
    top_k,
    weight_decay,
)
from ops.registry import get_op_def, registered_op_types

__all__ = ["get_op_def", "registered_op_types"]
