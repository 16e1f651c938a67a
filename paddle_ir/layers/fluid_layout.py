"""Fluid 1.x's layout of `fluid.layers` into submodules, over paddle-ir's own.

Fluid programs import layers from their Fluid module (`from paddle.fluid.layers.
control_flow import StaticRNN`, `fluid.layers.nn.fc`, `from paddle.fluid.layers.
learning_rate_scheduler import _decay_step_counter`). paddle-ir groups its layers
differently, so each paddle_ir.layers submodule named like a Fluid one (nn,
control_flow, tensor, io, loss, rnn, metric_op, learning_rate_scheduler) answers a
name it does not define from the whole paddle_ir.layers namespace, and the Fluid
submodules paddle-ir has no file for (sequence_lod, ops, detection, distributions,
math_op_patch, utils) are paddle_ir.layers itself (fluid/modules.py).
"""

from __future__ import annotations

# Fluid 1.7's fluid.layers submodules that paddle-ir has no module of its own for.
WHOLE_NAMESPACE = ("sequence_lod", "ops", "detection", "distributions", "math_op_patch",
                   "utils", "layer_function_generator")


def attribute(module: str, name: str):
    """`name` for Fluid's `fluid.layers.<module>`: paddle_ir.layers' own, if it has it."""
    if name.startswith("__"):
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    import paddle_ir.layers as namespace

    try:
        return getattr(namespace, name)
    except AttributeError:
        from paddle_ir.compat.missing_names import missing_attribute

        raise missing_attribute(module, name, namespace.__all__) from None
