"""delete_var: drop the values of variables (Paddle's delete_var_op.cc).

    delete_var(X...)            no outputs

Paddle's memory-release transpiler inserts it after a variable's last use; the op
erases the variables from the scope the block runs in (Scope::EraseVars). That
scope is the run's local one (or a loop step's), so a persistable, or a variable of
an enclosing block, lives on in its own scope and is untouched; a local variable is
gone, and a later op reading it finds nothing. Here the same: the value of each X
held by the running block's frame and by no scope above it is cleared, so a later
read is a missing-variable error instead of the old value. paddle-ir frees values
after their last read by itself (executor/steps.py), so the op adds no saving.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.registry import In, register_op

delete_var = register_op(
    "delete_var",
    inputs=[In("X", "the variables to drop", duplicable=True)],
    key_inputs=[],
    doc=__doc__,
)

delete_var.infer_shape(lambda ctx: None)  # no outputs, nothing to declare
delete_var.grad_maker(lambda g: [])


# A control kernel (it reaches the frame as a scope); no element type, so float32's key.
@delete_var.kernel(storage=[], dtypes=[np.float32], control=True)
def delete_var_kernel(ctx, attrs, xs):
    for name in ctx.input_names("X"):
        if ctx.scope.parent is not None and ctx.scope.parent.find_var(name) is not None:
            continue  # it lives in an enclosing scope, which Paddle's EraseVars leaves alone
        ctx.scope.var(name).value = None
