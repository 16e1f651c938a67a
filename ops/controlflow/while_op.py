"""while / while_grad: run a sub-block as long as a condition holds, and its gradient.

    while Condition: run block `sub_block` in a new step scope

The body reads and writes the enclosing blocks' variables by name
(executor/control.py): `X` lists the ones it reads before writing them, `Out`
the ones it writes (the loop-carried values, the condition among them), so
the dataflow stays visible to pruning and backward. Condition must be
rewritten by the body, or the loop never ends.

Unless `is_test`, every step's scope is kept in `StepScopes` for while_grad:
the body's own variables, and for each variable of `Out` its value at the
start of the step when the body reads it (a carried value) or at the end of
the step otherwise. Those are the values a gradient op of the body reads back.

while_grad runs the grad block (`sub_block`, built by append_backward from
the body's grad makers, docs/architecture.md) once per step, last step first,
each time in a child of that step's scope:

- before a step, each variable w of `output_grads` gets its gradient w@GRAD:
  for the last step the one from outside the loop (Out@GRAD, zeros if none);
  for earlier steps the gradient the later step computed for w's value at
  its start, when w is carried (in X), else zeros (the later step overwrote w);
- after a step, each variable x of `input_grads` has x@GRAD: carried to the
  earlier step when x is carried, else added up over the steps;
- the end result goes to X@GRAD: for a carried x the gradient of its value
  before the loop, for the others the sum over the steps.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core import limits
from paddle_ir.core.errors import ProgramError, ResourceLimitError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.core.step_scopes import StepScopes
from paddle_ir.ops.context import STEP_SCOPES
from paddle_ir.ops.controlflow.control_common import (
    holds,
    infer_grad_shapes_like,
    infer_grad_types_like,
    run_grad_block,
    run_kept,
)
from paddle_ir.ops.controlflow.tensor_array import accumulate, zeros_like
from paddle_ir.ops.grad import GRAD_SUFFIX, grad_name
from paddle_ir.ops.registry import Attr, In, Out, register_op

_CONTROL_DTYPES = [np.float32]  # no key inputs: the executor asks for float32

while_op = register_op(
    "while",
    inputs=[In("X", "variables of enclosing blocks the body reads before writing them",
               duplicable=True, dispensable=True),
            In("Condition", "one-element bool: run another step while it holds")],
    outputs=[Out("Out", "variables of enclosing blocks the body writes", duplicable=True,
                 dispensable=True),
             Out("StepScopes", "the steps' scopes, kept for while_grad", dispensable=True)],
    attrs=[Attr("sub_block", "block", doc="the loop body"),
           Attr("is_test", "bool", False, "do not keep the step scopes (inference)")],
    key_inputs=[],
    doc=__doc__,
)


@while_op.infer_var_type
def _(ctx):
    ctx.set_output_type("StepScopes", STEP_SCOPES)  # Out keeps the types its writers set


@while_op.infer_shape
def _(ctx):
    shape = ctx.input_shape("Condition")
    ctx.enforce(ctx.input_dtype("Condition") == np.bool_,
                lambda: f"Condition must be bool, got {ctx.input_dtype('Condition')}",
                hint="build it with less_than or another comparison")
    ctx.enforce(any(d < 0 for d in shape) or int(np.prod(shape)) == 1,
                lambda: f"Condition must hold one element, got shape {list(shape)}")


def scope_bytes(scope) -> int:
    """The bytes of the arrays a step scope holds itself."""
    total = 0
    for name in scope.local_var_names():
        value = scope.find_local_var(name).value
        if isinstance(value, LoDTensor):
            value = value.numpy()
        elif isinstance(value, SelectedRows):
            total += value.rows.nbytes
            value = value.value
        if isinstance(value, np.ndarray):
            total += value.nbytes
    return total


@while_op.kernel(storage=[], dtypes=_CONTROL_DTYPES, control=True)
def while_kernel(ctx, attrs, xs, cond):
    cond_name = ctx.input_names("Condition")[0]
    reads, outs = ctx.input_names("X"), ctx.output_names("Out")
    scopes = StepScopes()
    cap, steps, kept = ctx.max_while_iterations, 0, 0
    while holds(ctx.value(cond_name), "while"):
        steps += 1
        total = ctx.count_loop_step()
        if cap is not None and (steps > cap or total > cap):
            said = (f"ran {cap} steps and its condition still holds" if steps > cap else
                    f"would take step {total} of this run's loops (nested loops multiply)")
            raise ResourceLimitError(
                f"while (Condition={cond_name}) {said}; the Executor's max_while_iterations "
                f"is {cap}",
                hint="check that the loop body updates its condition, or raise the cap "
                     "(paddle-ir run --max-loop-iterations N; 0 lifts it)")
        if attrs["is_test"]:
            ctx.run_block(attrs["sub_block"], ctx.new_scope())
            continue
        scopes.append(run_kept(ctx, attrs["sub_block"], reads, outs))
        # Training keeps every step's scope for the backward pass: they count together
        # against the memory budget, or an endless loop grows until the OOM killer.
        kept += scope_bytes(scopes[-1])
        if kept > limits.memory_budget():
            raise ResourceLimitError(
                f"while (Condition={cond_name}) keeps each step's scope for the backward "
                f"pass: {steps} steps hold {limits.format_bytes(kept)}, more than the memory "
                f"budget of {limits.format_bytes(limits.memory_budget())}",
                hint="check that the loop ends; build it with is_test=True when no gradient "
                     "flows through it, or raise the budget (--memory-budget)")
    for name in ctx.output_names("StepScopes"):
        ctx.scope.var(name).value = scopes


@while_op.grad_maker
def _(g):
    if g.attr("is_test"):
        raise ProgramError("a While loop built with is_test=True keeps no step scopes, so "
                           "no gradient can flow through it",
                           hint="build the loop with layers.While(cond, is_test=False)")
    grads = g.grad_sub_block("sub_block")
    produced = set(grads.input_grads)
    x_grads = [grad_name(x) if x in produced and name else ""
               for x, name in zip(g.input("X"), g.input_grad("X") or [""] * len(g.input("X")),
                                  strict=True)]
    if not any(x_grads):
        return []
    out_grads = [grad_name(n) for n in g.output("Out") if g.has_output_grad(n)]
    return [g.grad_op(
        "while_grad",
        inputs={"X": g.input("X"), "Out@GRAD": out_grads, "StepScopes": g.output("StepScopes")},
        outputs={"X@GRAD": x_grads},
        attrs={"sub_block": grads.block_idx, "output_grads": grads.output_grads,
               "input_grads": grads.input_grads})]


while_grad = register_op(
    "while_grad",
    inputs=[In("X", "the forward loop's X", duplicable=True),
            In("Out@GRAD", "gradients of the loop's outputs from after the loop",
               duplicable=True, dispensable=True),
            In("StepScopes", "the forward loop's step scopes")],
    outputs=[Out("X@GRAD", "gradients of X (positions of X)", duplicable=True)],
    attrs=[Attr("sub_block", "block", doc="the grad block of the loop body"),
           Attr("output_grads", "strings", [], "variables w whose w@GRAD the grad block reads"),
           Attr("input_grads", "strings", [], "variables x whose x@GRAD the grad block writes")],
    key_inputs=[],
    doc=__doc__,
)


@while_grad.infer_var_type
def _(ctx):
    infer_grad_types_like(ctx, "X", "X@GRAD")


@while_grad.infer_shape
def _(ctx):
    infer_grad_shapes_like(ctx, "X", "X@GRAD")


@while_grad.kernel(storage=[], dtypes=_CONTROL_DTYPES, control=True)
def while_grad_kernel(ctx, attrs, xs, out_grads, step_scopes):
    x_names = ctx.input_names("X")
    carried = set(x_names) & set(attrs["output_grads"])  # read, then rewritten, by a step
    carry = {n[: -len(GRAD_SUFFIX)]: ctx.value(n) for n in ctx.input_names("Out@GRAD")}
    summed: dict = {}
    for step in reversed(step_scopes):
        grads = run_grad_block(ctx, attrs["sub_block"], step, attrs["output_grads"],
                               attrs["input_grads"], carry)
        carry = {x: value for x, value in grads.items() if x in carried}
        for x, value in grads.items():
            if x not in carried:
                summed[x] = accumulate(summed.get(x), value)
    wanted = set(attrs["input_grads"])
    for x, name in zip(x_names, ctx.output_names("X@GRAD"), strict=True):
        if not name or x not in wanted:
            continue
        value = carry.get(x) if x in carried else summed.get(x)
        ctx.scope.var(name).value = zeros_like(ctx.value(x)) if value is None else value
