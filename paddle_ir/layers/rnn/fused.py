"""Fluid 1.7's fused recurrent layers: dynamic_lstm, dynamic_gru and dynamic_lstmp over
LoD sequences, lstm (cuDNN-style, padded and time-major), and the single-step cells
gru_unit and lstm_unit.

dynamic_lstm and dynamic_gru run the fused `lstm` / `gru` op over every sequence of the
input's last LoD level without padding. Their input is already projected to the gate
width (an fc of size 4*D for the LSTM, 3*D for the GRU, without activation), as in
Paddle; see ops/rnn/lstm.py and ops/rnn/gru.py for the formulas and layouts.

gru_unit and lstm_unit step a hidden state once, for loops built by hand (While,
DynamicRNN, StaticRNN):

    hidden, _, _ = gru_unit(fc(x_t, size=3 * D), h_prev, size=3 * D)
    h, c = lstm_unit(x_t, h_prev, c_prev, forget_bias=1.0)

dynamic_lstmp (an LSTM with a recurrent projection, built on DynamicRNN), per step
(Paddle's lstmp, gate order candidate, input, forget, output):

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

from paddle_ir.core.errors import InvalidProgramError, OpLocation, ShapeInferenceError
from paddle_ir.core.user_frame import creation_site
from paddle_ir.framework import Variable
from paddle_ir.framework.initializer import Uniform
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.control_flow.dynamic_rnn import DynamicRNN
from paddle_ir.layers.control_flow.time_loop import TimeLoop, read_step, time_steps
from paddle_ir.layers.helper import LayerHelper, _unary
from paddle_ir.layers.nn.dense import fc, matmul
from paddle_ir.layers.nn.elementwise import clip, elementwise_add, elementwise_mul
from paddle_ir.layers.nn.shapes import reshape, strided_slice
from paddle_ir.layers.ops import sigmoid, tanh
from paddle_ir.layers.rnn.cells import stack_steps, time_slice
from paddle_ir.layers.sequence_lod import sequence_reverse
from paddle_ir.layers.tensor import concat
from paddle_ir.ops.rnn.gru_unit import ACTIVATION_IDS

__all__ = ["dynamic_gru", "dynamic_lstm", "dynamic_lstmp", "gru_unit", "lstm", "lstm_unit"]


def _require_sequence(layer: str, op_type: str, input: Variable, gates: int) -> None:  # noqa: A002
    """Fail before any parameter is created: the op would reject the input anyway."""
    if input.lod_level < 1:
        raise ShapeInferenceError(
            f"{layer} requires a sequence input (lod_level >= 1), but {input.name!r} has "
            f"lod_level {input.lod_level}",
            op=OpLocation(op_type=op_type, inputs={"Input": [input.name]},
                          creation_site=creation_site()),
            hint=f"declare the data with layers.data(..., lod_level=1) and feed a LoDTensor "
                 f"(pir.create_lod_tensor(array, [lengths])); project it with an fc of size "
                 f"{gates} * D before {layer}")


def dynamic_lstm(input: Variable, size: int, h_0: Variable | None = None,  # noqa: A002
                 c_0: Variable | None = None, param_attr=None, bias_attr=None,
                 use_peepholes: bool = True, is_reverse: bool = False,
                 gate_activation: str = "sigmoid", cell_activation: str = "tanh",
                 candidate_activation: str = "tanh", dtype="float32",
                 name: str | None = None) -> tuple[Variable, Variable]:
    """An LSTM over each sequence of `input` [T, size], size = 4 * D; returns (hidden, cell).

    Parameters: Weight [D, 4D] and Bias [1, 7D] with peepholes (else [1, 4D]).
    `h_0` / `c_0` are [N, D], one row per sequence in input order (zeros when
    None). hidden and cell are [T, D] and carry the input's LoD.
    """
    _require_sequence("dynamic_lstm", "lstm", input, 4)
    if size % 4 != 0:
        raise ValueError(f"dynamic_lstm: size must be 4 * D (the projected gate width), got "
                         f"{size}")
    bias_param = ParamAttr.to_attr(bias_attr)
    if bias_param is None:
        raise ValueError("dynamic_lstm always has a bias (the lstm op requires one); pass "
                         "bias_attr=None or a ParamAttr instead of False")
    d = size // 4
    helper = LayerHelper("lstm", name)
    weight = helper.create_parameter(ParamAttr.to_attr(param_attr), [d, 4 * d], dtype)
    bias = helper.create_parameter(bias_param, [1, (7 if use_peepholes else 4) * d], dtype,
                                   is_bias=True)
    hidden = helper.create_variable_for_type_inference(dtype)
    cell = helper.create_variable_for_type_inference(dtype)
    batch_gate = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    batch_cell_pre_act = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    inputs = {"Input": input, "Weight": weight, "Bias": bias}
    if h_0 is not None:
        inputs["H0"] = h_0
    if c_0 is not None:
        inputs["C0"] = c_0
    helper.append_op(
        "lstm", inputs=inputs,
        outputs={"Hidden": hidden, "Cell": cell, "BatchGate": batch_gate,
                 "BatchCellPreAct": batch_cell_pre_act},
        attrs={"use_peepholes": use_peepholes, "is_reverse": is_reverse,
               "gate_activation": gate_activation, "cell_activation": cell_activation,
               "candidate_activation": candidate_activation})
    return hidden, cell


def dynamic_gru(input: Variable, size: int, param_attr=None, bias_attr=None,  # noqa: A002
                is_reverse: bool = False, gate_activation: str = "sigmoid",
                candidate_activation: str = "tanh", h_0: Variable | None = None,
                origin_mode: bool = False) -> Variable:
    """A GRU over each sequence of `input` [T, 3 * size]; returns hidden [T, size].

    Parameters: Weight [D, 3D] (gate weights then candidate weights, by flat
    memory) and Bias [1, 3D] (none with bias_attr=False). `h_0` is [N, D], one
    row per sequence in input order. hidden carries the input's LoD.
    """
    _require_sequence("dynamic_gru", "gru", input, 3)
    helper = LayerHelper("gru")
    dtype = input.dtype
    weight = helper.create_parameter(ParamAttr.to_attr(param_attr), [size, 3 * size], dtype)
    inputs = {"Input": input, "Weight": weight}
    bias_param = ParamAttr.to_attr(bias_attr)
    if bias_param is not None:
        inputs["Bias"] = helper.create_parameter(bias_param, [1, 3 * size], dtype, is_bias=True)
    if h_0 is not None:
        inputs["H0"] = h_0
    hidden = helper.create_variable_for_type_inference(dtype)
    intermediates = [helper.create_variable_for_type_inference(dtype, stop_gradient=True)
                     for _ in range(3)]
    helper.append_op(
        "gru", inputs=inputs,
        outputs={"Hidden": hidden, "BatchGate": intermediates[0],
                 "BatchResetHiddenPrev": intermediates[1], "BatchHidden": intermediates[2]},
        attrs={"activation": candidate_activation, "gate_activation": gate_activation,
               "is_reverse": is_reverse, "origin_mode": origin_mode})
    return hidden


def _activation_id(name: str, what: str) -> int:
    if name not in ACTIVATION_IDS:
        raise InvalidProgramError(f"gru_unit: {what} must be one of {', '.join(ACTIVATION_IDS)},"
                                  f" got {name!r}")
    return ACTIVATION_IDS.index(name)


def gru_unit(input: Variable, hidden: Variable, size: int, param_attr=None,  # noqa: A002
             bias_attr=None, activation: str = "tanh", gate_activation: str = "sigmoid",
             origin_mode: bool = False):
    """One GRU step: (hidden [N, D], reset_hidden_prev [N, D], gate [N, 3D]), D = size // 3.

    input [N, 3D] is the projected input (an fc of size 3D); the weight
    `gru_unit_N.w_0` is [D, 3D] and the bias [1, 3D] (none with bias_attr=False).
    """
    if size % 3:
        raise InvalidProgramError(f"gru_unit: size must be 3 * D (the projected width), got "
                                  f"{size}")
    helper = LayerHelper("gru_unit")
    dtype = input.dtype
    d = size // 3
    weight = helper.create_parameter(ParamAttr.to_attr(param_attr), [d, 3 * d], dtype)
    inputs = {"Input": input, "HiddenPrev": hidden, "Weight": weight}
    bias = ParamAttr.to_attr(bias_attr)
    if bias is not None:
        inputs["Bias"] = helper.create_parameter(bias, [1, 3 * d], dtype, is_bias=True)
    gate = helper.create_variable_for_type_inference(dtype)
    reset_hidden_prev = helper.create_variable_for_type_inference(dtype)
    updated_hidden = helper.create_variable_for_type_inference(dtype)
    helper.append_op("gru_unit", inputs=inputs,
                     outputs={"Gate": gate, "ResetHiddenPrev": reset_hidden_prev,
                              "Hidden": updated_hidden},
                     attrs={"activation": _activation_id(activation, "activation"),
                            "gate_activation": _activation_id(gate_activation,
                                                              "gate_activation"),
                            "origin_mode": bool(origin_mode)})
    return updated_hidden, reset_hidden_prev, gate


def lstm_unit(x_t: Variable, hidden_t_prev: Variable, cell_t_prev: Variable,
              forget_bias: float = 0.0, param_attr=None, bias_attr=None,
              name: str | None = None):
    """One LSTM step: (hidden, cell), each [N, D] with D = cell_t_prev.shape[1].

    The gates are fc([x_t, hidden_t_prev] joined along axis 1, size 4D), in the
    order i, f, o, g; forget_bias is added to f before its sigmoid.
    """
    for what, var in (("x_t", x_t), ("hidden_t_prev", hidden_t_prev),
                      ("cell_t_prev", cell_t_prev)):
        if len(var.shape) != 2:
            raise ValueError(f"Rank of {what} must be 2, got shape {list(var.shape)}")
    if hidden_t_prev.shape[1] != cell_t_prev.shape[1]:
        raise ValueError(f"The 2nd dimensions of hidden_t_prev and cell_t_prev must be the "
                         f"same, got {hidden_t_prev.shape[1]} and {cell_t_prev.shape[1]}")
    helper = LayerHelper("lstm_unit", name)
    size = cell_t_prev.shape[1]
    gates = fc(concat([x_t, hidden_t_prev], axis=1), size=4 * size, param_attr=param_attr,
               bias_attr=bias_attr)
    c = helper.create_variable_for_type_inference(x_t.dtype)
    h = helper.create_variable_for_type_inference(x_t.dtype)
    helper.append_op("lstm_unit", inputs={"X": gates, "C_prev": cell_t_prev},
                     outputs={"C": c, "H": h}, attrs={"forget_bias": float(forget_bias)})
    return h, c


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
    LSTM over input [T, B, D] (time-major). T is the input's own length, as in Fluid's
    cudnn_lstm (max_len only bounds it there): unrolled when it is known when the program
    is built, a While over the steps when it is not."""
    if dropout_prob and not is_test:
        raise ValueError("lstm: dropout between layers is not supported; pass "
                         "dropout_prob=0.0")
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

            def step(x_t, h, c, w=w, u=u, b=b):
                gates = elementwise_add(matmul(x_t, w) + matmul(h, u), b)
                i, f, g, o = (_cols(gates, q, h_size) for q in range(4))
                c = sigmoid(f) * c + sigmoid(i) * tanh(g)
                return sigmoid(o) * tanh(c), c

            out, h, c = _lstm_direction(layer_in, time_slice(init_h, k, 0),
                                        time_slice(init_c, k, 0), step, bool(direction))
            outs.append(out)
            last_h.append(h)
            last_c.append(c)
        layer_in = outs[0] if dirs == 1 else concat(outs, axis=2)
    return layer_in, stack_steps(last_h, 0), stack_steps(last_c, 0)


def _lstm_direction(x: Variable, h: Variable, c: Variable, step, reverse: bool):
    """(outputs [T, B, H], last h, last c) of step(x_t, h, c) -> (h, c) over time-major x,
    from the last step to the first when reverse; outputs stay in input order."""
    steps = x.shape[0]
    if steps >= 0:
        out = {}
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            h, c = step(time_slice(x, t, 0), h, c)
            out[t] = h
        return stack_steps([out[t] for t in range(steps)], 0), h, c
    count = time_steps(x, 0)
    loop = TimeLoop(count)
    h, c = loop.carry(h), loop.carry(c)
    last = count - 1
    with loop.block() as t:
        index = last - t if reverse else t
        new_h, new_c = step(read_step(x, index), h, c)
        loop.update(h, new_h)
        loop.update(c, new_c)
        loop.collect(new_h, index)
    return loop.stacked()[0], h, c
