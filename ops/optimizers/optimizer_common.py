"""What the optimizer ops (sgd, momentum, adagrad, adam) share.

Every optimizer op updates its state in place: `ParamOut` is the `Param`
variable, `VelocityOut` the `Velocity` variable, and so on, and the kernels
write into those arrays (the one exception to "kernels never mutate their
inputs", docs/architecture.md). Inference enforces the aliasing, so a kernel
can never overwrite a variable the program still reads under another name.

Each op has a dense kernel and a SelectedRows kernel, selected by the
storage of `Grad` (key_inputs=["Grad"]). A SelectedRows gradient is merged
first (sorted unique rows, duplicates added), so a row listed twice gets the
sum of its values, exactly as in the densified gradient.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.segments import merge_rows
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.context import dims_match, shape_str
from paddle_ir.ops.registry import Attr

LAZY_MODE = Attr(
    "lazy_mode", "bool", False,
    "with a SelectedRows Grad: True updates only the rows it lists (params and state, as "
    "MXNet's lazy_update); False gives exactly the dense update")


def infer_optimizer(ctx, state: tuple[str, ...] = (), scalars: tuple[str, ...] = (),
                    out_slots: dict[str, str] | None = None,
                    optional: tuple[str, ...] = ()) -> None:
    """Check Param/Grad/LearningRate and the state slots; outputs alias their inputs.

    `state` slots have Param's shape; `scalars` hold one element. Each slot S
    is updated into `SOut` (or `out_slots[S]`, for ops such as ftrl whose output
    slots Paddle names otherwise), which must name the same variable; a slot in
    `optional` may have no output (Paddle's dispensable ones: the program then
    updates that state by other ops).
    """
    out_slots = out_slots or {}
    param, grad = ctx.input_shape("Param"), ctx.input_shape("Grad")
    dtype = ctx.input_dtype("Param")
    ctx.enforce(len(param) == len(grad) and all(map(dims_match, param, grad)),
                lambda: f"Grad must have Param's shape, got Param {shape_str(param)} and Grad "
                f"{shape_str(grad)}")
    ctx.enforce(ctx.input_dtype("Grad") == dtype,
                lambda: f"Grad must have Param's dtype {dtype}, got {ctx.input_dtype('Grad')}")
    if ctx.has_input("LearningRate"):  # adadelta's is dispensable (Fluid's op has none)
        _enforce_one_element(ctx, "LearningRate")
    for slot in state:
        shape = ctx.input_shape(slot)
        ctx.enforce(len(shape) == len(param) and all(map(dims_match, param, shape)), lambda:
                    f"{slot} must have Param's shape {shape_str(param)}, got {shape_str(shape)}")
        ctx.enforce(ctx.input_dtype(slot) == dtype,
                    lambda: f"{slot} must have Param's dtype {dtype}, got {ctx.input_dtype(slot)}")
    for slot in scalars:
        _enforce_one_element(ctx, slot)
    for slot in ("Param",) + tuple(state) + tuple(scalars):
        out = out_slots.get(slot, slot + "Out")
        ins, outs = ctx.input_names(slot), ctx.output_names(out)
        if not outs and slot in optional:
            continue
        ctx.enforce(ins == outs,
                    lambda: f"{out} must be the {slot} variable (optimizer ops update in place), "
                    f"got {out}={outs} and {slot}={ins}")
        ctx.set_output(out, ctx.input_shape(slot), ctx.input_dtype(slot))


def _enforce_one_element(ctx, slot: str) -> None:
    shape = ctx.input_shape(slot)
    ctx.enforce(all(d in (1, -1) for d in shape),
                lambda: f"{slot} must hold one element, got shape {shape_str(shape)}")


def scalar(value: np.ndarray, dtype: np.dtype):
    """The one element of a [1] (or 0-D) tensor, as a numpy scalar of `dtype`."""
    return dtype.type(value.reshape(-1)[0])


def merged(grad: SelectedRows) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique rows and their summed values: the rows an update touches.

    Both are new arrays, never views of the gradient: kernels may overwrite them.
    """
    return merge_rows(grad.rows, grad.value)
