"""Recurrent layers over LoD sequences: dynamic_lstm and dynamic_gru (Paddle Fluid's).

Both run the fused `lstm` / `gru` op over every sequence of the input's last
LoD level without padding. Their input is already projected to the gate
width (an fc of size 4*D for the LSTM, 3*D for the GRU, without activation),
as in Paddle; see ops/rnn/lstm.py and ops/rnn/gru.py for the formulas and layouts.
"""

from __future__ import annotations

from paddle_ir.core.errors import OpLocation, ShapeInferenceError
from paddle_ir.core.user_frame import creation_site
from paddle_ir.framework import Variable
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper


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


def __getattr__(name: str):
    # a layer Fluid 1.x defines in this module but paddle-ir elsewhere (fluid_layout.py)
    from paddle_ir.layers.fluid_layout import attribute

    return attribute(__name__, name)
