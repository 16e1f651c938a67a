"""select_input and select_output (ops/controlflow/select_io.py), and the Paddle model
that saves them: static.nn.cond returning values (tests/fixtures/paddle/cond_loop)."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError, MissingVariableError
from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import build_one_op, check_op
from tests.paddle_helpers import FIXTURES, run_model

A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = -np.arange(8, dtype=np.float32).reshape(4, 2)


@pytest.mark.parametrize("mask,want", [(0, A), (1, B)])
def test_select_input_returns_the_chosen_branchs_tensor(mask, want):
    check_op("select_input", {"X": [("a", A), ("b", B)], "Mask": np.array([mask], np.int32)},
             {}, {"Out": want})


def test_select_input_carries_the_chosen_lod():
    x = LoDTensor(np.arange(5, dtype=np.float32).reshape(5, 1), [[0, 2, 5]])
    check_op("select_input", {"X": [("a", A[:, :1]), ("b", x)],
                              "Mask": np.array([1], np.int32)}, {}, {"Out": x})


def _run(program, feed, fetch):
    return pir.Executor().run(program, feed=feed, fetch_list=fetch, scope=pir.Scope())


def test_select_input_reads_only_the_chosen_variable():
    """The branch that did not run wrote nothing: its X has no value, which is no error."""
    program, feed, out = build_one_op(
        "select_input", {"X": [("a", A), ("b", B)], "Mask": np.array([1], np.int32)})
    del feed["a"]
    (got,) = _run(program, feed, out["Out"])
    np.testing.assert_array_equal(np.asarray(got), B)


@pytest.mark.parametrize("mask", [2, -1])
def test_a_mask_naming_no_branch_is_an_error(mask):
    program, feed, out = build_one_op(
        "select_input", {"X": [("a", A), ("b", B)], "Mask": np.array([mask], np.int32)})
    with pytest.raises(KernelError, match=rf"select_input: Mask = {mask} picks no branch: X "
                                          rf"has 2 inputs"):
        _run(program, feed, out["Out"])


def test_a_mask_of_several_values_is_an_error():
    program, feed, out = build_one_op(
        "select_input", {"X": [("a", A), ("b", A)], "Mask": np.array([0, 1], np.int32)})
    with pytest.raises(KernelError, match="Mask must be one integer"):
        _run(program, feed, out["Out"])


@pytest.mark.parametrize("mask", [0, 1])
def test_select_output_writes_the_chosen_output_alone(mask):
    program, feed, out = build_one_op(
        "select_output", {"X": A, "Mask": np.array([mask], np.int32)}, outputs={"Out": 2})
    chosen, other = out["Out"][mask], out["Out"][1 - mask]
    exe = pir.Executor()
    for _ in range(2):  # the second run reuses the plan (the cached path)
        (got,) = exe.run(program, feed=feed, fetch_list=[chosen], scope=pir.Scope())
        np.testing.assert_array_equal(np.asarray(got), A)
    with pytest.raises(MissingVariableError, match=rf"cannot fetch '{other}'"):  # stays unset
        _run(program, feed, [other])


@pytest.mark.parametrize("feeds,outputs", [("feeds", "outputs"),
                                           ("feeds_false", "outputs_false")])
def test_paddles_cond_and_while_loop_model_takes_either_branch(feeds, outputs):
    """Paddle's own results for both branches (tools/make_paddle_fixtures.py cond_loop)."""
    with np.load(FIXTURES / "cond_loop" / f"{feeds}.npz") as data:
        feed = {"x": data["x"]}
    with np.load(FIXTURES / "cond_loop" / f"{outputs}.npz") as data:
        want = [data[f"out.{i}"] for i in range(len(data.files))]
    got = run_model(FIXTURES / "cond_loop" / "model.pdmodel", feed)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
