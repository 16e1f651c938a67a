"""l2_decay, l1_decay: a regularized gradient, Out = Grad + coeff * R'(Param).

    l2_decay: Out = Grad + coeff * Param          (the gradient of coeff/2 * |Param|^2)
    l1_decay: Out = Grad + coeff * sign(Param)    (a subgradient of coeff * |Param|_1)

Out has Grad's storage. A dense Grad gives a dense Out. A SelectedRows Grad
stays a SelectedRows: it is merged (sorted unique rows, duplicates added)
and the decay is added to the rows it lists only, so rows without gradient
are not decayed in that step. Paddle's regularizer densifies a sparse
gradient here (a [V, D] sum); keeping it sparse is deliberate, and with
lazy optimizers it means a row decays only in the steps that touch it.
The optimizers append these ops (op_role 2); they have no gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.segments import merge_rows
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.context import LOD_TENSOR, SELECTED_ROWS, dims_match, shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_DECAYS = {
    "l2_decay": ("Grad + coeff * Param", lambda p: p),
    "l1_decay": ("Grad + coeff * sign(Param)", np.sign),
}


def _infer_var_type(ctx):
    sparse = ctx.input_var_type("Grad") == SELECTED_ROWS
    ctx.set_output_type("Out", SELECTED_ROWS if sparse else LOD_TENSOR)


def _infer_shape(ctx):
    param, grad = ctx.input_shape("Param"), ctx.input_shape("Grad")
    ctx.enforce(len(param) == len(grad) and all(map(dims_match, param, grad)),
                lambda: f"Grad must have Param's shape, got Param {shape_str(param)} and Grad "
                f"{shape_str(grad)}")
    ctx.enforce(ctx.input_dtype("Grad") == ctx.input_dtype("Param"),
                lambda: f"Grad must have Param's dtype {ctx.input_dtype('Param')}, got "
                f"{ctx.input_dtype('Grad')}")
    ctx.set_output("Out", grad, ctx.input_dtype("Grad"))


def _kernels(derivative):
    def dense(attrs, param, grad):
        return grad + attrs["coeff"] * derivative(param)

    def selected_rows(attrs, param, grad):
        rows, values = merge_rows(grad.rows, grad.value)
        return SelectedRows.unchecked(rows, values + attrs["coeff"] * derivative(param[rows]),
                                  grad.height)

    return dense, selected_rows


for _op_type, (_formula, _derivative) in _DECAYS.items():
    _op = register_op(
        _op_type,
        inputs=[In("Param", "the parameter"), In("Grad", "its gradient: dense or SelectedRows")],
        outputs=[Out("Out", f"{_formula}, with Grad's storage")],
        attrs=[Attr("coeff", "float", 0.0, "the regularization coefficient")],
        key_inputs=["Grad"],
        dtype_from="Param",
        doc=f"Out = {_formula}.\n\n" + __doc__,
    )
    _op.infer_var_type(_infer_var_type)
    _op.infer_shape(_infer_shape)
    _dense, _sparse = _kernels(_derivative)
    _dense.__qualname__ = _dense.__name__ = f"{_op_type}_dense"
    _sparse.__qualname__ = _sparse.__name__ = f"{_op_type}_selected_rows"
    _op.kernel(dtypes=FLOATS)(_dense)
    _op.kernel(storage=["selected_rows"], dtypes=FLOATS)(_sparse)
