"""Layers: Paddle Fluid's functions that append ops to the current program."""

from paddle_ir.layers.control_flow import (
    ConditionalBlock,
    Switch,
    While,
    array_length,
    array_read,
    array_write,
    assign,
    cond,
    create_array,
    equal,
    fill_constant_batch_size_like,
    greater_equal,
    greater_than,
    increment,
    less_equal,
    less_than,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    not_equal,
)
from paddle_ir.layers.dynamic_rnn import (
    DynamicRNN,
    array_to_lod_tensor,
    lod_rank_table,
    lod_tensor_to_array,
    max_sequence_len,
    reorder_lod_tensor_by_rank,
    shrink_memory,
)
from paddle_ir.layers.embedding import embedding
from paddle_ir.layers.io import data
from paddle_ir.layers.logistic import sigmoid_cross_entropy_with_logits
from paddle_ir.layers.math import (
    abs,
    elementwise_add,
    elementwise_div,
    elementwise_mul,
    elementwise_sub,
    exp,
    log,
    mean,
    reduce_mean,
    reduce_sum,
    relu,
    scale,
    sigmoid,
    sign,
    softplus,
    sqrt,
    square,
    tanh,
)
from paddle_ir.layers.nn import (
    accuracy,
    cross_entropy,
    fc,
    matmul,
    mul,
    reshape,
    softmax,
    softmax_with_cross_entropy,
    topk,
)
from paddle_ir.layers.rnn import dynamic_gru, dynamic_lstm
from paddle_ir.layers.sequence import (
    lod_append,
    lod_reset,
    sequence_concat,
    sequence_expand,
    sequence_first_step,
    sequence_last_step,
    sequence_mask,
    sequence_pad,
    sequence_pool,
    sequence_reverse,
    sequence_softmax,
    sequence_unpad,
)
from paddle_ir.layers.sparse import cast_storage, csr_data, retain, sparse_dot
from paddle_ir.layers.tensor import (
    cast,
    concat,
    fill_constant,
)

__all__ = [
    "abs",
    "accuracy",
    "array_length",
    "array_read",
    "array_to_lod_tensor",
    "array_write",
    "assign",
    "cast",
    "cast_storage",
    "concat",
    "cond",
    "ConditionalBlock",
    "create_array",
    "cross_entropy",
    "csr_data",
    "data",
    "dynamic_gru",
    "dynamic_lstm",
    "DynamicRNN",
    "elementwise_add",
    "elementwise_div",
    "elementwise_mul",
    "elementwise_sub",
    "embedding",
    "equal",
    "exp",
    "fc",
    "fill_constant",
    "fill_constant_batch_size_like",
    "greater_equal",
    "greater_than",
    "increment",
    "less_equal",
    "less_than",
    "lod_append",
    "lod_rank_table",
    "lod_reset",
    "lod_tensor_to_array",
    "log",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "max_sequence_len",
    "mean",
    "mul",
    "not_equal",
    "reduce_mean",
    "reduce_sum",
    "relu",
    "reorder_lod_tensor_by_rank",
    "reshape",
    "retain",
    "scale",
    "sequence_concat",
    "sequence_expand",
    "sequence_first_step",
    "sequence_last_step",
    "sequence_mask",
    "sequence_pad",
    "sequence_pool",
    "sequence_reverse",
    "sequence_softmax",
    "sequence_unpad",
    "shrink_memory",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "sign",
    "softmax",
    "softmax_with_cross_entropy",
    "softplus",
    "sparse_dot",
    "sqrt",
    "square",
    "Switch",
    "tanh",
    "topk",
    "While",
]

# Fluid 1.7's remaining layers, one module per area; each module's __all__ joins ours.
from paddle_ir.layers import extra_math as _extra_math  # noqa: E402
from paddle_ir.layers import learning_rate_scheduler as _lr  # noqa: E402
from paddle_ir.layers.extra_math import *  # noqa: E402, F403
from paddle_ir.layers.learning_rate_scheduler import *  # noqa: E402, F403

__all__ += _extra_math.__all__ + _lr.__all__
from paddle_ir.layers import metric_op as _metric_op  # noqa: E402
from paddle_ir.layers.metric_op import *  # noqa: E402, F403

__all__ += _metric_op.__all__
from paddle_ir.layers import extra_nn as _extra_nn  # noqa: E402
from paddle_ir.layers import loss as _loss  # noqa: E402
from paddle_ir.layers import tensor_more as _tensor_more  # noqa: E402
from paddle_ir.layers.extra_nn import *  # noqa: E402, F403
from paddle_ir.layers.loss import *  # noqa: E402, F403
from paddle_ir.layers.tensor_more import *  # noqa: E402, F403

__all__ += _extra_nn.__all__ + _loss.__all__ + _tensor_more.__all__
from paddle_ir.layers import sequence_more as _sequence_more  # noqa: E402
from paddle_ir.layers.sequence_more import *  # noqa: E402, F403

__all__ += _sequence_more.__all__
from paddle_ir.layers import control_flow_more as _control_flow_more  # noqa: E402
from paddle_ir.layers.control_flow_more import *  # noqa: E402, F403

__all__ += _control_flow_more.__all__
from paddle_ir.layers import nn_more as _nn_more  # noqa: E402
from paddle_ir.layers.nn_more import *  # noqa: E402, F403

__all__ += _nn_more.__all__
from paddle_ir.layers import rnn_api as _rnn_api  # noqa: E402
from paddle_ir.layers.rnn_api import *  # noqa: E402, F403

__all__ += _rnn_api.__all__
from paddle_ir.layers import loss_more as _loss_more  # noqa: E402
from paddle_ir.layers.loss_more import *  # noqa: E402, F403

__all__ += _loss_more.__all__
from paddle_ir.layers import rnn_more as _rnn_more  # noqa: E402
from paddle_ir.layers.rnn_more import *  # noqa: E402, F403

__all__ += _rnn_more.__all__
from paddle_ir.layers import vision_more as _vision_more  # noqa: E402
from paddle_ir.layers.vision_more import *  # noqa: E402, F403

__all__ += _vision_more.__all__
from paddle_ir.layers import decode as _decode  # noqa: E402
from paddle_ir.layers.decode import *  # noqa: E402, F403

__all__ += _decode.__all__
from paddle_ir.layers import conv3d as _conv3d  # noqa: E402
from paddle_ir.layers.conv3d import *  # noqa: E402, F403

__all__ += _conv3d.__all__
