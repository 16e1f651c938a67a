"""Layers: Paddle Fluid's functions that append ops to the current program."""

import sys
import types

from paddle_ir.layers.beam import beam_search, beam_search_decode, is_empty
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
from paddle_ir.layers.crf import chunk_eval, crf_decoding, linear_chain_crf
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
from paddle_ir.layers.io import (
    create_py_reader_by_data,
    data,
    double_buffer,
    py_reader,
    read_file,
)
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
    softmax,
    softmax_with_cross_entropy,
    topk,
)
from paddle_ir.layers.one_hot import one_hot
from paddle_ir.layers.resize import (
    image_resize,
    image_resize_short,
    resize_bilinear,
    resize_nearest,
)
from paddle_ir.layers.rnn import dynamic_gru, dynamic_lstm
from paddle_ir.layers.rnn_cells import gru_unit, lstm_unit
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
from paddle_ir.layers.sequence_conv import sequence_conv
from paddle_ir.layers.similarity import cos_sim, square_error_cost
from paddle_ir.layers.sparse import cast_storage, csr_data, retain, sparse_dot
from paddle_ir.layers.tensor import (
    cast,
    concat,
    fill_constant,
)
from paddle_ir.layers.tensor_fill import expand, ones, sums, unstack, zeros, zeros_like
from paddle_ir.layers.tensor_ops import (
    argmax,
    flatten,
    reshape,
    slice,
    split,
    squeeze,
    stack,
    transpose,
    unsqueeze,
)
from paddle_ir.layers.vision import (
    adaptive_pool2d,
    batch_norm,
    conv2d,
    conv2d_transpose,
    dropout,
    gelu,
    hard_sigmoid,
    hard_swish,
    layer_norm,
    leaky_relu,
    pool2d,
    relu6,
    swish,
)

__all__ = [
    "abs",
    "accuracy",
    "array_length",
    "array_read",
    "array_to_lod_tensor",
    "array_write",
    "assign",
    "beam_search",
    "beam_search_decode",
    "cast",
    "cast_storage",
    "chunk_eval",
    "concat",
    "cond",
    "ConditionalBlock",
    "cos_sim",
    "create_array",
    "crf_decoding",
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
    "expand",
    "fc",
    "fill_constant",
    "fill_constant_batch_size_like",
    "greater_equal",
    "greater_than",
    "gru_unit",
    "increment",
    "is_empty",
    "less_equal",
    "less_than",
    "linear_chain_crf",
    "lod_append",
    "lod_rank_table",
    "lod_reset",
    "lod_tensor_to_array",
    "log",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "lstm_unit",
    "matmul",
    "max_sequence_len",
    "mean",
    "mul",
    "not_equal",
    "ones",
    "reduce_mean",
    "reduce_sum",
    "relu",
    "reorder_lod_tensor_by_rank",
    "reshape",
    "retain",
    "scale",
    "sequence_concat",
    "sequence_conv",
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
    "square_error_cost",
    "sums",
    "Switch",
    "tanh",
    "topk",
    "unstack",
    "While",
    "adaptive_pool2d",
    "argmax",
    "batch_norm",
    "conv2d",
    "conv2d_transpose",
    "dropout",
    "flatten",
    "gelu",
    "hard_sigmoid",
    "hard_swish",
    "image_resize",
    "image_resize_short",
    "layer_norm",
    "leaky_relu",
    "pool2d",
    "relu6",
    "resize_bilinear",
    "resize_nearest",
    "slice",
    "split",
    "squeeze",
    "stack",
    "swish",
    "transpose",
    "unsqueeze",
    "zeros",
    "zeros_like",
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

# --- Fluid 1.x compatibility: names for a missing attribute (paddle_ir/compat/missing_names.py) ---
__all__ += ["create_py_reader_by_data", "double_buffer", "one_hot", "py_reader", "read_file"]


def __getattr__(name: str):
    from paddle_ir.compat.missing_names import missing_attribute

    raise missing_attribute("paddle_ir.layers", name, __all__)


class _LayersNamespace(types.ModuleType):
    """This package's module type: a submodule import never rebinds a layer's name.

    `import paddle_ir.fluid.layers.rnn` (Fluid's module path, fluid/modules.py) makes
    the import system bind the submodule `rnn` on this package, over the `rnn` layer;
    Fluid keeps the layer, and so does this package.
    """

    def __setattr__(self, name: str, value) -> None:
        current = self.__dict__.get(name)
        if (isinstance(value, types.ModuleType) and callable(current)
                and not isinstance(current, types.ModuleType)):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _LayersNamespace
