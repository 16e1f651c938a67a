"""The optimizer-op tests' runner: one update op over persistables, run step by step."""

from __future__ import annotations

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.lod_tensor import LoDTensor


class UpdateProgram:
    """A one-op program whose state lives in a scope; `step(grad)` runs it (the cached plan
    from the second step on) and returns every state variable's value.

    `state` maps input slots to initial values; each is updated into `out_slots[slot]`
    (default `{slot}Out`), which names the same variable, as optimizers do.
    """

    def __init__(self, op_type, state: dict, attrs: dict, grad_like: np.ndarray,
                 sparse: bool = False, out_slots: dict | None = None):
        out_slots = out_slots or {}
        self.program, self.scope, self.exe = pir.Program(), pir.Scope(), pir.Executor()
        block = self.program.global_block()
        inputs, outputs = {"Grad": ["grad"]}, {}
        for slot, value in state.items():
            name = slot.lower()
            block.create_var(name=name, shape=value.shape, dtype=value.dtype, persistable=True)
            self.scope.var(name).set(LoDTensor(np.array(value, copy=True)))
            inputs[slot] = [name]
            if slot != "LearningRate" and out_slots.get(slot, "") is not None:
                outputs[out_slots.get(slot, slot + "Out")] = [name]
        block.create_var(name="grad", shape=grad_like.shape, dtype=grad_like.dtype,
                         type=pir.VarType.SELECTED_ROWS if sparse else pir.VarType.LOD_TENSOR)
        block.append_op(op_type, inputs=inputs, outputs=outputs, attrs=attrs)
        self.names = [s.lower() for s in state]

    def step(self, grad) -> dict:
        self.exe.run(self.program, feed={"grad": grad}, scope=self.scope)
        return {n: self.scope.find_var(n).value.numpy().copy() for n in self.names}


@pytest.fixture
def update_program():
    return UpdateProgram
