"""lstmp (+ lstmp_grad) against a plain per-sequence numpy loop and central differences.

The reference steps one sequence at a time, one row at a time, from the
formulas of Paddle 1.8's lstmp_op.cc/.h (written here, not taken from the op):
the recurrence reads the projection r = act(h @ ProjWeight), the cell and the
projection are clipped when cell_clip / proj_clip > 0, and a non-identity
proj_activation applies cell_activation (Paddle's kernel). Paddle 3.3.1 no
longer has lstmp, so there is no run against Paddle itself.
"""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError, ShapeInferenceError
from tests.op_test import check_grad, check_op

ACTS = {
    "sigmoid": lambda v: 1.0 / (1.0 + np.exp(-v)),
    "tanh": np.tanh,
    "relu": lambda v: np.maximum(v, 0.0),
    "identity": lambda v: v,
}


def ref_lstmp(x, lengths, w, pw, b, h0=None, c0=None, peepholes=True, reverse=False,
              gate="sigmoid", cell="tanh", cand="tanh", proj="tanh", cell_clip=0.0,
              proj_clip=0.0):
    d, p = pw.shape
    proj_fn = ACTS["identity"] if proj == "identity" else ACTS[cell]
    out_r, out_c = np.zeros((len(x), p)), np.zeros((len(x), d))
    start = 0
    for s, n in enumerate(lengths):
        rows = list(range(start, start + n))
        start += n
        r = np.zeros(p) if h0 is None else h0[s].astype(np.float64)
        c = np.zeros(d) if c0 is None else c0[s].astype(np.float64)
        for row in (rows[::-1] if reverse else rows):
            z = x[row] + r @ w + b[0, :4 * d]
            zc, zi, zf, zo = z[:d], z[d:2 * d], z[2 * d:3 * d], z[3 * d:]
            if peepholes:
                zi = zi + b[0, 4 * d:5 * d] * c
                zf = zf + b[0, 5 * d:6 * d] * c
            c = ACTS[gate](zf) * c + ACTS[gate](zi) * ACTS[cand](zc)
            if cell_clip > 0:
                c = np.minimum(np.maximum(c, -cell_clip), cell_clip)
            if peepholes:
                zo = zo + b[0, 6 * d:] * c
            h = ACTS[gate](zo) * ACTS[cell](c)
            r = proj_fn(h @ pw)
            if proj_clip > 0:
                r = np.minimum(np.maximum(r, -proj_clip), proj_clip)
            out_r[row], out_c[row] = r, c
    return out_r, out_c


def lod(array, lengths):
    return pir.create_lod_tensor(array, [lengths])


def lstmp_inputs(lengths, d, p, dtype=np.float64, peepholes=True, states=False, seed=0):
    rng = np.random.RandomState(seed)
    inputs = {
        "Input": lod(rng.uniform(-1, 1, (sum(lengths), 4 * d)).astype(dtype), lengths),
        "Weight": rng.uniform(-0.5, 0.5, (p, 4 * d)).astype(dtype),
        "ProjWeight": rng.uniform(-0.8, 0.8, (d, p)).astype(dtype),
        "Bias": rng.uniform(-0.5, 0.5, (1, (7 if peepholes else 4) * d)).astype(dtype),
    }
    if states:
        inputs["H0"] = rng.uniform(-1, 1, (len(lengths), p)).astype(dtype)
        inputs["C0"] = rng.uniform(-1, 1, (len(lengths), d)).astype(dtype)
    return inputs


def _ref(inputs, lengths, **kw):
    get = inputs.get
    return ref_lstmp(np.asarray(inputs["Input"], np.float64), lengths,
                     *(np.asarray(inputs[s], np.float64) for s in ("Weight", "ProjWeight", "Bias")),
                     None if get("H0") is None else np.asarray(get("H0"), np.float64),
                     None if get("C0") is None else np.asarray(get("C0"), np.float64), **kw)


