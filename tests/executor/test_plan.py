"""How the executor's plans (executor/plan.py) treat kernels and shapes: probe ops
registered for one test, and shapes that change between runs of a cached plan."""

import time
import tracemalloc

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.errors import (
    InvalidProgramError,
    InvalidSelectedRowsError,
    KernelError,
    KernelNotFoundError,
    ShapeInferenceError,
)
from paddle_ir.ops import registry
from paddle_ir.ops.registry import In, Out, register_op


@pytest.fixture
def probe(monkeypatch):
    """register_op into a copy of the registry: the probe ops vanish after the test."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))

    def make(op_type, kernel, dtypes=(np.float32,), **kwargs):
        op = register_op(op_type, inputs=[In("X")], outputs=[Out("Out")], **kwargs)

        @op.infer_shape
        def _(ctx):
            ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))

        op.kernel(dtypes=dtypes)(kernel)
        return op

    return make


def one_op_program(op_type, x_type=pir.VarType.LOD_TENSOR, shape=(-1, 2)):
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=list(shape), dtype="float32", type=x_type)
    block.create_var(name="out", dtype="float32")
    block.append_op(op_type, inputs={"X": ["x"]}, outputs={"Out": ["out"]})
    return program


def test_check_mode_reports_an_output_that_disagrees_with_inference(probe):
    probe("probe_widen", lambda attrs, x: np.concatenate([x, x], axis=1))
    program = one_op_program("probe_widen")
    x = np.ones((3, 2), np.float32)
    for exe in (pir.Executor(check=True), pir.Executor()):  # a compiling run checks too
        with pytest.raises(KernelError, match=r"wrote 'out' with shape \[3, 4\] \(declared "
                                              r"\[3, 2\]\): it disagrees with the op's "
                                              r"InferShape"):
            exe.run(program, feed={"x": x}, fetch_list=["out"])


@pytest.mark.parametrize("result, words", [
    (np.ones((1, 2), np.float32), r"shape \[1, 2\] \(declared \[0, 2\]\)"),  # 0 is a size
    (np.ones(2, np.float32), r"shape \[2\] \(declared \[0, 2\]\)"),  # and the rank
])
def test_a_declared_size_of_zero_is_checked_like_any_known_size(probe, result, words):
    """Only -1 leaves a dim open: inference declaring 0 rows (from an X of 0 rows) and a
    kernel writing 1 disagree."""
    probe("probe_one_row", lambda attrs, x: result)
    program = one_op_program("probe_one_row", shape=(0, 2))
    with pytest.raises(KernelError, match=r"wrote 'out' with " + words):
        pir.Executor().run(program, feed={"x": np.zeros((0, 2), np.float32)},
                           fetch_list=["out"])


def test_a_numpy_scalar_from_a_kernel_becomes_a_0d_array(probe):
    probe("probe_total", lambda attrs, x: np.float32(x.sum()))
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[], dtype="float32")
    block.create_var(name="out", dtype="float32")
    block.append_op("probe_total", inputs={"X": ["x"]}, outputs={"Out": ["out"]})
    for exe in (pir.Executor(), pir.Executor(check=True)):
        for _ in range(2):
            (out,) = exe.run(program, feed={"x": np.array(2.5, np.float32)},
                             fetch_list=["out"])
            assert isinstance(out, np.ndarray) and out.shape == () and out == 2.5


def test_a_kernel_returning_another_class_is_a_kernel_error(probe):
    probe("probe_list", lambda attrs, x: x.tolist())
    program = one_op_program("probe_list")
    with pytest.raises(KernelError, match=r"the kernel of probe_list returned a list for "
                                          r"'out', but var-type inference declared ndarray"):
        pir.Executor().run(program, feed={"x": np.ones((1, 2), np.float32)},
                           fetch_list=["out"])


def test_the_profile_counts_each_op_type_and_its_seconds():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 2])
        y = pir.layers.scale(pir.layers.scale(x, 2.0), 3.0)
    exe = pir.Executor()
    exe.profile = {}
    for _ in range(3):
        exe.run(main, feed={"x": np.ones((4, 2), np.float32)}, fetch_list=[y])
    count, seconds = exe.profile["scale"]
    # the cached runs' steps: the first run compiles the plan while running it, unprofiled
    assert count == 4 and isinstance(seconds, float) and 0 <= seconds < 60


def test_a_lod_feed_run_again_with_the_same_lod_takes_the_verified_plan():
    """The compile run verifies the feed's shapes and LoD lengths: a second run with the
    same ones takes the cached steps (profiled), not another checked run."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 2], lod_level=1)
        y = pir.layers.scale(x, 2.0)
    exe = pir.Executor()
    exe.profile = {}
    value = pir.create_lod_tensor(np.ones((3, 2), np.float32), [[2, 1]])
    for runs in (1, 2, 3):
        got, = exe.run(main, feed={"x": value}, fetch_list=[y], return_numpy=False)
        assert got.lod() == [[0, 2, 3]]
        assert exe.profile.get("scale", [0])[0] == runs - 1  # all but the compile run


def test_a_csr_input_without_a_kernel_hints_at_cast_storage(probe):
    probe("probe_dense_only", lambda attrs, x: x * 2)
    program = one_op_program("probe_dense_only", pir.VarType.CSR)
    csr = CSRTensor.from_dense(np.eye(2, dtype=np.float32))
    with pytest.raises(KernelNotFoundError, match="no kernel of probe_dense_only") as info:
        pir.Executor().run(program, feed={"x": csr}, fetch_list=["out"])
    assert "cast_storage them to dense first" in str(info.value)


def test_storage_fallback_warn_given_as_any_equal_string_allows_the_fallback(probe):
    """Options compared as text: a "warn" read from a config file is not the literal."""
    probe("probe_fallback", lambda attrs, x: x * 2, fallback=True)
    program = one_op_program("probe_fallback", pir.VarType.SELECTED_ROWS, shape=(3, 2))
    sr = pir.SelectedRows([2], np.ones((1, 2), np.float32), 3)
    warn = "".join(["w", "arn"])
    with pytest.warns(pir.StorageFallbackWarning, match="probe_fallback"):
        (out,) = pir.Executor(storage_fallback=warn).run(program, feed={"x": sr},
                                                         fetch_list=["out"])
    np.testing.assert_array_equal(np.asarray(out), [[0, 0], [0, 0], [2, 2]])
    with pytest.raises(KernelNotFoundError, match="storage fallback is turned off"):
        pir.Executor(storage_fallback="".join(["er", "ror"])).run(program, feed={"x": sr},
                                                                  fetch_list=["out"])


