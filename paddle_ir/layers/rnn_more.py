"""dynamic_lstmp (an LSTM with a recurrent projection over LoD sequences, built on
DynamicRNN) and lstm (Fluid's cuDNN-style multi-layer LSTM over a padded, time-major
batch, unrolled over its known length).

dynamic_lstmp, per step (Paddle's lstmp, gate order candidate, input, forget, output):

    [g_c, g_i, g_f, g_o] = x_t + r_{t-1} W + b
    i = gate_act(g_i + w_ic c_{t-1}); f = gate_act(g_f + w_fc c_{t-1})   (peepholes)
    c = f c_{t-1} + i cand_act(g_c)  (clipped to +-cell_clip)
    o = gate_act(g_o + w_oc c); h = o cell_act(c)
    r = proj_act(h P)  (clipped to +-proj_clip)

lstm, per layer and direction (gate order input, forget, cell, output):

    [i, f, g, o] = x W + h U + b;  c' = sigmoid(f) c + sigmoid(i) tanh(g);
    h' = sigmoid(o) tanh(c')
"""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.framework.initializer import Uniform
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.dynamic_rnn import DynamicRNN
from paddle_ir.layers.extra_nn import clip, strided_slice
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.layers.math import _unary, elementwise_add, elementwise_mul, sigmoid, tanh
from paddle_ir.layers.nn import matmul
from paddle_ir.layers.rnn_api import stack_steps, time_slice
from paddle_ir.layers.sequence import sequence_reverse
from paddle_ir.layers.tensor import concat
from paddle_ir.layers.tensor_ops import reshape

__all__ = ["dynamic_lstmp", "lstm"]


def _act(name: str, x: Variable) -> Variable:
    return x if name in ("identity", "linear", None) else _unary(name, x)


def _cols(x: Variable, k: int, width: int) -> Variable:
    return strided_slice(x, [len(x.shape) - 1], [k * width], [(k + 1) * width], [1])


def dynamic_lstmp(input: Variable, size: int, proj_size: int, param_attr=None,  # noqa: A002
                  bias_attr=None, use_peepholes: bool = True, is_reverse: bool = False,
                  gate_activation: str = "sigmoid", cell_activation: str = "tanh",
                  candidate_activation: str = "tanh", proj_activation: str = "tanh",
                  dtype="float32", name=None, h_0: Variable | None = None,
                  c_0: Variable | None = None, cell_clip: float | None = None,
                  proj_clip: float | None = None):
    """(projection [T, proj_size], cell [T, size / 4]) over each sequence of input
    [T, size] (already projected to the 4 gates), with input's LoD."""
    if size % 4:
        raise ValueError(f"dynamic_lstmp: size must be 4 * D, got {size}")
    d = size // 4
    helper = LayerHelper("lstmp", name)
    attr = ParamAttr.to_attr(param_attr) or ParamAttr()
    weight = helper.create_parameter(attr, [proj_size, size], dtype)
    proj_attr = ParamAttr(name=None if attr.name is None else attr.name + "_proj",
                          initializer=attr.initializer)
    proj_w = helper.create_parameter(proj_attr, [d, proj_size], dtype)
    bias = helper.create_parameter(ParamAttr.to_attr(bias_attr) or ParamAttr(),
                                   [1, (7 if use_peepholes else 4) * d], dtype, is_bias=True)
    source = sequence_reverse(input) if is_reverse else input
    rnn = DynamicRNN()
    with rnn.block():
        x = rnn.step_input(source)
        r_prev = rnn.memory(init=h_0, shape=[proj_size], need_reorder=h_0 is not None)
        c_prev = rnn.memory(init=c_0, shape=[d], need_reorder=c_0 is not None)
        gates = elementwise_add(elementwise_add(x, matmul(r_prev, weight)),
                                reshape(_cols(bias, 0, 4 * d), [4 * d]))
        g_c, g_i, g_f, g_o = (_cols(gates, k, d) for k in range(4))
        if use_peepholes:
            w_ic, w_fc, w_oc = (reshape(_cols(bias, 4 + k, d), [d]) for k in range(3))
            g_i = g_i + elementwise_mul(c_prev, w_ic)
            g_f = g_f + elementwise_mul(c_prev, w_fc)
        i = _act(gate_activation, g_i)
        f = _act(gate_activation, g_f)
        c = f * c_prev + i * _act(candidate_activation, g_c)
        if cell_clip:
            c = clip(c, -float(cell_clip), float(cell_clip))
        if use_peepholes:
            g_o = g_o + elementwise_mul(c, w_oc)
        h = _act(gate_activation, g_o) * _act(cell_activation, c)
        r = _act(proj_activation, matmul(h, proj_w))
        if proj_clip:
            r = clip(r, -float(proj_clip), float(proj_clip))
        rnn.update_memory(r_prev, r)
        rnn.update_memory(c_prev, c)
        rnn.output(r, c)
    proj, cell = rnn()
    if is_reverse:
        proj, cell = sequence_reverse(proj), sequence_reverse(cell)
    return proj, cell


def lstm(input: Variable, init_h: Variable, init_c: Variable, max_len: int,  # noqa: A002
         hidden_size: int, num_layers: int, dropout_prob: float = 0.0, is_bidirec: bool = False,
         is_test: bool = False, name=None, default_initializer=None, seed: int = -1):
    """(rnn_out [T, B, H * dirs], last_h, last_c [num_layers * dirs, B, H]) of a stacked
    LSTM over input [T, B, D] (time-major, T = max_len known)."""
    if dropout_prob and not is_test:
        raise ValueError("lstm: dropout between layers is not supported; pass "
                         "dropout_prob=0.0")
    steps = input.shape[0] if input.shape[0] >= 0 else int(max_len)
    helper = LayerHelper("cudnn_lstm", name)
    init = default_initializer or Uniform(-1.0 / hidden_size ** 0.5, 1.0 / hidden_size ** 0.5)
    dirs = 2 if is_bidirec else 1
    h_size = hidden_size
    layer_in = input
    last_h, last_c = [], []
    for layer in range(num_layers):
        outs = []
        for direction in range(dirs):
            k = layer * dirs + direction
            width = layer_in.shape[-1]
            w = helper.create_parameter(ParamAttr(initializer=init), [width, 4 * h_size],
                                        input.dtype)
            u = helper.create_parameter(ParamAttr(initializer=init), [h_size, 4 * h_size],
                                        input.dtype)
            b = helper.create_parameter(ParamAttr(initializer=init), [4 * h_size],
                                        input.dtype, is_bias=True)
            h = time_slice(init_h, k, 0)
            c = time_slice(init_c, k, 0)
            order = range(steps - 1, -1, -1) if direction else range(steps)
            step_out = {}
            for t in order:
                gates = elementwise_add(matmul(time_slice(layer_in, t, 0), w) + matmul(h, u),
                                        b)
                i, f, g, o = (_cols(gates, q, h_size) for q in range(4))
                c = sigmoid(f) * c + sigmoid(i) * tanh(g)
                h = sigmoid(o) * tanh(c)
                step_out[t] = h
            outs.append(stack_steps([step_out[t] for t in range(steps)], 0))
            last_h.append(h)
            last_c.append(c)
        layer_in = outs[0] if dirs == 1 else concat(outs, axis=2)
    return layer_in, stack_steps(last_h, 0), stack_steps(last_c, 0)
