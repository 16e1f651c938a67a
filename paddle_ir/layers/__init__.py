"""Layers: Paddle Fluid's functions that append ops to the current program."""

from paddle_ir.layers.embedding import embedding
from paddle_ir.layers.io import data
from paddle_ir.layers.math import (
    elementwise_add,
    elementwise_div,
    elementwise_mul,
    elementwise_sub,
    scale,
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
from paddle_ir.layers.sparse import cast_storage, csr_data, retain, sparse_dot
from paddle_ir.layers.tensor import fill_constant

__all__ = [
    "accuracy",
    "cast_storage",
    "cross_entropy",
    "csr_data",
    "data",
    "dynamic_gru",
    "dynamic_lstm",
    "elementwise_add",
    "elementwise_div",
    "elementwise_mul",
    "elementwise_sub",
    "embedding",
    "fc",
    "fill_constant",
    "matmul",
    "mul",
    "reshape",
    "retain",
    "scale",
    "softmax",
    "softmax_with_cross_entropy",
    "sparse_dot",
    "topk",
]
