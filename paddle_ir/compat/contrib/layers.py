"""`fluid.contrib.layers.basic_lstm` / `basic_gru` (Fluid 1.6-1.7's rnn_impl): multi-layer,
optionally bidirectional LSTM/GRU over a padded batch, built with StaticRNN (unrolled over
a time dim known when the program is built, a While over an unknown one).

LSTM cell (gates from one matmul of [x, h] split as i, j, f, o):
    c' = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j);  h' = tanh(c') * sigmoid(o)
GRU cell: r, u = sigmoid([x, h] W_g + b_g);  c = tanh([x, r * h] W_c + b_c)
    h' = u * h + (1 - u) * c
With `sequence_length`, a step past a sequence's end keeps its states (so the last
states are those of its last real step) and its outputs are those kept states.
Dropout (upscale_in_train) is applied between layers. Returns (outputs, last hidden
[, last cell]), the states as [num_layers * directions, batch, hidden].
"""

from __future__ import annotations

import copy

from paddle_ir import layers
from paddle_ir.framework.param_attr import ParamAttr

__all__ = ["BasicGRUUnit", "BasicLSTMUnit", "basic_gru", "basic_lstm"]


def _named(attr, suffix: str):
    """A copy of a ParamAttr whose name gets `suffix` (each layer its own parameters)."""
    attr = ParamAttr.to_attr(attr)
    if attr is None or attr is False or attr.name is None:
        return attr
    attr = copy.deepcopy(attr)
    attr.name += suffix
    return attr


class BasicLSTMUnit:
    def __init__(self, name_scope, hidden_size, param_attr=None, bias_attr=None,
                 gate_activation=None, activation=None, forget_bias=1.0, dtype="float32"):
        self.hidden_size, self.param_attr, self.bias_attr = hidden_size, param_attr, bias_attr
        self.gate_act = gate_activation or layers.sigmoid
        self.act = activation or layers.tanh
        self.forget_bias, self.dtype = float(forget_bias), dtype
        self.weight = self.bias = None

    def __call__(self, x, pre_hidden, pre_cell):
        if self.weight is None:  # created at the first step, from the input's width
            width = int(x.shape[-1]) + self.hidden_size
            self.weight = layers.create_parameter([width, 4 * self.hidden_size], self.dtype,
                                                  attr=self.param_attr)
            self.bias = layers.create_parameter([4 * self.hidden_size], self.dtype,
                                                attr=self.bias_attr, is_bias=True)
        gates = layers.elementwise_add(
            layers.matmul(layers.concat([x, pre_hidden], 1), self.weight), self.bias)
        i, j, f, o = layers.split(gates, num_or_sections=4, dim=-1)
        new_cell = layers.elementwise_add(
            layers.elementwise_mul(pre_cell, self.gate_act(layers.scale(f, bias=self.forget_bias))),
            layers.elementwise_mul(self.gate_act(i), self.act(j)))
        return layers.elementwise_mul(self.act(new_cell), self.gate_act(o)), new_cell


class BasicGRUUnit:
    def __init__(self, name_scope, hidden_size, param_attr=None, bias_attr=None,
                 gate_activation=None, activation=None, dtype="float32"):
        self.hidden_size, self.param_attr, self.bias_attr = hidden_size, param_attr, bias_attr
        self.gate_act = gate_activation or layers.sigmoid
        self.act = activation or layers.tanh
        self.dtype = dtype
        self.gate_weight = None

    def __call__(self, x, pre_hidden):
        h = self.hidden_size
        if self.gate_weight is None:
            width = int(x.shape[-1]) + h
            self.gate_weight = layers.create_parameter([width, 2 * h], self.dtype,
                                                       attr=_named(self.param_attr, "_gate"))
            self.candidate_weight = layers.create_parameter(
                [width, h], self.dtype, attr=_named(self.param_attr, "_candidate"))
            self.gate_bias = layers.create_parameter([2 * h], self.dtype, is_bias=True,
                                                     attr=_named(self.bias_attr, "_gate"))
            self.candidate_bias = layers.create_parameter(
                [h], self.dtype, is_bias=True, attr=_named(self.bias_attr, "_candidate"))
        gates = self.gate_act(layers.elementwise_add(
            layers.matmul(layers.concat([x, pre_hidden], 1), self.gate_weight), self.gate_bias))
        r, u = layers.split(gates, num_or_sections=2, dim=1)
        candidate = self.act(layers.elementwise_add(
            layers.matmul(layers.concat([x, layers.elementwise_mul(r, pre_hidden)], 1),
                          self.candidate_weight), self.candidate_bias))
        return layers.elementwise_add(layers.elementwise_mul(u, pre_hidden),
                                      layers.elementwise_mul(layers.scale(u, -1.0, 1.0),
                                                             candidate))


def _keep_past_end(new, old, step_mask):
    """new where the step is inside the sequence (mask 1), old past its end (mask 0)."""
    return layers.elementwise_add(layers.elementwise_mul(new, step_mask, axis=0),
                                  layers.elementwise_mul(old, layers.scale(step_mask, -1.0, 1.0),
                                                         axis=0))


def _state(init, layer: int, direction: int, directions: int, hidden_size: int):
    """init[layer * directions + direction] as [batch, hidden]."""
    k = layer * directions + direction
    return layers.reshape(layers.slice(init, axes=[0], starts=[k], ends=[k + 1]),
                          shape=[-1, hidden_size])


