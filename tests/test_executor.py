"""The executor: feeds, fetches, scopes, caching, and every error path by message."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import (
    FeedError,
    InvalidProgramError,
    KernelNotFoundError,
    MissingVariableError,
    NanInfError,
)
from paddle_ir.proto import framework_pb2 as pb


def small_program():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 3])
        b = main.global_block().create_parameter("b", [3])
        startup_b = startup.global_block().create_var(name="b", shape=[3], persistable=True)
        pir.initializer.Constant(2.0)(startup_b, startup.global_block())
        y = pir.layers.scale(x + b, 3.0)
    return main, startup, x, y


def test_startup_then_main_with_persistables_in_the_root_scope():
    main, startup, x, y = small_program()
    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    assert scope.find_var("b").kind == "LoDTensor"
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    (out,) = exe.run(main, feed={"x": xv}, fetch_list=[y], scope=scope)
    np.testing.assert_allclose(out, (xv + 2) * 3)
    # temporaries of the run do not reach the scope
    assert scope.find_var(y.name) is None and scope.find_var("x") is None


def test_second_run_reuses_the_cached_plan():
    main, startup, x, y = small_program()
    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": np.ones((2, 3), np.float32)}, fetch_list=[y], scope=scope)
    plan = exe.last_plan
    (out,) = exe.run(main, feed={"x": np.zeros((5, 3), np.float32)}, fetch_list=[y],
                     scope=scope)
    assert exe.last_plan is plan
    np.testing.assert_allclose(out, np.full((5, 3), 6.0))
    main.global_block().create_var(name="unused")  # a changed program gets a new plan
    exe.run(main, feed={"x": np.zeros((5, 3), np.float32)}, fetch_list=[y], scope=scope)
    assert exe.last_plan is not plan


def test_a_cached_plan_shares_each_runs_lod_and_no_lod_without_one():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 1], lod_level=1)
        y = pir.layers.scale(pir.layers.scale(x, 2.0), 3.0)
        z = pir.layers.scale(pir.layers.data("plain", [-1, 1]), 2.0)
    exe, scope = pir.Executor(), pir.Scope()
    for lengths in ([2, 1], [1, 1, 1], [3]):
        feed = {"x": pir.create_lod_tensor(np.ones((3, 1), np.float32), [lengths]),
                "plain": np.ones((3, 1), np.float32)}
        out, plain = exe.run(main, feed=feed, fetch_list=[y, z], scope=scope,
                             return_numpy=False)
        assert out.recursive_sequence_lengths() == [lengths]
        assert plain.lod() == []
    np.testing.assert_allclose(out.numpy(), np.full((3, 1), 6.0))


def test_fetch_by_name_and_return_lod_tensor():
    main, startup, x, y = small_program()
    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    (t,) = exe.run(main, feed={"x": np.ones((1, 3), np.float32)}, fetch_list=[y.name],
                   scope=scope, return_numpy=False)
    assert isinstance(t, pir.LoDTensor) and t.shape == (1, 3)


def test_fetched_persistables_are_snapshots():
    main, startup, x, y = small_program()
    scope = pir.Scope()
    exe = pir.Executor()
    exe.run(startup, scope=scope)
    (b,) = exe.run(main, feed={"x": np.ones((1, 3), np.float32)}, fetch_list=["b"],
                   scope=scope)
    b[:] = 100
    assert scope.find_var("b").get_tensor().numpy()[0] == 2.0


def test_missing_parameter_says_run_the_startup_program():
    main, startup, x, y = small_program()
    with pytest.raises(MissingVariableError,
                       match=r"(?s)\[MissingVariable\] block 0, op #0 elementwise_add.*"
                             r"reads 'b', which has no value.*did you run the startup program"):
        pir.Executor().run(main, feed={"x": np.ones((1, 3), np.float32)}, fetch_list=[y],
                           scope=pir.Scope())


def test_missing_feed_names_the_variable():
    main, startup, x, y = small_program()
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    with pytest.raises(MissingVariableError, match=r"reads 'x', which has no value.*"):
        pir.Executor().run(main, fetch_list=[y], scope=scope)


@pytest.mark.parametrize("value, pattern", [
    (np.ones((2, 3), np.float64), r"feed 'x' must have dtype float32, got float64"),
    (np.ones((2, 4), np.float32), r"feed 'x' has shape \[2, 4\], but the variable is declared "
                                  r"with shape \[-1, 3\]"),
    (np.ones((3,), np.float32), r"feed 'x' has shape \[3\]"),
    ("text", r"feed 'x' must be an ndarray"),
])
def test_bad_feeds(value, pattern):
    main, startup, x, y = small_program()
    with pytest.raises(FeedError, match=pattern):
        pir.Executor().run(main, feed={"x": value}, fetch_list=[y], scope=pir.Scope())


def test_feed_of_unknown_variable():
    main, startup, x, y = small_program()
    with pytest.raises(FeedError, match="feed 'z' is not a variable"):
        pir.Executor().run(main, feed={"z": np.ones(1)}, scope=pir.Scope())


def test_feed_lod_level_mismatch_names_both_numbers():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        pir.layers.data("words", [-1, 1], dtype="int64", lod_level=1)
    with pytest.raises(FeedError, match=r"(?s)feed 'words' carries 0 LoD levels, but the "
                                        r"variable is declared with lod_level=1.*"
                                        r"create_lod_tensor"):
        pir.Executor().run(main, feed={"words": np.ones((3, 1), np.int64)}, scope=pir.Scope())
    two = pir.create_lod_tensor(np.ones((3, 1), np.int64), [[1], [3]])
    with pytest.raises(FeedError, match="carries 2 LoD levels.*lod_level=1"):
        pir.Executor().run(main, feed={"words": two}, scope=pir.Scope())


def _parsed_with(mutate):
    main, startup, x, y = small_program()
    desc = pb.ProgramDesc()
    desc.CopyFrom(main.desc)
    mutate(desc)
    return pir.Program.parse(desc.SerializeToString()), y


def test_unknown_op_in_a_parsed_program():
    program, y = _parsed_with(lambda d: setattr(d.blocks[0].ops[1], "type", "frobnicate"))
    with pytest.raises(InvalidProgramError, match=r"(?s)op #1 frobnicate.*unknown op type "
                                                  r"'frobnicate'.*paddle-ir ops"):
        pir.Executor().run(program, feed={"x": np.ones((1, 3), np.float32)},
                           scope=_startup_scope())


def _startup_scope():
    scope = pir.Scope()
    scope.var("b").set(pir.LoDTensor(np.full(3, 2.0, np.float32)))
    return scope


def test_wrong_attribute_type_in_a_parsed_program():
    def mutate(d):
        attr = next(a for a in d.blocks[0].ops[1].attrs if a.name == "scale")
        attr.type = pb.STRING
        attr.s = "three"

    program, y = _parsed_with(mutate)
    with pytest.raises(InvalidProgramError, match=r"attribute 'scale' of scale must be float "
                                                  r"\(AttrType FLOAT\), but the program stores "
                                                  r"STRING"):
        pir.Executor().run(program, feed={"x": np.ones((1, 3), np.float32)},
                           fetch_list=[y.name], scope=_startup_scope())


def test_wrong_attribute_type_at_build_time():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [3], append_batch_size=False)
        with pytest.raises(InvalidProgramError, match=r"attribute 'scale' of scale must be a "
                                                      r"float, got str 'big'"):
            pir.default_main_program().global_block().append_op(
                "scale", inputs={"X": x}, outputs={"Out": x}, attrs={"scale": "big"})


def test_undefined_variable_at_build_time_and_in_a_parsed_program():
    with pir.program_guard(pir.Program(), pir.Program()):
        with pytest.raises(InvalidProgramError, match="variable 'ghost' is not declared"):
            pir.default_main_program().global_block().append_op(
                "scale", inputs={"X": "ghost"}, outputs={"Out": "ghost2"})

    def mutate(d):
        d.blocks[0].ops[1].inputs[0].arguments[0] = "ghost"

    program, y = _parsed_with(mutate)
    with pytest.raises(MissingVariableError, match="reads 'ghost', which has no value"):
        pir.Executor().run(program, feed={"x": np.ones((1, 3), np.float32)},
                           fetch_list=[y.name], scope=_startup_scope())


def test_unknown_slot_and_missing_input_at_build_time():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [3], append_batch_size=False)
        block = pir.default_main_program().global_block()
        with pytest.raises(InvalidProgramError, match=r"scale has no input slot 'Y'; its "
                                                      r"inputs are \['X'\]"):
            block.append_op("scale", inputs={"X": x, "Y": x}, outputs={"Out": x})
        with pytest.raises(InvalidProgramError, match="input X of scale is required"):
            block.append_op("scale", outputs={"Out": x})
        with pytest.raises(InvalidProgramError, match="unknown op type 'nope'"):
            block.append_op("nope", inputs={"X": x})


def test_no_kernel_for_a_dtype_lists_the_kernels():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [2], dtype="bool", append_batch_size=False)
        y = pir.layers.scale(x, 2.0)
    with pytest.raises(KernelNotFoundError, match=r"(?s)no kernel of scale for key "
                                                  r"\(dense; bool; cpu\); available kernels: "
                                                  r".*\(dense; float32; cpu\)"):
        pir.Executor().run(main, feed={"x": np.ones(2, bool)}, fetch_list=[y],
                           scope=pir.Scope())


def test_check_nan_inf_names_the_first_op():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        a = pir.layers.data("a", [2], append_batch_size=False)
        b = pir.layers.data("b", [2], append_batch_size=False)
        q = a / b
        out = pir.layers.scale(q, 2.0)
    exe = pir.Executor(check_nan_inf=True)
    feed = {"a": np.array([1, 0], np.float32), "b": np.array([1, 0], np.float32)}
    with pytest.raises(NanInfError, match=r"(?s)op #0 elementwise_div.*contains NaN"):
        with np.errstate(all="ignore"):
            exe.run(main, feed=feed, fetch_list=[out], scope=pir.Scope())


def test_a_cached_plan_refuses_shapes_its_inference_refuses():
    """After a good run, mismatched shapes meet the op's InferShape (the plan's shape
    guard), not the kernel: the error a fresh Executor gives, against the op."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        a = pir.layers.data("a", [-1])
        b = pir.layers.data("b", [-1])
        out = a + b
    exe = pir.Executor()
    exe.run(main, feed={"a": np.ones(3, np.float32), "b": np.ones(3, np.float32)},
            fetch_list=[out], scope=pir.Scope())
    bad = {"a": np.ones(3, np.float32), "b": np.ones(4, np.float32)}
    with pytest.raises(pir.PaddleIRError) as fresh:
        pir.Executor().run(main, feed=bad, fetch_list=[out], scope=pir.Scope())
    with pytest.raises(pir.PaddleIRError, match=r"(?s)\[ShapeInferenceError\] block 0, op #0 "
                                                 r"elementwise_add.*do not broadcast") as cached:
        exe.run(main, feed=bad, fetch_list=[out], scope=pir.Scope())
    assert str(cached.value) == str(fresh.value)


def test_only_cpu_places():
    with pytest.raises(pir.PaddleIRError, match="place 'npu:0' is not a place; paddle-ir runs "
                                                "on the CPU"):
        pir.Executor("npu:0")


def test_a_run_frees_each_temporary_after_its_last_reader():
    import tracemalloc

    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        h = x = pir.layers.data("x", [-1])
        for _ in range(10):
            h = pir.layers.scale(h, 2.0)
        mid = h
        for _ in range(10):
            h = pir.layers.scale(h, 0.5)
    exe, scope = pir.Executor(), pir.Scope()
    xv = np.ones(2**20, np.float32)  # 4 MiB per temporary
    feed = {"x": xv}
    exe.run(main, feed=feed, fetch_list=[h], scope=scope)
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        out, kept = exe.run(main, feed=feed, fetch_list=[h, mid], scope=scope)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(out, xv)
    np.testing.assert_array_equal(kept, xv * 1024)  # a fetched temporary is kept
    assert peak - base <= 4 * xv.nbytes  # not the 20 temporaries
    assert x.name in exe.last_plan.index