def test_a_value_read_later_only_for_its_shape_is_released_after_its_last_data_read():
    """a's data is read by reduce_sum; fill_any_like later needs only a's shape
    (no_need_buffer), so a becomes a stand-in and its 4 MB go before b's are taken."""
    main = pir.Program()
    block = main.global_block()
    for n in ("x", "a", "s", "b", "f"):
        block.create_var(name=n, shape=[1] if n == "s" else [-1, 1000], dtype="float32")
    block.append_op("scale", inputs={"X": ["x"]}, outputs={"Out": ["a"]}, attrs={"scale": 2.0})
    block.append_op("reduce_sum", inputs={"X": ["a"]}, outputs={"Out": ["s"]},
                    attrs={"reduce_all": True})
    block.append_op("scale", inputs={"X": ["x"]}, outputs={"Out": ["b"]}, attrs={"scale": 3.0})
    block.append_op("fill_any_like", inputs={"X": ["a"]}, outputs={"Out": ["f"]},
                    attrs={"value": 1.0, "dtype": -1})
    x = np.ones((1000, 1000), np.float32)
    exe = pir.Executor()
    exe.run(main, feed={"x": x}, fetch_list=["s"])  # compile; measure a cached run
    tracemalloc.start()  # numpy reports its data allocations to tracemalloc
    try:
        base = tracemalloc.get_traced_memory()[0]
        (s,) = exe.run(main, feed={"x": x}, fetch_list=["s"])
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert float(np.asarray(s).reshape(-1)[0]) == 2e6
    # at most two of a, b, f alive at once (8 MB); keeping a whole would make it three
    assert peak < 2.5 * x.nbytes, f"peak {peak / x.nbytes:.2f} x 4 MB"


def test_a_kernel_returning_a_container_of_another_type_fails_at_its_step(probe):
    """The step's class check stops a tensor array where inference declared a tensor,
    before check mode compares types: so check mode's own message for a container of
    another type (plan.py, _check_outputs) is never reached (equivalent.toml)."""
    from paddle_ir.core.tensor_array import LoDTensorArray

    probe("probe_array", lambda attrs, x: LoDTensorArray([pir.create_lod_tensor(x, [])]))
    program = one_op_program("probe_array")
    for exe in (pir.Executor(check=True), pir.Executor()):
        with pytest.raises(KernelError, match=r"the kernel of probe_array returned a "
                                              r"LoDTensorArray for 'out', but var-type "
                                              r"inference declared ndarray"):
            exe.run(program, feed={"x": np.ones((3, 2), np.float32)}, fetch_list=["out"])


def test_check_mode_checks_the_outputs_after_one_inference_left_undeclared(monkeypatch):
    """Out[0] is left to its value; Out[1] is declared, and its kernel disagrees."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    op = register_op("probe_two_outs", inputs=[In("X")],
                     outputs=[Out("Out", duplicable=True)])

    @op.infer_var_type
    def _(ctx):
        ctx.set_output_type("Out", pir.VarType.LOD_TENSOR, 1)

    @op.infer_shape
    def _(ctx):
        ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"), 1)

    op.kernel(dtypes=(np.float32,))(lambda attrs, x: [x, np.concatenate([x, x], axis=1)])
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 2], dtype="float32")
    for n in ("a", "b"):
        block.create_var(name=n, dtype="float32")
    block.append_op("probe_two_outs", inputs={"X": ["x"]}, outputs={"Out": ["a", "b"]})
    with pytest.raises(KernelError, match=r"wrote 'b' with shape \[3, 4\] \(declared \[3, 2\]\)"):
        pir.Executor(check=True).run(program, feed={"x": np.ones((3, 2), np.float32)},
                                     fetch_list=["b"])


def test_compile_ms_is_the_first_run_s_compile_time_in_milliseconds(probe):
    def slow_copy(attrs, x):
        time.sleep(0.03)
        return x.copy()

    probe("probe_slow", slow_copy)
    program = one_op_program("probe_slow")
    exe = pir.Executor()
    started = time.perf_counter()
    exe.run(program, feed={"x": np.ones((2, 2), np.float32)}, fetch_list=["out"])
    wall_ms = (time.perf_counter() - started) * 1e3
    # the compiling run runs each op's kernel as it compiles it: the 30 ms sleep is inside
    assert 30 <= exe.last_plan.compile_ms <= wall_ms
    assert 30 <= exe.last_plan.kernel_ms <= exe.last_plan.compile_ms


def test_an_error_raised_inside_a_cached_step_is_pointed_at_its_op(probe):
    """bad_output knows only the op type; run_steps fills in the op's place, in the
    message and in the exception's args (what pickling and repr carry)."""
    probe("probe_flaky", lambda attrs, x: x.tolist() if x.sum() > 0 else x.copy())
    program = one_op_program("probe_flaky")
    exe = pir.Executor()
    exe.run(program, feed={"x": np.zeros((1, 2), np.float32)}, fetch_list=["out"])
    with pytest.raises(KernelError) as info:
        exe.run(program, feed={"x": np.ones((1, 2), np.float32)}, fetch_list=["out"])
    assert "block 0, op #0 probe_flaky" in str(info.value)
    assert info.value.args == (str(info.value),)


def test_an_exception_from_a_cached_kernel_becomes_a_kernel_error_at_its_op(probe):
    def picky(attrs, x):
        if x.sum() > 0:
            raise ValueError("no positive sums here")
        return x.copy()

    probe("probe_picky", picky)
    program = one_op_program("probe_picky")
    exe = pir.Executor()
    exe.run(program, feed={"x": np.zeros((1, 2), np.float32)}, fetch_list=["out"])
    with pytest.raises(KernelError, match=r"block 0, op #0 probe_picky .*\n"
                                          r"  ValueError: no positive sums here"):
        exe.run(program, feed={"x": np.ones((1, 2), np.float32)}, fetch_list=["out"])


def test_an_op_with_two_spec_problems_is_refused_for_the_first():
    program = pir.Program()
    block = program.global_block()
    for n in ("x", "y"):
        block.create_var(name=n, shape=[-1, 2], dtype="float32")
    block.create_var(name="z", dtype="float32")
    block.append_op("elementwise_add", inputs={"X": ["x"], "Y": ["y"]}, outputs={"Out": ["z"]})
    for slot in program.desc.blocks[0].ops[0].inputs:  # two names in each one-name slot
        slot.arguments.append(slot.arguments[0])
    feed = {n: np.ones((1, 2), np.float32) for n in ("x", "y")}
    with pytest.raises(pir.PaddleIRError, match=r"input X of elementwise_add takes one "
                                                r"variable, got 2: \['x', 'x'\]"):
        pir.Executor().run(program, feed=feed, fetch_list=["z"])


