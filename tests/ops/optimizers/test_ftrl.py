"""ftrl (ops/optimizers/ftrl.py): dense and SelectedRows steps against numpy written from
FTRL's formula (Paddle's kernel: l1 and l2 each plus 1e-10)."""

import numpy as np
import pytest

from paddle_ir.core.selected_rows import SelectedRows

OUTS = {"SquaredAccumulator": "SquaredAccumOut", "LinearAccumulator": "LinearAccumOut"}


def _reference_step(p, n, z, g, lr, l1, l2, power):
    l1, l2, power = l1 + 1e-10, l2 + 1e-10, float(np.float32(power))
    n_new = n + g ** 2
    z = z + g - (n_new ** -power - n ** -power) / lr * p
    y = n_new ** -power / lr + 2 * l2
    p = np.where(np.abs(z) > l1, (l1 * np.sign(z) - z) / y, 0.0)
    return p, n_new, z


def _state(rng):
    return {"Param": rng.randn(5, 3), "SquaredAccumulator": rng.rand(5, 3),
            "LinearAccumulator": rng.randn(5, 3), "LearningRate": np.array([0.2])}


@pytest.mark.parametrize("attrs", [{}, {"l1": 0.5, "l2": 0.1}, {"l1": 0.1, "lr_power": -0.7}])
def test_dense_steps_match_the_formula(update_program, attrs):
    rng = np.random.RandomState(0)
    state = _state(rng)
    run = update_program("ftrl", state, attrs, state["Param"], out_slots=OUTS)
    p, n, z = (state[s].copy() for s in ("Param", "SquaredAccumulator", "LinearAccumulator"))
    l1, l2 = (float(np.float32(attrs.get(k, 0.0))) for k in ("l1", "l2"))
    for _ in range(3):
        g = rng.randn(5, 3)
        p, n, z = _reference_step(p, n, z, g, 0.2, l1, l2, attrs.get("lr_power", -0.5))
        got = run.step(g)
        np.testing.assert_allclose(got["squaredaccumulator"], n, rtol=1e-12)
        np.testing.assert_allclose(got["linearaccumulator"], z, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got["param"], p, rtol=1e-10, atol=1e-12)
    assert (p == 0).any() == (l1 > 0.3)  # the l1 threshold zeroes entries when it is large


def test_selected_rows_updates_only_its_rows_with_duplicates_added(update_program):
    rng = np.random.RandomState(1)
    state = _state(rng)
    run = update_program("ftrl", state, {"l1": 0.05}, state["Param"], sparse=True,
                         out_slots=OUTS)
    rows, values = np.array([3, 0, 3]), rng.randn(3, 3)
    got = run.step(SelectedRows(rows, values, 5))
    dense = np.zeros((5, 3))
    np.add.at(dense, rows, values)
    p, n, z = _reference_step(state["Param"], state["SquaredAccumulator"],
                              state["LinearAccumulator"], dense, 0.2,
                              float(np.float32(0.05)), 0.0, -0.5)
    touched = [0, 3]
    np.testing.assert_allclose(got["param"][touched], p[touched], rtol=1e-10)
    np.testing.assert_allclose(got["linearaccumulator"][touched], z[touched], rtol=1e-10)
    untouched = [1, 2, 4]
    for slot, name in (("Param", "param"), ("SquaredAccumulator", "squaredaccumulator"),
                       ("LinearAccumulator", "linearaccumulator")):
        np.testing.assert_array_equal(got[name][untouched], state[slot][untouched])


def test_an_output_naming_another_variable_is_refused(update_program):
    import paddle_ir as pir
    from paddle_ir.core.errors import PaddleIRError

    program = pir.Program()
    block = program.global_block()
    for name, shape in (("p", [2]), ("n", [2]), ("z", [2]), ("g", [2]), ("lr", [1]),
                        ("other", [2])):
        block.create_var(name=name, shape=shape, dtype="float32")
    with pytest.raises(PaddleIRError, match="SquaredAccumOut must be the SquaredAccumulator"):
        block.append_op("ftrl", inputs={"Param": "p", "SquaredAccumulator": "n",
                                        "LinearAccumulator": "z", "Grad": "g",
                                        "LearningRate": "lr"},
                        outputs={"ParamOut": "p", "SquaredAccumOut": "other",
                                 "LinearAccumOut": "z"})
