"""Regression: an op whose output is also its input (an in-place update) runs.

Var-type inference declares the output's type first; the op's InferShape then
reads the same variable as its input and must see the value's shape, not the
half-filled output record (it used to get shape None and crash).
"""

import numpy as np
import pytest

import paddle_ir as pir


@pytest.mark.parametrize("check", [True, False], ids=["check", "cached-plan"])
def test_in_place_update_of_a_persistable_runs_and_accumulates(check):
    main = pir.Program()
    block = main.global_block()
    steps = block.create_var(name="steps", shape=[2], dtype="float32", persistable=True)
    block.append_op("scale", inputs={"X": steps}, outputs={"Out": steps}, attrs={"bias": 1.0})
    scope = pir.Scope()
    scope.var("steps").value = pir.LoDTensor(np.zeros(2, np.float32))
    exe = pir.Executor(check=check)
    for _ in range(3):
        exe.run(main, scope=scope)
    np.testing.assert_array_equal(scope.find_var("steps").value.numpy(), [3.0, 3.0])