# ----------------------------------------------------------------------------------------------
# A cached plan never runs what a fresh plan refuses (its shape guards).
#
# Plans are cached per feed signature (classes, dtypes, ranks, LoD depths), so
# shapes that change between runs must meet the ops' InferShape again: a run
# with external shapes the plan has not verified runs each op's inference
# before its step, and fails exactly as a fresh Executor would.


def _program(build):
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        fetch = build()
    return main, fetch


def _fresh_error(main, feed, fetch) -> str:
    with pytest.raises(ShapeInferenceError) as fresh:
        pir.Executor().run(main, feed=feed, fetch_list=[fetch], scope=pir.Scope())
    return str(fresh.value)


def test_sigmoid_cross_entropy_label_of_another_shape_after_a_good_run():
    def build():
        x = pir.layers.data("x", [-1, 1])
        label = pir.layers.data("label", [-1, 1])
        return pir.layers.sigmoid_cross_entropy_with_logits(x, label)

    main, loss = _program(build)
    exe = pir.Executor()
    x4, label4 = np.zeros((4, 1), np.float32), np.ones((4, 1), np.float32)
    (good,) = exe.run(main, feed={"x": x4, "label": label4}, fetch_list=[loss])
    np.testing.assert_allclose(good, np.full((4, 1), np.log(2.0)), rtol=1e-6)
    bad = {"x": x4, "label": np.ones((1, 1), np.float32)}
    expected = _fresh_error(main, bad, loss)
    assert "Label must have X's shape, got X [4, 1] and Label [1, 1]" in expected
    with pytest.raises(ShapeInferenceError) as cached:
        exe.run(main, feed=bad, fetch_list=[loss])
    assert str(cached.value) == expected
    assert "op #0 sigmoid_cross_entropy_with_logits" in expected
    # The refusal leaves the plan usable, and it still refuses the next time.
    (again,) = exe.run(main, feed={"x": x4, "label": label4}, fetch_list=[loss])
    np.testing.assert_array_equal(again, good)
    with pytest.raises(ShapeInferenceError, match="Label must have X's shape"):
        exe.run(main, feed=bad, fetch_list=[loss])


def test_mul_with_a_second_run_whose_inner_dims_differ():
    def build():
        x = pir.layers.data("x", [-1, 3])
        y = pir.layers.data("y", [-1, 2])
        return pir.layers.mul(x, y)

    main, out = _program(build)
    exe = pir.Executor()
    x, y = np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)
    (first,) = exe.run(main, feed={"x": x, "y": y}, fetch_list=[out])
    np.testing.assert_allclose(first, x @ y)
    bad = {"x": x, "y": np.ones((4, 2), np.float32)}
    expected = _fresh_error(main, bad, out)
    with pytest.raises(ShapeInferenceError) as cached:
        exe.run(main, feed=bad, fetch_list=[out])
    assert str(cached.value) == expected
    assert "op #0 mul" in expected and "X.shape[1] must equal Y.shape[0]" in expected


def test_elementwise_with_an_operand_that_no_longer_broadcasts_after_a_chain():
    """The guard checks ops deep in the block, on the shapes earlier steps produced."""
    def build():
        x = pir.layers.data("x", [-1, 4])
        y = pir.layers.data("y", [-1, 4])
        h = pir.layers.scale(pir.layers.relu(x), 2.0)
        return pir.layers.elementwise_mul(h, y)

    main, out = _program(build)
    exe = pir.Executor()
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    (first,) = exe.run(main, feed={"x": x, "y": np.ones((2, 4), np.float32)}, fetch_list=[out])
    np.testing.assert_allclose(first, 2 * x)
    bad = {"x": x, "y": np.ones((3, 4), np.float32)}
    expected = _fresh_error(main, bad, out)
    with pytest.raises(ShapeInferenceError) as cached:
        exe.run(main, feed=bad, fetch_list=[out])
    assert str(cached.value) == expected
    assert "op #2 elementwise_mul" in expected and "do not broadcast" in expected


def test_new_valid_shapes_are_verified_once_and_then_run_unchecked():
    def build():
        x = pir.layers.data("x", [-1, 3])
        return pir.layers.fc(x, 2)

    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        out = build()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    checks = []
    for batch in (4, 4, 1, 4, 1):
        x = np.ones((batch, 3), np.float32)
        (value,) = exe.run(main, feed={"x": x}, fetch_list=[out], scope=scope)
        assert value.shape == (batch, 2)
        checks.append(len(exe.last_plan.verified))
    assert checks == [1, 1, 2, 2, 2]  # one plan; the last, partial batch verified once
    (signature,) = [s for s in exe.last_plan.verified if s[0] == (1, 3)]
    assert (3, 2) in signature  # the weight's shape is guarded too


# --- persistables must be what the program declares (issue 27 item 14) ----------------------


