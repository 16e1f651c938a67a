"""momentum: Paddle's momentum update, in place (ParamOut is Param, VelocityOut is Velocity).

    Velocity = mu * Velocity + Grad
    Param   -= lr * Velocity                          (use_nesterov=False)
    Param   -= lr * (Grad + mu * Velocity)            (use_nesterov=True, the new Velocity)

Relation to MXNet: `sgd_mom_update` keeps mom = mu * mom - lr * Grad and adds
it to the weight, so with a constant learning rate mom = -lr * Velocity. In
the seed's example (weight ones(4, 2), Grad rows [1, 2] = [[1, 2], [4, 5]],
lr = mu = 0.01) MXNet's mom rows are [-0.01, -0.02] and [-0.04, -0.05]; here
Velocity rows are [1, 2] and [4, 5], and the weights agree: rows 1, 2 become
[0.99, 0.98] and [0.96, 0.95]. (With a changing lr the two differ: MXNet's
mom keeps the old rates, Velocity does not.)

A SelectedRows Grad (merged first: duplicate rows add up):
- lazy_mode=False: exactly the dense update. Velocity decays on every row, and
  with it every Param row moves: O(V * D) work on Param and Velocity, but no
  dense gradient is built.
- lazy_mode=True: only the rows Grad lists change, in Param and Velocity
  (MXNet's lazy_update); the other rows keep their values bit for bit.
"""

from __future__ import annotations

from paddle_ir.ops.optimizers.optimizer_common import LAZY_MODE, infer_optimizer, merged, scalar
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

momentum = register_op(
    "momentum",
    inputs=[In("Param"), In("Grad", "dense or SelectedRows"), In("Velocity"),
            In("LearningRate", "a one-element tensor")],
    outputs=[Out("ParamOut", "the Param variable, updated in place"),
             Out("VelocityOut", "the Velocity variable, updated in place")],
    attrs=[Attr("mu", "float", 0.9, "the momentum"),
           Attr("use_nesterov", "bool", False, "Nesterov's look-ahead step"),
           LAZY_MODE],
    key_inputs=["Grad"],
    dtype_from="Param",
    doc=__doc__,
)
momentum.infer_shape(lambda ctx: infer_optimizer(ctx, state=("Velocity",)))


@momentum.kernel(dtypes=FLOATS)
def momentum_dense(attrs, param, grad, velocity, learning_rate):
    mu, lr = attrs["mu"], scalar(learning_rate, param.dtype)
    velocity *= mu
    velocity += grad
    param -= lr * (grad + mu * velocity if attrs["use_nesterov"] else velocity)
    return param, velocity


@momentum.kernel(storage=["selected_rows"], dtypes=FLOATS)
def momentum_selected_rows(attrs, param, grad, velocity, learning_rate):
    mu, lr = attrs["mu"], scalar(learning_rate, param.dtype)
    rows, values = merged(grad)
    if attrs["lazy_mode"]:
        v = mu * velocity[rows] + values
        velocity[rows] = v
        param[rows] -= lr * (values + mu * v if attrs["use_nesterov"] else v)
        return param, velocity
    velocity *= mu
    velocity[rows] += values
    if attrs["use_nesterov"]:
        step = mu * velocity
        step[rows] += values
        param -= lr * step
    else:
        param -= lr * velocity
    return param, velocity
