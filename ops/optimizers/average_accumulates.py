"""average_accumulates: the running sums ModelAverage keeps of a parameter (in place:
each out_X is the in_X variable). With p the parameter after this step's update,
n_u the update count and n_a the count in the current window:

    n_u += 1; n_a += 1; sum_1 += p
    if n_u % 16384 == 0:            sum_2 += sum_1; sum_1 = 0   (bounds rounding error)
    if n_a >= min_average_window and n_a >= min(max_average_window, n_u * average_window):
        sum_3 = sum_1 + sum_2; sum_1 = sum_2 = 0; old_n_a = n_a; n_a = 0

so the average over the last window and the current one is
(sum_1 + sum_2 + sum_3) / (n_a + old_n_a), which ModelAverage.apply computes.
"""

from __future__ import annotations

from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

MAX_NUM_ACCUMULATES = 16384  # Paddle's kMaxNumAccumulates
_SUMS = ("sum_1", "sum_2", "sum_3")
_COUNTS = ("num_accumulates", "old_num_accumulates", "num_updates")

average_accumulates = register_op(
    "average_accumulates",
    inputs=[In("param", "the parameter, after this step's update")]
    + [In(f"in_{s}", "a running sum, the parameter's shape") for s in _SUMS]
    + [In(f"in_{c}", "int64 [1]") for c in _COUNTS],
    outputs=[Out(f"out_{s}", f"the in_{s} variable, updated in place") for s in _SUMS]
    + [Out(f"out_{c}", f"the in_{c} variable, updated in place") for c in _COUNTS],
    attrs=[
        Attr("average_window", "float", 0.0, "the window as a fraction of the update count"),
        Attr("max_average_window", "long", 10000, "the longest window, in updates"),
        Attr("min_average_window", "long", 10000, "the shortest window, in updates"),
    ],
    dtype_from="param",
    doc=__doc__,
)


@average_accumulates.infer_shape
def _(ctx):
    param = tuple(ctx.input_shape("param"))
    dtype = ctx.input_dtype("param")
    for s in _SUMS:
        ctx.enforce(tuple(ctx.input_shape(f"in_{s}")) == param,
                    lambda: f"in_{s} must have param's shape {list(param)}, got "
                    f"{list(ctx.input_shape(f'in_{s}'))}")
        ctx.enforce(ctx.input_names(f"in_{s}") == ctx.output_names(f"out_{s}"),
                    lambda: f"out_{s} must be the in_{s} variable (the sums are updated in place)")
        ctx.set_output(f"out_{s}", param, dtype)
    for c in _COUNTS:
        ctx.enforce(ctx.input_names(f"in_{c}") == ctx.output_names(f"out_{c}"), lambda:
                    f"out_{c} must be the in_{c} variable (the counts are updated in place)")
        ctx.set_output(f"out_{c}", (1,), ctx.input_dtype(f"in_{c}"))


@average_accumulates.kernel(dtypes=FLOATS)
def average_accumulates_kernel(attrs, param, sum_1, sum_2, sum_3, num_acc, old_num_acc,
                               num_updates):
    num_updates += 1
    num_acc += 1
    sum_1 += param
    n_u, n_a = int(num_updates.reshape(-1)[0]), int(num_acc.reshape(-1)[0])
    if n_u % MAX_NUM_ACCUMULATES == 0:
        sum_2 += sum_1
        sum_1[...] = 0
    if n_a >= attrs["min_average_window"] and n_a >= min(attrs["max_average_window"],
                                                         n_u * attrs["average_window"]):
        sum_3[...] = sum_1 + sum_2
        sum_1[...] = 0
        sum_2[...] = 0
        old_num_acc[...] = n_a
        num_acc[...] = 0
    return sum_1, sum_2, sum_3, num_acc, old_num_acc, num_updates