def _projection():
    """y = mean(x @ w), w declared float32 [3, 4]; (main, startup, w's name, y)."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 3])
        y = pir.layers.mean(pir.layers.fc(x, 4, bias_attr=False))
    return main, startup, main.global_block().all_parameters()[0].name, y


@pytest.mark.parametrize("other, held", [
    (np.ones((3, 6), np.float32), r"float32 \[3, 6\]"),  # mul's inference accepts [3, 6]
    (np.ones((3, 2), np.float32), r"float32 \[3, 2\]"),  # and a dim smaller than declared
    (np.ones((3, 4), np.float64), r"float64 \[3, 4\]"),  # same shape, another dtype
    (np.ones((3, 4), np.float16), r"float16 \[3, 4\]"),  # a narrower one
    (np.ones((3, 4), np.int32), r"int32 \[3, 4\]"),  # another kind
    (np.ones((3, 4, 1), np.float32), r"float32 \[3, 4, 1\]"),  # more dims than declared
    (np.ones((12,), np.float32), r"float32 \[12\]"),  # fewer
    (np.ones((3,), np.float32), r"float32 \[3\]"),  # fewer, its one dim as declared
])
def test_a_persistable_unlike_its_declaration_is_refused_cached_or_not(other, held):
    main, startup, w, y = _projection()
    feed = {"x": np.ones((2, 3), np.float32)}
    scope, exe = pir.Scope(), pir.Executor()
    exe.run(startup, scope=scope)
    exe.run(main, feed=feed, fetch_list=[y], scope=scope)  # the plan is cached now
    message = (rf"persistable variable '{w}' holds {held} in the scope, but the program "
               rf"declares float32 \[3, 4\]")
    scope.var(w).value = pir.LoDTensor(other)  # a scope another program shares
    with pytest.raises(InvalidProgramError, match=message):  # the guards re-check
        exe.run(main, feed=feed, fetch_list=[y], scope=scope)
    with pytest.raises(InvalidProgramError, match=message):  # a plan compiled afresh
        pir.Executor().run(main, feed=feed, fetch_list=[y], scope=scope)
    scope.var(w).value = pir.LoDTensor(np.full((3, 4), 0.5, np.float32))
    got = exe.run(main, feed=feed, fetch_list=[y], scope=scope)[0]
    np.testing.assert_allclose(got, [1.5])  # each output 3 * 0.5, their mean


def test_a_plan_forgets_its_verified_shapes_past_its_limit_and_checks_them_again(probe):
    """A loop over ever new batch sizes (bucketed sequence lengths) must not grow a plan's
    verified set without bound: past the limit it starts over, so a shape verified long ago
    meets the ops' inference again, while the shape just verified does not."""
    from paddle_ir.executor import plan as plan_module

    inferred = []
    op = register_op("probe_counted", inputs=[In("X")], outputs=[Out("Out")])

    @op.infer_shape
    def _(ctx):
        inferred.append(ctx.input_shape("X")[0])
        ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))

    op.kernel(dtypes=(np.float32,))(lambda attrs, x: x * 2)
    program = one_op_program("probe_counted")
    inferred.clear()  # appending the op inferred its build-time shape (-1, 2)
    exe = pir.Executor()
    limit = plan_module._MAX_VERIFIED
    for batch in range(1, limit + 2):  # one shape more than the plan remembers
        x = np.full((batch, 2), batch, np.float32)
        (out,) = exe.run(program, feed={"x": x}, fetch_list=["out"])
        np.testing.assert_array_equal(out, 2 * x)
    assert inferred == list(range(1, limit + 2))  # each new shape inferred once
    assert len(exe.last_plan.verified) <= limit
    exe.run(program, feed={"x": np.ones((limit + 1, 2), np.float32)}, fetch_list=["out"])
    assert inferred[limit + 1:] == []  # the last shape is still verified
    (out,) = exe.run(program, feed={"x": np.ones((1, 2), np.float32)}, fetch_list=["out"])
    assert inferred[limit + 1:] == [1]  # the first one was forgotten: checked again
    np.testing.assert_array_equal(out, [[2, 2]])


def test_the_profile_s_seconds_are_the_time_inside_the_steps(probe):
    """Each cached run's step of a 20 ms kernel adds at least 20 ms and at most the run's
    wall time: the profile measures the steps, on the same clock as the run."""
    def slow_copy(attrs, x):
        time.sleep(0.02)
        return x.copy()

    probe("probe_timed", slow_copy)
    program = one_op_program("probe_timed")
    exe = pir.Executor()
    exe.profile = {}
    feed = {"x": np.ones((2, 2), np.float32)}
    exe.run(program, feed=feed, fetch_list=["out"])  # compiles, unprofiled
    started = time.perf_counter()
    for _ in range(3):
        exe.run(program, feed=feed, fetch_list=["out"])
    wall = time.perf_counter() - started
    count, seconds = exe.profile["probe_timed"]
    assert count == 3 and 0.06 <= seconds <= wall


def test_an_output_whose_lod_depth_disagrees_with_inference_is_a_kernel_error(probe):
    """Inference declares Out without a LoD; the kernel returns one level: check mode and
    a compiling run say so, naming both depths."""
    op = register_op("probe_lod_out", inputs=[In("X")], outputs=[Out("Out")])

    @op.infer_shape
    def _(ctx):
        ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))

    op.kernel(dtypes=(np.float32,), lod=True)(
        lambda attrs, x: pir.create_lod_tensor(np.asarray(x), [[1, 2]]))
    program = one_op_program("probe_lod_out", shape=(3, 2))
    for exe in (pir.Executor(check=True), pir.Executor()):
        with pytest.raises(KernelError, match=r"wrote 'out' with 1 LoD levels \(declared "
                                              r"lod_level 0\): it disagrees with the op's "
                                              r"InferShape"):
            exe.run(program, feed={"x": np.ones((3, 2), np.float32)}, fetch_list=["out"])


def test_an_output_whose_dtype_disagrees_with_inference_is_a_kernel_error(probe):
    probe("probe_widen_dtype", lambda attrs, x: x.astype(np.float64))
    program = one_op_program("probe_widen_dtype")
    for exe in (pir.Executor(check=True), pir.Executor()):
        with pytest.raises(KernelError, match=r"wrote 'out' with dtype float64 \(declared "
                                              r"float32\): it disagrees with the op's "
                                              r"InferShape"):
            exe.run(program, feed={"x": np.ones((3, 2), np.float32)}, fetch_list=["out"])


def test_a_missing_input_s_error_shows_the_shapes_of_the_inputs_that_have_values():
    """A parameter never initialized (no startup run): the error's headline shows the fed
    input's shape beside the missing one's name, as Paddle's op context does."""
    from paddle_ir.core.errors import MissingVariableError

    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 3], dtype="float32")
    block.create_var(name="w", shape=[3, 2], dtype="float32", persistable=True)
    block.create_var(name="o", dtype="float32")
    block.append_op("mul", inputs={"X": ["x"], "Y": ["w"]}, outputs={"Out": ["o"]})
    with pytest.raises(MissingVariableError, match=r"op #0 mul \(X=x\[2, 3\], Y=w -> Out=o\):"
                                                   r"\n  input Y reads 'w', which has no "
                                                   r"value in the scope"):
        pir.Executor().run(program, feed={"x": np.ones((2, 3), np.float32)}, fetch_list=["o"])


@pytest.mark.parametrize("stype", ["selected_rows", "csr"])
def test_check_nan_inf_looks_into_the_values_a_sparse_output_stores(stype):
    """A SelectedRows or CSR output holds its numbers in its value (data) array: NaN or Inf
    there is found as in a dense output, naming the op that wrote it."""
    from paddle_ir.core.errors import NanInfError
    from paddle_ir.core.kinds import CSR

    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[2, 3], dtype="float32")
    block.create_var(name="y", dtype="float32",
                     type=CSR if stype == "csr" else pir.VarType.SELECTED_ROWS)
    block.append_op("cast_storage", inputs={"X": ["x"]}, outputs={"Out": ["y"]},
                    attrs={"stype": stype})
    x = np.array([[0, np.nan, 0], [0, 0, 0]], np.float32)
    with pytest.raises(NanInfError, match=r"(?s)op #0 cast_storage .*output 'y' of "
                                          r"cast_storage contains NaN"):
        pir.Executor(check_nan_inf=True).run(program, feed={"x": x}, fetch_list=["y"])
    x[0, 1] = np.inf
    with pytest.raises(NanInfError, match=r"output 'y' of cast_storage contains Inf"):
        pir.Executor(check_nan_inf=True).run(program, feed={"x": x}, fetch_list=["y"])
    x[0, 1] = 5.0
    (y,) = pir.Executor(check_nan_inf=True).run(program, feed={"x": x}, fetch_list=["y"],
                                                return_numpy=False)
    np.testing.assert_array_equal(np.asarray(y.to_dense()), x)


