"""What the control-flow kernels share: conditions, kept step scopes, running grad blocks.

A loop step or a taken branch that a gradient will need runs in a scope that
is kept (`keep_locals`): it holds the body's own variables and, for every
enclosing variable the body writes, one value: the one it had before the
body ran if the body reads it first (a carried value), else the one it had
after. A grad block then runs in a child of that scope, so its ops read
those values by name (docs/architecture.md, "Backward through sub-blocks").
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.controlflow.tensor_array import zeros_like
from paddle_ir.ops.grad import grad_name


def infer_grad_types_like(ctx, in_slot: str, grad_slot: str) -> None:
    """A control grad op's input gradients have their inputs' variable types."""
    for i, name in enumerate(ctx.input_names(in_slot)):
        if i < len(ctx.output_names(grad_slot)):
            ctx.set_output_type(grad_slot, ctx.var_info(name).var_type, i)


def infer_grad_shapes_like(ctx, in_slot: str, grad_slot: str) -> None:
    """... and their inputs' shapes, dtypes and LoD levels."""
    for i, name in enumerate(ctx.input_names(in_slot)):
        info = ctx.var_info(name)
        if i < len(ctx.output_names(grad_slot)) and info.shape is not None:
            ctx.set_output(grad_slot, info.shape, info.dtype, i)
            ctx.set_output_lod_level(grad_slot, info.lod_level, i)


def holds(value, op_type: str) -> bool:
    """The truth of a one-element condition."""
    cond = np.asarray(value.numpy() if isinstance(value, LoDTensor) else value)
    if cond.size != 1:
        raise KernelError(f"{op_type} needs a one-element condition, got shape "
                          f"{list(cond.shape)}",
                          hint="reduce the condition to a scalar")
    return bool(cond.reshape(()))


def run_kept(ctx, block_idx: int, reads: list[str], writes: list[str]):
    """Run a body in a new scope kept for its gradient; return the scope."""
    read = set(reads)
    scope = ctx.scope.new_scope()
    at_start = [(n, ctx.value(n)) for n in writes if n in read]
    ctx.run_block(block_idx, scope, keep_locals=True)
    for n, value in at_start:
        scope.var(n).value = value
    for n in writes:
        if n not in read:
            scope.var(n).value = ctx.value(n)
    return scope


def run_grad_block(ctx, block_idx: int, kept, output_grads: list[str],
                   input_grads: list[str], seeds: dict) -> dict:
    """Run a grad block once next to the kept scope of a body run.

    `seeds` maps variables w of `output_grads` to the gradient of their value
    after the run (missing: zeros). Returns {x: gradient of x's value before
    the run (None if the block computed none)} for the variables of
    `input_grads`.
    """
    scope = ctx.new_scope(kept)
    for w in output_grads:
        value = seeds.get(w)
        scope.var(grad_name(w)).value = (zeros_like(kept.find_var(w).value)
                                        if value is None else value)
    ctx.run_block(block_idx, scope, keep_locals=True)
    found = {}
    for x in input_grads:
        holder = scope.find_local_var(grad_name(x))
        found[x] = None if holder is None else holder.value
    return found
