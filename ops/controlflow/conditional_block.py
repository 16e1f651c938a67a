"""conditional_block: run a sub-block when a condition holds.

    if Cond: run block `sub_block` in a fresh child scope

With is_scalar_condition (the default) Cond is a one-element bool tensor;
otherwise the block runs when every Cond input holds at least one element,
as Paddle's IfElse uses it. The sub-block reads and writes its ancestors'
variables by name (executor/control.py); `Input` and `Out` list them so that
the program's dataflow stays visible to pruning and backward.

When the `Scope` output is bound, a run of the block keeps its scope there
(ops/controlflow/control_common.py) for conditional_block_grad, which runs the block's
grad block in it when the block ran; when it did not, the gradient of an
`Input` that is also an `Out` passes through unchanged (the block left the
variable as it was) and the other inputs get none.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError, ProgramError
from paddle_ir.core.step_scopes import StepScopes
from paddle_ir.ops.context import STEP_SCOPES
from paddle_ir.ops.controlflow.control_common import (
    infer_grad_shapes_like,
    infer_grad_types_like,
    run_grad_block,
    run_kept,
)
from paddle_ir.ops.controlflow.tensor_array import zeros_like
from paddle_ir.ops.grad import GRAD_SUFFIX, grad_name
from paddle_ir.ops.registry import Attr, In, Out, register_op

conditional_block = register_op(
    "conditional_block",
    inputs=[In("Cond", "the condition (bool)", duplicable=True),
            In("Input", "variables the sub-block reads", duplicable=True, dispensable=True)],
    outputs=[Out("Out", "variables the sub-block writes", duplicable=True, dispensable=True),
             Out("Scope", "the block's scope when it ran, kept for the gradient",
                 dispensable=True)],
    attrs=[Attr("sub_block", "block", doc="the block to run"),
           Attr("is_scalar_condition", "bool", True,
                "Cond is one bool element (True) or a list of tensors that must be non-empty")],
    key_inputs=[],
    doc=__doc__,
    may_skip_outputs=["Out"],  # a block that does not run leaves Out as it was
)


@conditional_block.infer_var_type
def _(ctx):
    # Out keeps the types the sub-block's ops gave it (tensors, arrays).
    ctx.set_output_type("Scope", STEP_SCOPES)


# A control op has no element type: with no key inputs the executor asks for float32.
@conditional_block.kernel(storage=[], dtypes=[np.float32], control=True)
def conditional_block_kernel(ctx, attrs, conds, inputs):
    if attrs["is_scalar_condition"]:
        cond = np.asarray(conds[0])
        if cond.size != 1:
            raise KernelError(
                f"conditional_block needs a one-element condition, got shape {list(cond.shape)}",
                hint="reduce the condition to a scalar, or set is_scalar_condition=False")
        run = bool(cond.reshape(()))
    else:
        run = all(np.asarray(c).size > 0 for c in conds)
    kept = StepScopes()
    keep = bool(ctx.output_names("Scope"))
    if run and keep:
        kept.append(run_kept(ctx, attrs["sub_block"], ctx.input_names("Input"),
                             ctx.output_names("Out")))
    elif run:
        ctx.run_block(attrs["sub_block"], ctx.scope.new_scope())
    _bind_outputs(ctx)
    for name in ctx.output_names("Scope"):
        ctx.scope.var(name).value = kept


def _bind_outputs(ctx) -> None:
    """Each `Out` in this block's frame holds its value after the op, run or not.

    When this op is the first of its block to name a variable that lives in the run's
    scope (a persistable only written here, as a Switch case assigning a global), the
    frame's slot is still empty: the sub-block wrote the scope's variable, or did not run
    and left it as it was. Either way later ops of the block read the frame, so the
    scope's value goes there."""
    for name in ctx.output_names("Out"):
        holder = ctx.scope.find_var(name)
        value = None if holder is None else holder.value
        if value is not None:
            ctx.scope.var(name).value = value


# Paddle's inference form (written by its inference passes): the same run, no gradient.
conditional_block_infer = register_op(
    "conditional_block_infer",
    inputs=list(conditional_block.inputs), outputs=list(conditional_block.outputs),
    attrs=list(conditional_block.attrs), key_inputs=[],
    doc="conditional_block for inference programs: the same run, no gradient.",
)
conditional_block_infer.infer_var_type(lambda ctx: ctx.set_output_type("Scope", STEP_SCOPES))
conditional_block_infer.kernel(storage=[], dtypes=[np.float32], control=True)(
    conditional_block_kernel)
conditional_block_infer.grad_maker(lambda g: [])


@conditional_block.grad_maker
def _(g):
    if not g.output("Scope"):
        raise ProgramError("this conditional_block keeps no Scope, so no gradient can flow "
                           "through it", hint="build it with layers.cond or ConditionalBlock")
    grads = g.grad_sub_block("sub_block")
    produced = set(grads.input_grads)
    wanted = g.input_grad("Input") or [""] * len(g.input("Input"))
    in_grads = [grad_name(x) if x in produced and name else ""
                for x, name in zip(g.input("Input"), wanted, strict=True)]
    if not any(in_grads):
        return []
    out_grads = [grad_name(n) for n in g.output("Out") if g.has_output_grad(n)]
    return [g.grad_op(
        "conditional_block_grad",
        inputs={"Input": g.input("Input"), "Out@GRAD": out_grads, "Scope": g.output("Scope")},
        outputs={"Input@GRAD": in_grads},
        attrs={"sub_block": grads.block_idx, "output_grads": grads.output_grads,
               "input_grads": grads.input_grads})]


conditional_block_grad = register_op(
    "conditional_block_grad",
    inputs=[In("Input", "the forward op's Input", duplicable=True),
            In("Out@GRAD", "gradients of its outputs", duplicable=True, dispensable=True),
            In("Scope", "the kept scope (none if the block did not run)")],
    outputs=[Out("Input@GRAD", "gradients of Input (positions of Input)", duplicable=True)],
    attrs=[Attr("sub_block", "block", doc="the grad block of the sub-block"),
           Attr("output_grads", "strings", [], "variables w whose w@GRAD the grad block reads"),
           Attr("input_grads", "strings", [], "variables x whose x@GRAD the grad block writes")],
    key_inputs=[],
    doc=__doc__,
)


@conditional_block_grad.infer_var_type
def _(ctx):
    infer_grad_types_like(ctx, "Input", "Input@GRAD")


@conditional_block_grad.infer_shape
def _(ctx):
    infer_grad_shapes_like(ctx, "Input", "Input@GRAD")


@conditional_block_grad.kernel(storage=[], dtypes=[np.float32], control=True)
def conditional_block_grad_kernel(ctx, attrs, inputs, out_grads, kept):
    incoming = {n[: -len(GRAD_SUFFIX)]: ctx.value(n) for n in ctx.input_names("Out@GRAD")}
    if kept:
        grads = run_grad_block(ctx, attrs["sub_block"], kept[0], attrs["output_grads"],
                               attrs["input_grads"], incoming)
    else:  # the block did not run: what it would have rewritten passes through
        grads = {x: incoming.get(x) for x in attrs["input_grads"]}
    wanted = set(attrs["input_grads"])
    for x, name in zip(ctx.input_names("Input"), ctx.output_names("Input@GRAD"), strict=True):
        if name and x in wanted:
            value = grads.get(x)
            ctx.scope.var(name).value = zeros_like(ctx.value(x)) if value is None else value