def test_an_output_with_fewer_lod_levels_than_inference_declares_is_a_kernel_error(probe):
    """The reverse of the test above: inference declares one level, the kernel returns
    none."""
    op = register_op("probe_lod_drop", inputs=[In("X")], outputs=[Out("Out")])

    @op.infer_shape
    def _(ctx):
        ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
        ctx.set_output_lod_level("Out", 1)  # declared, not shared: the kernel must give it

    op.kernel(dtypes=(np.float32,), lod=True)(lambda attrs, x: np.asarray(x).copy())
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[3, 2], dtype="float32", lod_level=1)
    block.create_var(name="out", dtype="float32")
    block.append_op("probe_lod_drop", inputs={"X": ["x"]}, outputs={"Out": ["out"]})
    x = pir.create_lod_tensor(np.ones((3, 2), np.float32), [[1, 2]])
    for exe in (pir.Executor(check=True), pir.Executor()):
        with pytest.raises(KernelError, match=r"wrote 'out' with 0 LoD levels \(declared "
                                              r"lod_level 1\)"):
            exe.run(program, feed={"x": x}, fetch_list=["out"])


def test_every_timing_is_a_difference_of_clock_readings_whatever_the_clock_s_origin(
        probe, monkeypatch):
    """compile_ms, kernel_ms, the profile's seconds and fluid.profiler's per-run times on a
    clock that reads 0.125 s at the start and moves only inside the kernel, by 0.25 s a
    call: each duration is end - start (a clock may start near 0, so that a duration
    exceeds the reading it started at)."""
    from types import SimpleNamespace

    from paddle_ir.executor import plan as plan_module
    from paddle_ir.executor import profile as op_profile

    now = [0.125]

    def slow_copy(attrs, x):
        now[0] += 0.25
        return x.copy()

    monkeypatch.setattr(plan_module, "time", SimpleNamespace(perf_counter=lambda: now[0]))
    probe("probe_clocked", slow_copy)
    program, feed = one_op_program("probe_clocked"), {"x": np.ones((2, 2), np.float32)}
    exe = pir.Executor()
    exe.run(program, feed=feed, fetch_list=["out"])
    assert exe.last_plan.compile_ms == pytest.approx(250.0, rel=1e-9)
    assert exe.last_plan.kernel_ms == pytest.approx(250.0, rel=1e-9)
    exe.profile = {}
    now[0] = 0.125  # each run on a clock that starts below the duration it measures
    exe.run(program, feed=feed, fetch_list=["out"])
    assert exe.profile["probe_clocked"] == [1, pytest.approx(0.25, rel=1e-9)]
    times = op_profile.OpTimes(trace=True)
    exe.profile = times
    now[0] = 0.125
    exe.run(program, feed=feed, fetch_list=["out"])
    assert times.stats["probe_clocked"] == [1] + [pytest.approx(0.25, rel=1e-9)] * 3
    assert times.events[0][:3] == ("probe_clocked", pytest.approx(0.125),
                                   pytest.approx(0.25))


# --- each behaviour of plan.py, from its functions read one by one (issue 30) ----------------


def _counting_op(op_type, inferred, out_shape=None, out_dtype="X", **kwargs):
    """A probe op copying X whose InferShape records X's rows in `inferred` and declares
    Out as `out_shape` (default: X's shape) and `out_dtype` (default: X's dtype)."""
    op = register_op(op_type, inputs=[In("X")], outputs=[Out("Out")], **kwargs)

    @op.infer_shape
    def _(ctx):
        inferred.append(ctx.input_shape("X")[0])
        ctx.set_output("Out", ctx.input_shape("X") if out_shape is None else out_shape,
                       ctx.input_dtype("X") if out_dtype == "X" else out_dtype)

    return op


def test_a_cached_plan_infers_again_when_a_lod_input_s_sequence_count_changes(probe):
    """The guard's signature holds each external value's shape and its LoD's sequence
    counts (not the lengths): the same rows cut into another number of sequences meet
    the ops' inference again, once; the same count cut elsewhere does not."""
    inferred = []
    _counting_op("probe_seq_copy", inferred).kernel(dtypes=(np.float32,))(
        lambda attrs, x: x.copy())
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 2], dtype="float32", lod_level=1)
    block.create_var(name="out", dtype="float32")
    block.append_op("probe_seq_copy", inputs={"X": ["x"]}, outputs={"Out": ["out"]})
    inferred.clear()
    exe = pir.Executor()
    rows = np.arange(6, dtype=np.float32).reshape(3, 2)
    for lengths, new in (([2, 1], True), ([2, 1], False), ([1, 1, 1], True),
                         ([1, 2], False), ([1, 1, 1], False), ([3], True)):
        before = len(inferred)
        (out,) = exe.run(program, feed={"x": pir.create_lod_tensor(rows, [lengths])},
                         fetch_list=["out"])
        np.testing.assert_array_equal(out, rows)
        assert len(inferred) - before == int(new), lengths
    assert len(exe.last_plan.verified) == 3


def test_a_dim_inference_declares_unknown_takes_any_size_the_kernel_gives(probe):
    """-1 in a runtime declaration (an output sized by the data) leaves that dim to the
    kernel; the other dims, and the rank, are still checked."""
    for rows, cols, ok in ((5, 2, True), (0, 2, True), (5, 3, False)):
        _counting_op(f"probe_data_sized_{rows}_{cols}", [], out_shape=(-1, 2)).kernel(
            dtypes=(np.float32,))(lambda attrs, x, r=rows, c=cols: np.ones((r, c), np.float32))
        program = one_op_program(f"probe_data_sized_{rows}_{cols}")
        feed = {"x": np.ones((3, 2), np.float32)}
        for exe in (pir.Executor(), pir.Executor(check=True)):
            if ok:
                assert exe.run(program, feed=feed, fetch_list=["out"])[0].shape == (rows, cols)
                continue
            with pytest.raises(KernelError, match=r"wrote 'out' with shape \[5, 3\] "
                                                  r"\(declared \[-1, 2\]\)"):
                exe.run(program, feed=feed, fetch_list=["out"])