@pytest.mark.parametrize("peepholes", [True, False])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("states", [False, True])
def test_lstmp_matches_per_sequence_loop(peepholes, reverse, states):
    lengths = [3, 1, 4, 2]
    inputs = lstmp_inputs(lengths, 3, 2, peepholes=peepholes, states=states)
    want_r, want_c = _ref(inputs, lengths, peepholes=peepholes, reverse=reverse)
    result = check_op("lstmp", inputs, {"use_peepholes": peepholes, "is_reverse": reverse},
                      {"Projection": lod(want_r, lengths), "Cell": lod(want_c, lengths)},
                      batch_unknown=True)
    assert result["Projection"][0].shape == (10, 2)


def test_lstmp_clips_and_activations_float32_with_an_empty_sequence():
    lengths = [2, 0, 5, 1]
    inputs = lstmp_inputs(lengths, 4, 3, dtype=np.float32, states=True, seed=3)
    inputs["Input"] = lod(np.asarray(inputs["Input"]) * 4, lengths)  # big enough to clip
    attrs = {"cell_activation": "relu", "candidate_activation": "identity",
             "proj_activation": "sigmoid", "cell_clip": 0.5, "proj_clip": 0.2,
             "is_reverse": True}
    want_r, want_c = _ref(inputs, lengths, reverse=True, cell="relu", cand="identity",
                          proj="sigmoid", cell_clip=0.5, proj_clip=0.2)
    assert (np.abs(want_c) == 0.5).any() and (np.abs(want_r) == 0.2).any()  # clips engaged
    check_op("lstmp", inputs, attrs,
             {"Projection": lod(want_r.astype(np.float32), lengths),
              "Cell": lod(want_c.astype(np.float32), lengths)}, atol=1e-5)


def test_non_identity_proj_activation_means_cell_activation():
    """Paddle 1.8 projects with cell_activation unless proj_activation is identity."""
    lengths = [3, 2]
    inputs = lstmp_inputs(lengths, 2, 2, seed=5)
    base = check_op("lstmp", inputs, {"proj_activation": "relu", "cell_activation": "tanh"})
    want_r, _ = _ref(inputs, lengths, proj="tanh")
    np.testing.assert_allclose(base["Projection"][0].numpy(), want_r, atol=1e-12)
    linear, _ = _ref(inputs, lengths, proj="identity")
    check_op("lstmp", inputs, {"proj_activation": "identity"},
             {"Projection": lod(linear, lengths)})


def test_lstmp_runs_over_the_last_lod_level_and_keeps_both():
    rng = np.random.RandomState(1)
    inputs = lstmp_inputs([1, 3, 2], 2, 3)
    inputs["Input"] = pir.create_lod_tensor(rng.uniform(-1, 1, (6, 8)), [[2, 1], [1, 3, 2]])
    want_r, _ = _ref(inputs, [1, 3, 2])
    result = check_op("lstmp", inputs, {},
                      {"Projection": pir.create_lod_tensor(want_r, [[2, 1], [1, 3, 2]])})
    assert result["Cell"][0].lod() == [[0, 2, 3], [0, 1, 4, 6]]


# --- gradients -------------------------------------------------------------------------------

WRT = ("Input", "Weight", "ProjWeight", "Bias")


@pytest.mark.parametrize("peepholes", [True, False])
@pytest.mark.parametrize("reverse", [False, True])
def test_lstmp_grad_with_initial_states(peepholes, reverse):
    inputs = lstmp_inputs([3, 1, 2], 3, 2, peepholes=peepholes, states=True, seed=7)
    check_grad("lstmp", inputs, {"use_peepholes": peepholes, "is_reverse": reverse},
               wrt=WRT + ("H0", "C0"), out_slot="Projection")


@pytest.mark.parametrize("proj", ["identity", "tanh"])
def test_lstmp_grad_other_activations_no_states(proj):
    inputs = lstmp_inputs([2, 0, 4], 2, 3, seed=11)
    attrs = {"gate_activation": "tanh", "cell_activation": "sigmoid",
             "candidate_activation": "tanh", "proj_activation": proj}
    check_grad("lstmp", inputs, attrs, wrt=WRT, out_slot="Projection")


