"""adam (ops/optimizers/adam.py): lazy mode, Paddle's defaults, decays below one half."""

import math

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import get_op_def

SR = pir.VarType.SELECTED_ROWS


# --- adam: lazy mode at a large epsilon, and the default attributes ----------------------------

def _adam_program(grad_sparse: bool, attrs: dict) -> pir.Program:
    program = pir.Program()
    block = program.global_block()
    slots = {"Param": "param", "LearningRate": "lr", "Moment1": "m1", "Moment2": "m2",
             "Beta1Pow": "b1p", "Beta2Pow": "b2p"}
    shapes = {"lr": [1], "b1p": [1], "b2p": [1]}
    for name in slots.values():
        block.create_var(name=name, shape=shapes.get(name, [6, 3]), dtype="float64",
                         persistable=True)
    block.create_var(name="grad", shape=[6, 3], dtype="float64",
                     type=SR if grad_sparse else pir.VarType.LOD_TENSOR)
    block.append_op("adam", inputs={**{s: [n] for s, n in slots.items()}, "Grad": ["grad"]},
                    outputs={f"{s}Out": [n] for s, n in slots.items() if s != "LearningRate"},
                    attrs=attrs)
    return program


def _adam_state(seed=1):
    rng = np.random.RandomState(seed)
    return {"param": rng.randn(6, 3), "lr": np.array([0.1]), "m1": rng.rand(6, 3),
            "m2": rng.rand(6, 3), "b1p": np.array([0.9 ** 2]), "b2p": np.array([0.999 ** 2])}


def _run_adam(grad, attrs, state, steps=2):
    scope = pir.Scope()
    for name, value in state.items():
        scope.var(name).set(LoDTensor(value.copy()))
    program = _adam_program(isinstance(grad, pir.SelectedRows), attrs)
    exe = pir.Executor()  # the cached path: the second step reuses the first step's plan
    for _ in range(steps):
        exe.run(program, feed={"grad": grad}, scope=scope)
    return {n: scope.find_var(n).value.numpy() for n in state if n != "lr"}


def _adam_reference(state, grad, beta1, beta2, eps, steps=2):
    """Paddle's adam, written from its formula, on dense values.

    The attributes are FLOAT attributes (float32 on the wire), so they are rounded so."""
    beta1, beta2, eps = (float(np.float32(a)) for a in (beta1, beta2, eps))
    p, m1, m2 = state["param"].copy(), state["m1"].copy(), state["m2"].copy()
    b1p, b2p, lr = state["b1p"][0], state["b2p"][0], state["lr"][0]
    for _ in range(steps):
        m1 = beta1 * m1 + (1 - beta1) * grad
        m2 = beta2 * m2 + (1 - beta2) * grad * grad
        lr_t = lr * math.sqrt(1 - b2p) / (1 - b1p)
        p = p - lr_t * m1 / (np.sqrt(m2) + eps * math.sqrt(1 - b2p))
        b1p, b2p = b1p * beta1, b2p * beta2
    return {"param": p, "m1": m1, "m2": m2, "b1p": [b1p], "b2p": [b2p]}


def test_lazy_adam_with_a_large_epsilon_equals_dense_adam_on_the_present_rows():
    """At epsilon 1e-8 adding or subtracting it is invisible; at 0.5 it is not."""
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 0.5}
    state = _adam_state()
    rows = np.array([4, 1, 4], np.int64)  # a repeated row: its values add up
    grad = pir.SelectedRows(rows, np.random.RandomState(2).randn(3, 3), 6)
    lazy = _run_adam(grad, {**attrs, "lazy_mode": True}, state)
    dense = _run_adam(grad.to_dense(), attrs, state)
    present, absent = [1, 4], [0, 2, 3, 5]
    for name in ("param", "m1", "m2"):
        np.testing.assert_allclose(lazy[name][present], dense[name][present], rtol=1e-12,
                                   err_msg=name)
        np.testing.assert_array_equal(lazy[name][absent], state[name][absent], err_msg=name)
    want = _adam_reference(state, grad.to_dense(), 0.9, 0.999, 0.5)
    for name in ("param", "m1", "m2"):
        np.testing.assert_allclose(dense[name], want[name], rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("grad_sparse", [False, True])
def test_adam_without_attributes_uses_paddles_defaults(grad_sparse):
    spec = get_op_def("adam")
    assert [spec.attr_spec(n).default for n in ("beta1", "beta2", "epsilon")] == [
        0.9, 0.999, 1e-8]
    state = _adam_state(5)
    grad = np.random.RandomState(6).randn(6, 3)
    # a gradient present on every row, so the lazy default (False) and dense agree
    given = pir.SelectedRows(np.arange(6), grad, 6) if grad_sparse else grad
    got = _run_adam(given, {}, state)
    want = _adam_reference(state, grad, 0.9, 0.999, 1e-8)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-10, err_msg=name)


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("grad_sparse", [False, True])
def test_adam_with_decays_below_one_half(grad_sparse, lazy):
    """1 % beta equals 1 - beta for beta in (0.5, 1): only smaller decays tell them apart."""
    attrs = {"beta1": 0.3, "beta2": 0.4, "epsilon": 1e-3, "lazy_mode": lazy}
    state = _adam_state(7)
    grad = np.random.RandomState(8).randn(6, 3)
    given = pir.SelectedRows(np.arange(6), grad, 6) if grad_sparse else grad
    got = _run_adam(given, attrs, state)
    want = _adam_reference(state, grad, 0.3, 0.4, 1e-3)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-10, err_msg=name)