def test_an_output_declared_without_a_dtype_takes_the_kernel_s_dtype(probe):
    _counting_op("probe_any_dtype", [], out_dtype=None).kernel(dtypes=(np.float32,))(
        lambda attrs, x: x.astype(np.float64) * 2)
    program = one_op_program("probe_any_dtype")
    for exe in (pir.Executor(), pir.Executor(check=True)):
        for _ in range(2):
            (out,) = exe.run(program, feed={"x": np.ones((3, 2), np.float32)},
                             fetch_list=["out"])
            assert out.dtype == np.float64 and out.tolist() == [[2.0, 2.0]] * 3


def test_an_output_wrong_in_shape_and_dtype_is_refused_naming_both(probe):
    def widen_to_float64(attrs, x):
        return np.concatenate([x, x], 1).astype(np.float64)

    probe("probe_both_wrong", widen_to_float64)
    program = one_op_program("probe_both_wrong")
    with pytest.raises(KernelError) as info:
        pir.Executor().run(program, feed={"x": np.ones((3, 2), np.float32)},
                           fetch_list=["out"])
    assert info.value.message.endswith(
        "widen_to_float64 wrote 'out' with shape [3, 4] (declared [3, 2]); dtype "
        "float64 (declared float32): it disagrees with the op's InferShape")
    assert info.value.op.op_idx == 0 and info.value.op.op_type == "probe_both_wrong"


@pytest.mark.parametrize("held, ok", [((7, 3), True), ((1, 3), True), ((7, 4), False)])
def test_a_persistable_declared_with_an_unknown_dim_takes_any_size_there(held, ok):
    """A persistable declared [-1, 3] (a state whose rows the program does not fix): any
    row count is accepted, the column count is checked, and a refusal says how to fix it."""
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, -1], dtype="float32")
    block.create_var(name="w", shape=[-1, 3], dtype="float32", persistable=True)
    block.create_var(name="out", dtype="float32")
    block.append_op("elementwise_add", inputs={"X": ["w"], "Y": ["x"]},
                    outputs={"Out": ["out"]}, attrs={"axis": -1})
    scope = pir.Scope()
    w = np.arange(np.prod(held), dtype=np.float32).reshape(held)
    scope.var("w").value = pir.LoDTensor(w)
    x = np.ones((1, held[1]), np.float32)
    if ok:
        (out,) = pir.Executor().run(program, feed={"x": x}, fetch_list=["out"], scope=scope)
        np.testing.assert_array_equal(out, w + 1)
        return
    with pytest.raises(InvalidProgramError) as info:
        pir.Executor().run(program, feed={"x": x}, fetch_list=["out"], scope=scope)
    assert info.value.message.startswith("persistable variable 'w' holds float32 [7, 4] in "
                                         "the scope, but the program declares float32 "
                                         "[-1, 3]: ")
    assert info.value.hint == ("run the program's startup program (or load its parameters) "
                               "in a scope of its own")


def test_an_op_of_an_unregistered_type_is_refused_naming_it():
    program = one_op_program("scale")
    program.desc.blocks[0].ops[0].type = "probe_never_registered"
    with pytest.raises(InvalidProgramError) as info:
        pir.Executor().run(program, feed={"x": np.ones((1, 2), np.float32)},
                           fetch_list=["out"])
    assert info.value.message == ("unknown op type 'probe_never_registered': no operator of "
                                  "that name is registered")
    assert info.value.hint == "`paddle-ir ops` lists the registered op types"
    assert info.value.op.op_idx == 0 and info.value.op.inputs == {"X": ["x"]}


def _x_to_y(op_type: str, attrs: dict) -> pir.Program:
    """One `op_type` op from x (float32 [-1, 2]) to y, with `attrs`."""
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 2], dtype="float32")
    block.create_var(name="y", dtype="float32")
    block.append_op(op_type, inputs={"X": ["x"]}, outputs={"Out": ["y"]}, attrs=attrs)
    return program


def test_an_attribute_the_desc_leaves_out_takes_the_spec_s_default():
    """leaky_relu's alpha (0.02) and a desc that carries no attributes: the kernel gets
    the default on the compiling run and on the cached plan's."""
    main = _x_to_y("leaky_relu", {"alpha": 0.5})
    del main.desc.blocks[0].ops[0].attrs[:]
    x = np.array([[-1.0, 2.0]], np.float32)
    exe = pir.Executor()
    for _ in range(2):
        (y,) = exe.run(main, feed={"x": x}, fetch_list=["y"])
        np.testing.assert_allclose(y, [[-0.02, 2.0]], rtol=1e-6)


def test_an_attribute_of_the_wrong_type_is_refused_before_the_kernel_runs():
    """The desc's attribute problems come first, then the slots' (both from the spec)."""
    program = _x_to_y("scale", {"scale": 2.0})
    op = program.desc.blocks[0].ops[0]
    (attr,) = [a for a in op.attrs if a.name == "scale"]
    attr.type, attr.s = pir.proto.framework_pb2.STRING, "2"
    op.outputs[0].arguments.append("x")  # a slot problem too: it comes second
    with pytest.raises(InvalidProgramError) as info:
        pir.Executor().run(program, feed={"x": np.ones((1, 2), np.float32)},
                           fetch_list=["y"])
    assert info.value.message == ("attribute 'scale' of scale must be float (AttrType "
                                  "FLOAT), but the program stores STRING")
    assert info.value.op.op_type == "scale" and info.value.op.op_idx == 0
    attr.type, attr.f = pir.proto.framework_pb2.FLOAT, 2.0  # now only the slot problem
    with pytest.raises(InvalidProgramError, match=r"output Out of scale takes one variable, "
                                                  r"got 2: \['y', 'x'\]"):
        pir.Executor().run(program, feed={"x": np.ones((1, 2), np.float32)},
                           fetch_list=["y"])


