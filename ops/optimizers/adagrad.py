"""adagrad: in place (ParamOut is Param, MomentOut is Moment).

    Moment += Grad^2
    Param  -= lr * Grad / (sqrt(Moment) + epsilon)

A SelectedRows Grad (merged first: duplicate rows add up) changes only the
rows it lists, in Param and Moment. That is also exactly the dense update: a
row without gradient adds 0 to its Moment and moves Param by 0, so adagrad
needs no lazy_mode (lazy and non-lazy would agree).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.optimizers.optimizer_common import infer_optimizer, merged, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

adagrad = register_op(
    "adagrad",
    inputs=[In("Param"), In("Grad", "dense or SelectedRows"), In("Moment"),
            In("LearningRate", "a one-element tensor")],
    outputs=[Out("ParamOut", "the Param variable, updated in place"),
             Out("MomentOut", "the Moment variable, updated in place")],
    attrs=[Attr("epsilon", "float", 1e-6, "keeps the division finite")],
    key_inputs=["Grad"],
    dtype_from="Param",
    doc=__doc__,
)
adagrad.infer_shape(lambda ctx: infer_optimizer(ctx, state=("Moment",)))


def _step(lr, grad, moment, epsilon):
    return lr * grad / (np.sqrt(moment) + epsilon)


@adagrad.kernel(dtypes=FLOATS)
def adagrad_dense(attrs, param, grad, moment, learning_rate):
    moment += grad * grad
    param -= _step(scalar(learning_rate, param.dtype), grad, moment, attrs["epsilon"])
    return param, moment


@adagrad.kernel(storage=["selected_rows"], dtypes=FLOATS)
def adagrad_selected_rows(attrs, param, grad, moment, learning_rate):
    rows, values = merged(grad)
    m = moment[rows] + values * values
    moment[rows] = m
    param[rows] -= _step(scalar(learning_rate, param.dtype), values, m, attrs["epsilon"])
    return param, moment