def test_lstmp_grad_through_the_clips():
    """Clipped cells and projections pass no gradient; kept away from the clip edges so
    central differences do not straddle a kink."""
    lengths = [3, 2]
    inputs = lstmp_inputs(lengths, 3, 2, states=True, seed=13)
    inputs["Input"] = lod(np.asarray(inputs["Input"]) * 3, lengths)
    kw = {"cell_clip": 0.45, "proj_clip": 0.3}
    want_r, want_c = _ref(inputs, lengths, **kw)
    for got, clip in ((want_c, 0.45), (want_r, 0.3)):
        assert (np.abs(got) == clip).any() and (np.abs(got) < clip).any()
        inside = np.abs(got)[np.abs(got) < clip]
        assert (clip - inside).min() > 1e-4  # no value near the edge
    check_grad("lstmp", inputs, kw, wrt=WRT + ("H0", "C0"), out_slot="Projection")


# --- errors ----------------------------------------------------------------------------------


def test_lstmp_rejects_input_without_lod():
    inputs = lstmp_inputs([2, 1], 2, 2)
    inputs["Input"] = np.zeros((3, 8))
    with pytest.raises(ShapeInferenceError, match=r"Input of lstmp must be a sequence"):
        check_op("lstmp", inputs)


@pytest.mark.parametrize("slot, shape, message", [
    ("Input", (3, 6), r"Input.shape\[1\] must be 4 \* D = 8"),
    ("Weight", (3, 8), r"Weight must be \[P, 4D\] = \[2, 8\]"),
    ("ProjWeight", (3, 2), r"Input.shape\[1\] must be 4 \* D = 12"),
    ("Bias", (1, 8), r"Bias must be \[1, 14\] \(7D"),
])
def test_lstmp_rejects_mismatched_widths(slot, shape, message):
    inputs = lstmp_inputs([2, 1], 2, 2)
    value = np.zeros(shape)
    inputs[slot] = lod(value, [2, 1]) if slot == "Input" else value
    with pytest.raises(ShapeInferenceError, match=message):
        check_op("lstmp", inputs)


def test_lstmp_h0_is_a_projection_and_needs_c0():
    inputs = lstmp_inputs([2, 1], 3, 2, states=True)
    inputs["H0"] = np.zeros((2, 3))
    with pytest.raises(ShapeInferenceError, match=r"H0 must be \[N, 2\]"):
        check_op("lstmp", inputs)
    del inputs["C0"]
    inputs["H0"] = np.zeros((2, 2))
    with pytest.raises(ShapeInferenceError, match=r"C0 must be given when H0 is"):
        check_op("lstmp", inputs)


def test_lstmp_rejects_unknown_activation_and_wrong_state_rows():
    with pytest.raises(ShapeInferenceError,
                       match=r"proj_activation must be one of .*got 'softsign'"):
        check_op("lstmp", lstmp_inputs([2], 2, 2), {"proj_activation": "softsign"})
    inputs = lstmp_inputs([2, 1], 2, 2, states=True)
    inputs["C0"] = inputs["C0"][:1]
    with pytest.raises(KernelError, match=r"C0 must have one row per sequence"):
        check_op("lstmp", inputs)


@pytest.mark.parametrize("is_reverse", [False, True])
def test_lstmp_agrees_with_the_dynamic_lstmp_layer(is_reverse):
    """The layer composes lstmp from primitive ops on a DynamicRNN (layers/rnn/fused.py): a
    second, independent build of the same recurrence, fed the same parameters."""
    d, p, lengths = 3, 2, [3, 1, 2]
    x = np.random.RandomState(21).uniform(-1, 1, (6, 4 * d)).astype(np.float32)
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        xv = pir.layers.data("x", [-1, 4 * d], lod_level=1)
        proj, cell = pir.layers.dynamic_lstmp(xv, 4 * d, p, is_reverse=is_reverse,
                                              cell_clip=0.3, proj_clip=0.25)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    w, pw, b = (np.array(scope.find_var(v.name).get_tensor())
                for v in main.global_block().all_parameters())
    want_r, want_c = exe.run(main, feed={"x": lod(x, lengths)}, fetch_list=[proj, cell],
                             scope=scope, return_numpy=False)
    check_op("lstmp", {"Input": lod(x, lengths), "Weight": w, "ProjWeight": pw, "Bias": b},
             {"is_reverse": is_reverse, "cell_clip": 0.3, "proj_clip": 0.25},
             {"Projection": want_r, "Cell": want_c}, atol=1e-5)