def _run(kind, x, inits, units, mask, direction, directions, num_layers, hidden_size,
         dropout_prob):
    """One direction over time-major x: (outputs [T, B, H], [last state per kind])."""
    # the initial states are sliced outside the step block (the block reads them once)
    starts = [[None if init is None else _state(init, i, direction, directions, hidden_size)
               for init in inits] for i in range(num_layers)]
    rnn = layers.StaticRNN()
    with rnn.step():
        step = rnn.step_input(x)
        step_mask = rnn.step_input(mask) if mask is not None else None
        for i in range(num_layers):
            pre = [rnn.memory(init=start) if start is not None
                   else rnn.memory(batch_ref=x, shape=[-1, hidden_size]) for start in starts[i]]
            new = units[i](step, *pre)
            new = list(new) if isinstance(new, tuple) else [new]
            if step_mask is not None:
                new = [_keep_past_end(n, p, step_mask) for n, p in zip(new, pre, strict=True)]
            for p, n in zip(pre, new, strict=True):
                rnn.update_memory(p, n)
                rnn.step_output(n)
            step = new[0]
            if dropout_prob:
                step = layers.dropout(step, dropout_prob=dropout_prob,
                                      dropout_implementation="upscale_in_train")
        rnn.step_output(step)
    outs = rnn()
    outs = outs if isinstance(outs, list) else [outs]
    per_layer = len(inits)
    lasts = []
    for s in range(per_layer):
        # the last step, counted from the end: the time dim may be unknown until run time
        finals = [layers.slice(outs[i * per_layer + s], axes=[0], starts=[-1],
                               ends=[2 ** 31 - 1]) for i in range(num_layers)]
        lasts.append(layers.reshape(layers.concat(finals, axis=0),
                                    shape=[num_layers, -1, hidden_size]))
    return outs[-1], lasts


def _basic_rnn(kind, input, inits, hidden_size, num_layers, sequence_length,  # noqa: A002
               dropout_prob, bidirectional, batch_first, make_unit, name):
    directions = 2 if bidirectional else 1
    units = [[make_unit(f"{name}_{'reverse_' if d else ''}layers_{i}", d, i)
              for i in range(num_layers)] for d in range(directions)]
    x = layers.transpose(input, [1, 0, 2]) if batch_first else input
    mask = None
    if sequence_length is not None:
        maxlen = int(x.shape[0]) if x.shape[0] >= 0 else layers.shape(x)[0]
        mask = layers.transpose(layers.sequence_mask(sequence_length, maxlen=maxlen,
                                                     dtype=input.dtype), [1, 0])
    outs, lasts = _run(kind, x, inits, units[0], mask, 0, directions, num_layers,
                       hidden_size, dropout_prob)
    if bidirectional:
        bw_out, bw_lasts = _run(kind, layers.reverse(x, axis=[0]), inits, units[1],
                                None if mask is None else layers.reverse(mask, axis=[0]), 1,
                                directions, num_layers, hidden_size, dropout_prob)
        outs = layers.concat([outs, layers.reverse(bw_out, axis=[0])], axis=2)
        lasts = [layers.reshape(layers.concat([f, b], axis=1),
                                shape=[num_layers * directions, -1, hidden_size])
                 for f, b in zip(lasts, bw_lasts, strict=True)]
    if batch_first:
        outs = layers.transpose(outs, [1, 0, 2])
    return outs, lasts


def basic_lstm(input, init_hidden, init_cell, hidden_size, num_layers=1,  # noqa: A002
               sequence_length=None, dropout_prob=0.0, bidirectional=False, batch_first=True,
               param_attr=None, bias_attr=None, gate_activation=None, activation=None,
               forget_bias=1.0, dtype="float32", name="basic_lstm"):
    """(outputs, last_hidden, last_cell); init_hidden/init_cell may be None (zeros)."""
    def make_unit(scope, direction, layer):
        suffix = f"_{'bw' if direction else 'fw'}_w_{layer}"
        return BasicLSTMUnit(scope, hidden_size, _named(param_attr, suffix),
                             _named(bias_attr, suffix.replace("_w_", "_b_")), gate_activation,
                             activation, forget_bias, dtype)

    outs, (hidden, cell) = _basic_rnn("lstm", input, [init_hidden, init_cell], hidden_size,
                                      num_layers, sequence_length, dropout_prob, bidirectional,
                                      batch_first, make_unit, name)
    return outs, hidden, cell


def basic_gru(input, init_hidden, hidden_size, num_layers=1, sequence_length=None,  # noqa: A002
              dropout_prob=0.0, bidirectional=False, batch_first=True, param_attr=None,
              bias_attr=None, gate_activation=None, activation=None, dtype="float32",
              name="basic_gru"):
    """(outputs, last_hidden); init_hidden may be None (zeros)."""
    def make_unit(scope, direction, layer):
        suffix = f"_{'bw' if direction else 'fw'}_w_{layer}"
        return BasicGRUUnit(scope, hidden_size, _named(param_attr, suffix),
                            _named(bias_attr, suffix.replace("_w_", "_b_")), gate_activation,
                            activation, dtype)

    outs, (hidden,) = _basic_rnn("gru", input, [init_hidden], hidden_size, num_layers,
                                 sequence_length, dropout_prob, bidirectional, batch_first,
                                 make_unit, name)
    return outs, hidden


def __getattr__(name: str):
    from paddle_ir.compat.missing_names import OUT_OF_SCOPE, MissingNameError

    if name.startswith("__"):
        raise AttributeError(f"module 'paddle_ir.compat.contrib.layers' has no attribute {name!r}")
    raise MissingNameError(f"fluid.contrib.layers.{name}: {OUT_OF_SCOPE['contrib']}")
