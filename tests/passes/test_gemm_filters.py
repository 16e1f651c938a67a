"""paddle_ir/passes/gemm_filters.py: 1x1 convolution filters stored with [C, OC] memory."""

import numpy as np

import paddle_ir as pir
from paddle_ir import io, layers
from paddle_ir.passes.gemm_filters import lay_out_gemm_filters
from tests.passes.test_inference import _randomize


def _net():
    """1x1 convolutions with more pixels than filters and fewer, a 3x3 one, a grouped 1x1
    one, a strided 1x1 one and a padded 1x1 one (only the first two are re-laid out)."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        image = layers.data("image", [6, 5, 4], dtype="float32")
        x = layers.conv2d(image, 8, 1, act="relu")  # 20 pixels, 8 filters
        x = layers.conv2d(x, 40, 1)  # 20 pixels, 40 filters
        x = layers.conv2d(x, 40, 3, padding=1, bias_attr=False)
        x = layers.conv2d(x, 8, 1, groups=4)
        x = layers.conv2d(x, 12, 1, stride=2, act="relu")
        out = layers.conv2d(x, 5, 1, padding=1)
    return main, startup, image, out


def _gemm_ready(value: np.ndarray) -> bool:
    return value.reshape(value.shape[0], -1).T.flags.c_contiguous


def _setup(seed=0):
    main, startup, image, out = _net()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(seed)
    _randomize(scope, main, rng)
    feed = {"image": rng.standard_normal((2, 6, 5, 4)).astype(np.float32)}
    return main, exe, scope, feed, out


def test_one_group_1x1_filters_are_laid_out_with_the_same_values_and_results():
    main, exe, scope, feed, out = _setup()
    want = exe.run(main, feed=feed, fetch_list=[out.name], scope=scope)[0]
    names = {op.input("Filter")[0]: op for op in main.global_block().ops if op.type == "conv2d"}
    before = {n: np.array(scope.find_var(n).get_tensor()) for n in names}
    assert lay_out_gemm_filters(main, scope) == 2
    for name, op in names.items():
        value = np.asarray(scope.find_var(name).get_tensor())
        np.testing.assert_array_equal(value, before[name])
        pointwise = (op.attr("groups") == 1 and value.shape[2:] == (1, 1)
                     and op.attr("strides") == [1, 1] and not any(op.attr("paddings")))
        assert _gemm_ready(value) == pointwise, name
        assert value.flags.c_contiguous != pointwise, name
    got = exe.run(main, feed=feed, fetch_list=[out.name], scope=scope)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_a_filter_changed_in_place_after_the_pass_is_seen():
    main, exe, scope, feed, out = _setup(1)
    lay_out_gemm_filters(main, scope)
    first = main.global_block().ops[0]
    assert first.type == "conv2d"
    filt = np.asarray(scope.find_var(first.input("Filter")[0]).get_tensor())
    assert _gemm_ready(filt)
    before = exe.run(main, feed=feed, fetch_list=[first.output("Output")[0]], scope=scope)[0]
    filt *= -2  # in place: no copy of the parameter may hide this
    after = exe.run(main, feed=feed, fetch_list=[first.output("Output")[0]], scope=scope)[0]
    np.testing.assert_allclose(after, -2 * before, rtol=1e-5, atol=1e-5)


def test_training_programs_and_no_scope_are_left_alone():
    main, startup, image, out = _net()
    with pir.program_guard(main, startup):
        loss = layers.mean(out)
        pir.optimizer.SGD(0.1).minimize(loss)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    assert lay_out_gemm_filters(main, scope) == 0
    assert lay_out_gemm_filters(main, None) == 0
    for var in main.global_block().vars.values():
        if var.persistable and scope.find_var(var.name) is not None:
            value = scope.find_var(var.name).get_tensor()
            if hasattr(value, "numpy"):
                assert np.asarray(value).flags.c_contiguous, var.name


def test_load_inference_model_lays_out_unless_told_not_to_optimize(tmp_path):
    main, exe, scope, feed, out = _setup(2)
    want = exe.run(main, feed=feed, fetch_list=[out.name], scope=scope)[0]
    with pir.scope_guard(scope):
        io.save_inference_model(str(tmp_path), ["image"], [out], exe, main_program=main)
    for optimize in (True, False):
        loaded_scope = pir.Scope()
        program, feeds, fetches = io.load_inference_model(str(tmp_path), exe,
                                                          scope=loaded_scope,
                                                          optimize=optimize)
        ready = [_gemm_ready(np.asarray(loaded_scope.find_var(op.input("Filter")[0])
                                        .get_tensor()))
                 for op in program.global_block().ops if op.type in ("conv2d", "fused_conv2d")]
        assert sum(ready) == (2 if optimize else 0)
        got = exe.run(program, feed=feed, fetch_list=fetches, scope=loaded_scope)[0]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
