"""moving_average_abs_max_scale: records a moving average of an activation's abs-max
(PaddleSlim's output-scale observer) and passes the activation through.

    Out = X
    training: OutState = r InState + 1;  OutAccum = r InAccum + max |X|;
              OutScale = OutAccum / OutState
    is_test:  the statistics are not updated: OutScale, OutState and OutAccum keep the
              values their variables hold (a saved model's persistable scale)

X's gradient is dOut (Paddle's straight_through_estimator_grad). The kernel reads and writes
the statistics through the scope, as Paddle's does, so it is a control kernel.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.quantize.fake_quantize_moving_average_abs_max import check_statistics
from paddle_ir.ops.quantize.quant_common import moving_average
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

moving_average_abs_max_scale = register_op(
    "moving_average_abs_max_scale",
    inputs=[In("X", "the activation observed"),
            In("InAccum", "[1]: the running sum (training)", dispensable=True),
            In("InState", "[1]: the running count (training)", dispensable=True)],
    outputs=[Out("Out", "X passed through", dispensable=True),
             Out("OutScale", "[1]: the moving-average scale"),
             Out("OutState", "[1]", dispensable=True), Out("OutAccum", "[1]", dispensable=True)],
    attrs=[Attr("moving_rate", "float", 0.9, "the average's decay r"),
           Attr("is_test", "bool", False, "update nothing")],
    doc=__doc__,
)


@moving_average_abs_max_scale.infer_shape
def _(ctx):
    check_statistics(ctx)
    dtype = ctx.input_dtype("X")
    ctx.set_output("Out", ctx.input_shape("X"), dtype)
    ctx.share_lod("X", "Out")
    for slot in ("OutScale", "OutState", "OutAccum"):
        ctx.set_output(slot, [1], dtype)


@moving_average_abs_max_scale.kernel(dtypes=FLOATS, control=True)
def moving_average_abs_max_scale_kernel(ctx, attrs, x, in_accum, in_state):
    x = ctx.value(ctx.input_names("X")[0])  # with its LoD, which Out shares
    for name in ctx.output_names("Out"):
        ctx.scope.var(name).value = x
    data = x.numpy()
    if attrs["is_test"]:
        for slot in ("OutScale", "OutState", "OutAccum"):
            for name in ctx.output_names(slot):
                kept = ctx.value(name)  # the frame's slot, else the run's scope
                if kept is None:
                    raise KernelError(
                        f"moving_average_abs_max_scale: {slot} ({name}) has no value to keep "
                        f"in is_test mode", hint="load the model's persistables (its scales) "
                        "before running it")
                ctx.scope.var(name).value = kept
        return
    scale, state, accum = moving_average(data, np.asarray(in_accum), np.asarray(in_state),
                                         attrs["moving_rate"])
    for slot, value in (("OutScale", scale), ("OutState", state), ("OutAccum", accum)):
        for name in ctx.output_names(slot):
            ctx.scope.var(name).value = value


@moving_average_abs_max_scale.grad_maker
def _(g):
    return [g.grad_op("straight_through_estimator_grad",
                      inputs={"Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


straight_through_estimator_grad = register_op(
    "straight_through_estimator_grad",
    inputs=[In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    doc="dX = dOut: the observer passes gradients straight through.",
)


@straight_through_estimator_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("Out@GRAD"), ctx.input_dtype("Out@GRAD"))


@straight_through_estimator_grad.kernel(dtypes=FLOATS)
def straight_through_estimator_grad_kernel(attrs, dout):
    return dout.copy()
