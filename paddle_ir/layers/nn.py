"""Neural-network layers with Paddle Fluid's signatures: fc, mul, matmul, softmax, the
cross-entropy losses, topk and accuracy (reshape, a reshape2 op, is in layers/tensor_ops.py).

Each appends its ops to the current main program (parameters get their
initializer ops in the startup program); shapes are inferred as the ops are
appended, so a mismatch fails here, naming the caller's line.
"""

from __future__ import annotations

import copy
import math

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper

__all__ = ["accuracy", "cross_entropy", "fc", "matmul", "mul", "softmax",
           "softmax_with_cross_entropy", "topk"]


def _param_attrs(param_attr, count: int) -> list[ParamAttr]:
    """One ParamAttr per input: a list is taken as is, anything else is copied `count` times."""
    if isinstance(param_attr, (list, tuple)):
        if len(param_attr) != count:
            raise InvalidProgramError(
                f"fc got {count} inputs but {len(param_attr)} param_attrs; give one per input")
        return [ParamAttr.to_attr(a) for a in param_attr]
    attr = ParamAttr.to_attr(param_attr)
    return [attr] + [copy.deepcopy(attr) for _ in range(count - 1)]


def fc(input: Variable | list[Variable], size: int, num_flatten_dims: int = 1,  # noqa: A002
       param_attr=None, bias_attr=None, act: str | None = None, name: str | None = None,
       ) -> Variable:
    """A fully connected layer: act(sum_i flatten(input_i) @ W_i + b), as Paddle's fc.

    Each input is flattened to 2-D at `num_flatten_dims` (its dims from there on
    must be known) and multiplied by its own weight `fc_N.w_i` of shape
    [prod(input.shape[num_flatten_dims:]), size] (Xavier-initialized unless
    param_attr says otherwise). Several inputs are summed. The bias `fc_N.b_0`
    of shape [size] (zeros) is added along axis num_flatten_dims; bias_attr=False
    leaves it out. Out has shape input.shape[:num_flatten_dims] + [size].
    """
    helper = LayerHelper("fc", name)
    inputs = list(input) if isinstance(input, (list, tuple)) else [input]
    dtype = inputs[0].dtype
    products = []
    for x, attr in zip(inputs, _param_attrs(param_attr, len(inputs)), strict=True):
        if attr is None:
            raise InvalidProgramError("fc needs a weight: param_attr cannot be False")
        if not 1 <= num_flatten_dims < len(x.shape):
            raise InvalidProgramError(
                f"fc: num_flatten_dims must be in [1, {len(x.shape)}) for input {x.name} of "
                f"shape {list(x.shape)}, got {num_flatten_dims}")
        flat = x.shape[num_flatten_dims:]
        if any(d < 0 for d in flat):
            raise InvalidProgramError(
                f"fc: input {x.name} has shape {list(x.shape)}; its dims from "
                f"num_flatten_dims={num_flatten_dims} on must be known to size the weight")
        w = helper.create_parameter(attr, [math.prod(flat), size], dtype)
        out = helper.create_variable_for_type_inference(dtype)
        helper.append_op("mul", inputs={"X": x, "Y": w}, outputs={"Out": out},
                         attrs={"x_num_col_dims": num_flatten_dims, "y_num_col_dims": 1})
        products.append(out)
    if len(products) == 1:
        pre_bias = products[0]
    else:
        pre_bias = helper.create_variable_for_type_inference(dtype)
        helper.append_op("sum", inputs={"X": products}, outputs={"Out": pre_bias})
    bias = ParamAttr.to_attr(bias_attr)
    if bias is None:
        pre_act = pre_bias
    else:
        b = helper.create_parameter(bias, [size], dtype, is_bias=True)
        pre_act = helper.create_variable_for_type_inference(dtype)
        helper.append_op("elementwise_add", inputs={"X": pre_bias, "Y": b},
                         outputs={"Out": pre_act}, attrs={"axis": num_flatten_dims})
    return helper.append_activation(pre_act, act)


