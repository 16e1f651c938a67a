"""Single-step recurrent cells: gru_unit and lstm_unit (Fluid 1.x's), for loops built by hand
(While, DynamicRNN, StaticRNN) that step a hidden state themselves.

    hidden, _, _ = gru_unit(fc(x_t, size=3 * D), h_prev, size=3 * D)
    h, c = lstm_unit(x_t, h_prev, c_prev, forget_bias=1.0)

See ops/rnn/gru_unit.py and ops/rnn/lstm_unit.py for the formulas and weight layouts.
"""

from __future__ import annotations

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.layers.nn import fc
from paddle_ir.layers.tensor import concat
from paddle_ir.ops.rnn.gru_unit import ACTIVATION_IDS

__all__ = ["gru_unit", "lstm_unit"]


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