def test_an_input_that_may_be_unset_reaches_the_kernel_as_none(probe):
    """An input slot declared may_be_unset reads a variable with no value without an error
    (the kernel gets None); any other slot doing so is refused, naming the slot and how
    values get there."""
    monkey_op = register_op("probe_maybe", inputs=[In("X"), In("Prev", may_be_unset=True)],
                            outputs=[Out("Out")])

    @monkey_op.infer_shape
    def _(ctx):
        ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))

    monkey_op.kernel(dtypes=(np.float32,))(
        lambda attrs, x, prev: x * 2 if prev is None else x + prev)
    program = pir.Program()
    block = program.global_block()
    for n in ("x", "prev", "out"):
        block.create_var(name=n, shape=[-1, 2], dtype="float32")
    block.append_op("probe_maybe", inputs={"X": ["x"], "Prev": ["prev"]},
                    outputs={"Out": ["out"]})
    x = np.array([[1.0, 2.0]], np.float32)
    exe = pir.Executor()
    for _ in range(2):
        (out,) = exe.run(program, feed={"x": x}, fetch_list=["out"])
        np.testing.assert_array_equal(out, 2 * x)
    (out,) = exe.run(program, feed={"x": x, "prev": x}, fetch_list=["out"])
    np.testing.assert_array_equal(out, 2 * x)
    from paddle_ir.core.errors import MissingVariableError

    with pytest.raises(MissingVariableError) as info:
        exe.run(program, feed={"prev": x}, fetch_list=["out"])
    assert info.value.message == "input X reads 'x', which has no value in the scope"
    assert info.value.hint == ("did you run the startup program? Parameters get their values "
                               "there; data variables must be fed")


def test_an_op_without_inference_runs_on_new_shapes_of_a_cached_plan(probe):
    """An op with no InferShape has no guard: a cached plan's run with shapes it has not
    verified checks the other ops and runs this one as it is."""
    op = register_op("probe_uninferred", inputs=[In("X")], outputs=[Out("Out")])
    op.kernel(dtypes=(np.float32,))(lambda attrs, x: x[::-1].copy())
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 2], dtype="float32")
    for n in ("r", "out"):
        block.create_var(name=n, dtype="float32")
    block.append_op("probe_uninferred", inputs={"X": ["x"]}, outputs={"Out": ["r"]})
    block.append_op("scale", inputs={"X": ["r"]}, outputs={"Out": ["out"]},
                    attrs={"scale": 2.0})
    exe = pir.Executor()
    for rows in (2, 3, 2, 4):
        x = np.arange(2 * rows, dtype=np.float32).reshape(rows, 2)
        (out,) = exe.run(program, feed={"x": x}, fetch_list=["out"])
        np.testing.assert_array_equal(out, 2 * x[::-1])
    assert exe.last_plan.checks[0] is None and exe.last_plan.checks[1] is not None
    assert len(exe.last_plan.verified) == 3


def test_check_nan_inf_names_the_output_with_its_shape_and_says_what_it_found(probe):
    """Inf in a float32 output, NaN in a complex one: the error names the op, the output
    with its shape, the kind found, and why this op (the first to produce one)."""
    from paddle_ir.core.errors import NanInfError

    probe("probe_reciprocal", lambda attrs, x: np.float32(1) / x)
    probe("probe_complex_nan", lambda attrs, x: x * np.complex64(np.nan),
          dtypes=(np.complex64,))
    program = one_op_program("probe_reciprocal")
    with np.errstate(divide="ignore"), pytest.raises(NanInfError) as info:
        pir.Executor(check_nan_inf=True).run(
            program, feed={"x": np.zeros((1, 2), np.float32)}, fetch_list=["out"])
    assert info.value.message == "output 'out' of probe_reciprocal contains Inf"
    assert info.value.op.shapes == {"out": (1, 2)} and info.value.op.op_idx == 0
    assert info.value.hint == "the first op that produced a non-finite value is shown"
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 2], dtype="complex64")
    block.create_var(name="out", dtype="complex64")
    block.append_op("probe_complex_nan", inputs={"X": ["x"]}, outputs={"Out": ["out"]})
    with pytest.raises(NanInfError, match="output 'out' of probe_complex_nan contains NaN"):
        pir.Executor(check_nan_inf=True).run(
            program, feed={"x": np.ones((1, 2), np.complex64)}, fetch_list=["out"])
    (out,) = pir.Executor().run(program, feed={"x": np.ones((1, 2), np.complex64)},
                                fetch_list=["out"])  # unchecked: computed and returned
    assert np.isnan(out).all()


def test_an_error_inside_a_sub_block_keeps_the_sub_block_op_s_place():
    """A cached while loop whose body's op fails: the error names the body's op (block 1),
    not the while op that ran the body."""
    from paddle_ir import layers

    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [-1, 3])
        w = layers.data("w", [-1, 2], append_batch_size=False)
        i = layers.fill_constant([1], "int64", 0)
        c = layers.less_than(i, layers.fill_constant([1], "int64", 2))
        loop = layers.While(c)
        with loop.block():
            layers.mul(x, w)
            layers.increment(i, in_place=True)
            layers.less_than(i, layers.fill_constant([1], "int64", 2), cond=c)
    exe = pir.Executor()
    feed = {"x": np.ones((2, 3), np.float32), "w": np.ones((3, 2), np.float32)}
    exe.run(main, feed=feed)
    feed["w"] = np.ones((4, 2), np.float32)
    for _ in range(2):
        with pytest.raises(ShapeInferenceError) as info:
            exe.run(main, feed=feed)
        assert info.value.op.block_idx == 1 and info.value.op.op_type == "mul"


def test_every_persistable_is_checked_whatever_the_ones_before_it_hold():
    """check_declared_values passes over a persistable with no value yet (its reader says
    so) or with a value that is not a dense array (a SelectedRows), and goes on to the
    next: a wrong one after them is still refused before any op runs."""
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 3], dtype="float32")
    for n in ("unset", "rows", "w"):
        block.create_var(name=n, shape=[3, 3], dtype="float32", persistable=True)
    for n in ("a", "b", "out"):
        block.create_var(name=n, dtype="float32")
    block.append_op("elementwise_add", inputs={"X": ["x"], "Y": ["unset"]},
                    outputs={"Out": ["a"]})
    block.append_op("elementwise_add", inputs={"X": ["x"], "Y": ["rows"]},
                    outputs={"Out": ["b"]})
    block.append_op("elementwise_add", inputs={"X": ["x"], "Y": ["w"]},
                    outputs={"Out": ["out"]})
    scope = pir.Scope()
    scope.var("rows").value = pir.SelectedRows([0], np.ones((1, 3), np.float32), 3)
    scope.var("w").value = pir.LoDTensor(np.ones((3, 4), np.float32))
    with pytest.raises(InvalidProgramError, match=r"persistable variable 'w' holds float32 "
                                                  r"\[3, 4\] in the scope"):
        pir.Executor().run(program, feed={"x": np.ones((3, 3), np.float32)},
                           fetch_list=["out"], scope=scope)


