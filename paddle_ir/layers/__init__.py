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
from paddle_ir.layers.tensor import fill_constant

__all__ = [
    "accuracy",
    "cross_entropy",
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
    "scale",
    "softmax",
    "softmax_with_cross_entropy",
    "topk",
]