def mul(x: Variable, y: Variable, x_num_col_dims: int = 1, y_num_col_dims: int = 1,
        name: str | None = None) -> Variable:
    """flatten(x) @ flatten(y), flattening x at x_num_col_dims and y at y_num_col_dims."""
    helper = LayerHelper("mul", name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("mul", inputs={"X": x, "Y": y}, outputs={"Out": out},
                     attrs={"x_num_col_dims": x_num_col_dims, "y_num_col_dims": y_num_col_dims})
    return out


def matmul(x: Variable, y: Variable, transpose_x: bool = False, transpose_y: bool = False,
           alpha: float = 1.0, name: str | None = None) -> Variable:
    """alpha * op(x) @ op(y), batched over leading dims (see ops/math/matmul.py for 1-D rules)."""
    helper = LayerHelper("matmul", name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("matmul", inputs={"X": x, "Y": y}, outputs={"Out": out},
                     attrs={"transpose_X": bool(transpose_x), "transpose_Y": bool(transpose_y),
                            "alpha": float(alpha)})
    return out


def softmax(input: Variable, use_cudnn: bool = False, name: str | None = None,  # noqa: A002
            axis: int = -1) -> Variable:
    """exp(input) / sum(exp(input)) along `axis` (use_cudnn is accepted for Paddle's sake)."""
    helper = LayerHelper("softmax", name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("softmax", inputs={"X": input}, outputs={"Out": out}, attrs={"axis": axis})
    return out


def cross_entropy(input: Variable, label: Variable, soft_label: bool = False,  # noqa: A002
                  ignore_index: int = -100) -> Variable:
    """-log(input[label]) per row ([..., 1]); input holds probabilities (a softmax's output)."""
    helper = LayerHelper("cross_entropy")
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("cross_entropy", inputs={"X": input, "Label": label}, outputs={"Y": out},
                     attrs={"soft_label": soft_label, "ignore_index": ignore_index})
    return out


def softmax_with_cross_entropy(logits: Variable, label: Variable, soft_label: bool = False,
                               ignore_index: int = -100, numeric_stable_mode: bool = True,
                               return_softmax: bool = False, axis: int = -1):
    """The cross entropy of softmax(logits) along `axis`, computed stably in one op.

    Returns the loss (logits' shape with 1 at `axis`), or (loss, softmax) when
    return_softmax is set.
    """
    helper = LayerHelper("softmax_with_cross_entropy")
    softmax_out = helper.create_variable_for_type_inference(logits.dtype)
    loss = helper.create_variable_for_type_inference(logits.dtype)
    helper.append_op("softmax_with_cross_entropy", inputs={"Logits": logits, "Label": label},
                     outputs={"Softmax": softmax_out, "Loss": loss},
                     attrs={"soft_label": soft_label, "ignore_index": ignore_index,
                            "numeric_stable_mode": numeric_stable_mode, "axis": axis})
    return (loss, softmax_out) if return_softmax else loss


def topk(input: Variable, k: int, name: str | None = None):  # noqa: A002
    """(values, indices) of the k largest entries along the last axis, largest first."""
    helper = LayerHelper("top_k", name)
    values = helper.create_variable_for_type_inference(input.dtype)
    indices = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("top_k", inputs={"X": input}, outputs={"Out": values, "Indices": indices},
                     attrs={"k": int(k)})
    return values, indices


def accuracy(input: Variable, label: Variable, k: int = 1, correct: Variable | None = None,  # noqa: A002
             total: Variable | None = None) -> Variable:
    """The fraction (float32, shape [1]) of rows whose label is among input's top k classes.

    `correct` and `total` (int32, shape [1]) receive the counts when given.
    """
    helper = LayerHelper("accuracy")
    values, indices = topk(input, k)
    acc = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    if correct is None:
        correct = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    if total is None:
        total = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op("accuracy", inputs={"Out": values, "Indices": indices, "Label": label},
                     outputs={"Accuracy": acc, "Correct": correct, "Total": total})
    return acc


def __getattr__(name: str):
    # a layer Fluid 1.x defines in this module but paddle-ir elsewhere (fluid_layout.py)
    from paddle_ir.layers.fluid_layout import attribute

    return attribute(__name__, name)