# --- beta1, beta2 and epsilon given as tensors (ops/tensor_attrs.py) ---------------------------

def test_beta_tensors_override_the_attributes(update_program):
    state = _adam_state(seed=3)
    slots = {"Param": "param", "LearningRate": "lr", "Moment1": "m1", "Moment2": "m2",
             "Beta1Pow": "b1p", "Beta2Pow": "b2p"}
    values = {slot: state[name] for slot, name in slots.items()}
    grad = np.random.RandomState(4).randn(6, 3)
    tensors = {"Beta1Tensor": np.array([0.5]), "Beta2Tensor": np.array([0.75]),
               "EpsilonTensor": np.array([2.0 ** -10])}  # exact in float32 too
    run = update_program("adam", {**values, **tensors}, {"beta1": 0.9, "beta2": 0.999},
                         values["Param"], out_slots={k: None for k in tensors})
    got = run.step(grad)
    want = _adam_reference(state, grad, 0.5, 0.75, 2.0 ** -10, steps=1)
    np.testing.assert_allclose(got["param"], want["param"], rtol=1e-12)
    np.testing.assert_allclose(got["moment1"], want["m1"], rtol=1e-12)


@pytest.mark.parametrize("lazy", [False, True])
def test_beta_tensors_override_the_attributes_for_a_sparse_gradient_too(update_program, lazy):
    """The SelectedRows kernel reads the same tensors: rows 0, 2, 5 of 6 get a gradient
    (row 2 twice, which adds up); lazily only those rows move, otherwise all do."""
    state = _adam_state(seed=9)
    slots = {"Param": "param", "LearningRate": "lr", "Moment1": "m1", "Moment2": "m2",
             "Beta1Pow": "b1p", "Beta2Pow": "b2p"}
    values = {slot: state[name] for slot, name in slots.items()}
    rows = np.array([2, 0, 5, 2], np.int64)
    grad = pir.SelectedRows(rows, np.random.RandomState(10).randn(4, 3), 6)
    tensors = {"Beta1Tensor": np.array([0.5]), "Beta2Tensor": np.array([0.75]),
               "EpsilonTensor": np.array([2.0 ** -4])}
    run = update_program("adam", {**values, **tensors},
                         {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "lazy_mode": lazy},
                         values["Param"], sparse=True, out_slots={k: None for k in tensors})
    got = run.step(grad)
    want = _adam_reference(state, grad.to_dense(), 0.5, 0.75, 2.0 ** -4, steps=1)
    moved = [0, 2, 5] if lazy else list(range(6))
    kept = [r for r in range(6) if r not in moved]
    for name, ref in (("param", "param"), ("moment1", "m1"), ("moment2", "m2")):
        np.testing.assert_allclose(got[name][moved], want[ref][moved], rtol=1e-12,
                                   err_msg=name)
        np.testing.assert_array_equal(got[name][kept], state[ref][kept], err_msg=name)
    np.testing.assert_allclose(got["beta1pow"], want["b1p"], rtol=1e-15)
    np.testing.assert_allclose(got["beta2pow"], want["b2p"], rtol=1e-15)


@pytest.mark.parametrize("var, shape, words", [
    ("m1", [3, 6], r"Moment1 must have Param's shape \[6, 3\], got \[3, 6\]"),
    ("b2p", [2], r"Beta2Pow must hold one element, got shape \[2\]"),
])
def test_adam_refuses_state_of_the_wrong_shape_when_built(var, shape, words):
    """adam's inference checks its state against Param (moments) and one element (the beta
    powers, which the kernel reads as scalars) before any run."""
    program = pir.Program()
    block = program.global_block()
    slots = {"Param": "param", "LearningRate": "lr", "Moment1": "m1", "Moment2": "m2",
             "Beta1Pow": "b1p", "Beta2Pow": "b2p"}
    shapes = {"lr": [1], "b1p": [1], "b2p": [1], var: shape}
    for name in list(slots.values()) + ["grad"]:
        block.create_var(name=name, shape=shapes.get(name, [6, 3]), dtype="float64",
                         persistable=name != "grad")
    with pytest.raises(PaddleIRError, match=words):
        block.append_op("adam", inputs={**{s: [n] for s, n in slots.items()}, "Grad": ["grad"]},
                        outputs={f"{s}Out": [n] for s, n in slots.items()
                                 if s != "LearningRate"})