def test_a_persistable_written_then_read_is_stored_though_nobody_fetches_it():
    """A persistable the block writes outlives the run (its value goes back to the scope)
    even when a later op reads it last and the fetch does not name it; a temporary read
    last is freed, and a fetched feed no op reads comes back as fed."""
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 2], dtype="float32")
    block.create_var(name="z", shape=[-1, 2], dtype="float32")
    block.create_var(name="state", shape=[-1, 2], dtype="float32", persistable=True)
    for n in ("t", "y"):
        block.create_var(name=n, dtype="float32")
    block.append_op("scale", inputs={"X": ["x"]}, outputs={"Out": ["state"]},
                    attrs={"scale": 3.0})
    block.append_op("scale", inputs={"X": ["state"]}, outputs={"Out": ["t"]},
                    attrs={"scale": 2.0})
    block.append_op("scale", inputs={"X": ["t"]}, outputs={"Out": ["y"]},
                    attrs={"scale": 1.0, "bias": 1.0})
    exe, scope = pir.Executor(), pir.Scope()
    z = np.array([[5.0, 6.0]], np.float32)
    for k in (1.0, 2.0):
        x = np.full((1, 2), k, np.float32)
        y, z_back = exe.run(program, feed={"x": x, "z": z}, fetch_list=["y", "z"], scope=scope)
        np.testing.assert_array_equal(y, 6 * x + 1)
        np.testing.assert_array_equal(np.asarray(scope.find_var("state").value), 3 * x)
        np.testing.assert_array_equal(z_back, z)
        assert scope.find_var("t") is None or scope.find_var("t").value is None


def test_the_first_run_points_a_kernel_s_own_error_at_its_op_as_later_runs_do(probe):
    """A PaddleIRError a kernel raises without a place (and bad_output's, which knows only
    the op type) names the op's block and index, in the message and in args, on the
    compiling run and on the cached plan's."""
    def picky(attrs, x):
        if x.sum() > 0:
            raise InvalidSelectedRowsError("no positive sums here")
        return x.tolist() if x.sum() < 0 else x.copy()

    probe("probe_placeless", picky)
    program = one_op_program("probe_placeless")
    exe = pir.Executor()
    exe.run(program, feed={"x": np.zeros((1, 2), np.float32)}, fetch_list=["out"])
    for runner in (pir.Executor(), exe):  # compiling, then cached
        for value, words in ((1.0, "no positive sums here"), (-1.0, "returned a list")):
            with pytest.raises(pir.PaddleIRError) as info:
                runner.run(program, feed={"x": np.full((1, 2), value, np.float32)},
                           fetch_list=["out"])
            assert info.value.op.op_idx == 0 and info.value.op.inputs == {"X": ["x"]}
            assert "block 0, op #0 probe_placeless (X=x -> Out=out)" in str(info.value)
            assert words in str(info.value) and info.value.args == (str(info.value),)


def test_an_output_an_op_may_leave_unwritten_keeps_the_value_it_had(probe):
    """An op declaring may_skip_outputs (as conditional_block does) reads such an output
    too: when its kernel writes nothing there, the output keeps the scope's value."""
    op = register_op("probe_maybe_write", inputs=[In("X")], outputs=[Out("Out")],
                     may_skip_outputs=["Out"])

    def kernel(ctx, attrs, x):
        if x.sum() > 0:
            ctx.scope.find_var("out").value = pir.LoDTensor(x * 2)

    op.kernel(dtypes=(np.float32,), control=True)(kernel)
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 2], dtype="float32")
    block.create_var(name="out", shape=[-1, 2], dtype="float32", persistable=True)
    block.append_op("probe_maybe_write", inputs={"X": ["x"]}, outputs={"Out": ["out"]})
    scope, exe = pir.Scope(), pir.Executor()
    scope.var("out").value = pir.LoDTensor(np.full((1, 2), 7.0, np.float32))
    for x, want in ((0.0, 7.0), (1.0, 2.0), (0.0, 2.0), (0.0, 2.0)):
        (out,) = exe.run(program, feed={"x": np.full((1, 2), x, np.float32)},
                         fetch_list=["out"], scope=scope)
        np.testing.assert_array_equal(out, np.full((1, 2), want))


def test_an_output_beyond_the_memory_budget_is_refused_before_its_kernel_runs(probe):
    """Inference's declared sizes are held to the budget when the plan compiles and when a
    cached plan meets new shapes, before the kernel allocates anything."""
    from paddle_ir.core.errors import ResourceLimitError

    ran = []
    op = register_op("probe_widen_1000", inputs=[In("X")], outputs=[Out("Out")])

    @op.infer_shape
    def _(ctx):
        rows, cols = ctx.input_shape("X")
        ctx.set_output("Out", (rows, cols * 1000), ctx.input_dtype("X"))

    def widen(attrs, x):
        ran.append(x.shape[0])
        return np.repeat(x, 1000, axis=1)

    op.kernel(dtypes=(np.float32,))(widen)
    program = one_op_program("probe_widen_1000")
    exe = pir.Executor(memory_budget=1 << 20)
    (out,) = exe.run(program, feed={"x": np.ones((2, 2), np.float32)}, fetch_list=["out"])
    assert out.shape == (2, 2000) and ran == [2]
    for runner in (exe, pir.Executor(memory_budget=1 << 20)):  # cached, then compiling
        with pytest.raises(ResourceLimitError, match=r"(?s)op #0 probe_widen_1000 .*would "
                                                     r"allocate 1.5 MiB for 'out'"):
            runner.run(program, feed={"x": np.ones((200, 2), np.float32)}, fetch_list=["out"])
    assert ran == [2]


def test_a_persistable_whose_dims_are_large_is_compared_by_value():
    """Dims beyond the small ints (300, 1000) held as declared are accepted, cached or not,
    and one off is refused."""
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 1000], dtype="float32")
    block.create_var(name="w", shape=[300, 1000], dtype="float32", persistable=True)
    block.create_var(name="out", dtype="float32")
    block.append_op("elementwise_add", inputs={"X": ["x"], "Y": ["w"]},
                    outputs={"Out": ["out"]}, attrs={"axis": -1})
    scope, exe = pir.Scope(), pir.Executor()
    scope.var("w").value = pir.LoDTensor(np.ones((300, 1000), np.float32))
    for _ in range(2):
        (out,) = exe.run(program, feed={"x": np.ones((1, 1000), np.float32)},
                         fetch_list=["out"], scope=scope)
        assert out.shape == (300, 1000) and float(out.sum()) == 600000.0
    scope.var("w").value = pir.LoDTensor(np.ones((301, 1000), np.float32))
    with pytest.raises(InvalidProgramError, match=r"holds float32 \[301, 1000\] in the scope, "
                                                  r"but the program declares float32 "
                                                  r"\[300, 1000\]"):
        exe.run(program, feed={"x": np.ones((1, 1000), np.float32)}, fetch_list=["out"],
                scope=scope)
