"""conditional_block: run a sub-block when a condition holds.

    if Cond: run block `sub_block` in a fresh child scope

With is_scalar_condition (the default) Cond is a one-element bool tensor;
otherwise the block runs when every Cond input holds at least one element,
as Paddle's IfElse uses it. The sub-block reads and writes its ancestors'
variables by name (executor/control.py); `Input` and `Out` list them so that
the program's dataflow stays visible to pruning and backward.
"""

from __future__ import annotations

import numpy as np

from ops.registry import Attr, In, Out, register_op
from paddle_ir.core.errors import KernelError

conditional_block = register_op(
    "conditional_block",
    inputs=[In("Cond", "the condition (bool)", duplicable=True),
            In("Input", "variables the sub-block reads", duplicable=True, dispensable=True)],
    outputs=[Out("Out", "variables the sub-block writes", duplicable=True, dispensable=True),
             Out("Scope", "unused; kept for Paddle's slot list", dispensable=True)],
    attrs=[Attr("sub_block", "block", doc="the block to run"),
           Attr("is_scalar_condition", "bool", True,
                "Cond is one bool element (True) or a list of tensors that must be non-empty")],
    key_inputs=[],
    doc=__doc__,
)


@conditional_block.infer_var_type
def _(ctx):
    pass  # Out keeps the types the sub-block's ops gave it (tensors, arrays)


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
    if run:
        ctx.run_block(attrs["sub_block"], ctx.scope.new_scope())
