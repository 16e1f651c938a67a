"""Fluid 1.6+'s fluid.save / fluid.load (MODEL.pdparams, .pdopt, .pdmodel), as PaddleRec's
trainers checkpoint each epoch; load_program_state / set_program_state; Paddle's own
pickled .pdparams refused with what to do."""

import pickle

import numpy as np
import pytest

import paddle_ir.fluid as fluid
from paddle_ir.core.errors import PaddleIRError, TensorFormatError


def build():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 4], dtype="float32")
        y = fluid.data(name="y", shape=[None, 1], dtype="float32")
        hidden = fluid.layers.fc(input=x, size=8, act="relu")
        pred = fluid.layers.fc(input=hidden, size=1)
        test_program = main.clone(for_test=True)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(input=pred, label=y))
        fluid.optimizer.Adam(learning_rate=0.01).minimize(loss)
    return main, startup, test_program, loss, pred


def persistables(program, scope):
    return {v.name: np.array(scope.find_var(v.name).get_tensor())
            for v in program.list_vars() if fluid.io.is_persistable(v)}


def test_save_then_load_restores_parameters_and_optimizer_state(tmp_path):
    main, startup, test_program, loss, pred = build()
    exe = fluid.Executor(fluid.CPUPlace())
    rng = np.random.RandomState(0)
    feed = {"x": rng.rand(8, 4).astype("float32"), "y": rng.rand(8, 1).astype("float32")}
    path = tmp_path / "epoch_1" / "checkpoint"
    trained = fluid.core.Scope()
    with fluid.scope_guard(trained):
        exe.run(startup)
        for _ in range(3):
            exe.run(main, feed=feed, fetch_list=[loss])
        fluid.save(main, str(path))
        saved = persistables(main, trained)
        next_loss = exe.run(main, feed=feed, fetch_list=[loss])[0]
    assert sorted(p.name for p in path.parent.iterdir() if "." in p.name and
                  not p.name.endswith(".names")) == [
        "checkpoint.pdmodel", "checkpoint.pdopt", "checkpoint.pdparams"]
    assert any("moment" in n for n in saved)  # the optimizer state is part of it

    resumed = fluid.core.Scope()
    with fluid.scope_guard(resumed):
        exe.run(startup)
        fluid.load(main, str(path), exe)
        for name, value in saved.items():
            np.testing.assert_array_equal(np.array(resumed.find_var(name).get_tensor()), value)
        # training resumes exactly where it stopped (Adam's moments and step included)
        np.testing.assert_array_equal(exe.run(main, feed=feed, fetch_list=[loss])[0], next_loss)

    # a test clone (no optimizer state) and fluid.io's names load the parameters only
    served = fluid.core.Scope()
    with fluid.scope_guard(served):
        fluid.io.load(test_program, str(path), exe)
        got = exe.run(test_program, feed={"x": feed["x"]}, fetch_list=[pred])[0]
    with fluid.scope_guard(trained):
        fluid.load(main, str(path), exe)
        want = exe.run(test_program, feed={"x": feed["x"]}, fetch_list=[pred])[0]
    np.testing.assert_array_equal(got, want)

    state = fluid.io.load_program_state(str(path))
    assert set(state) == set(saved)
    np.testing.assert_array_equal(state["fc_0.w_0"], saved["fc_0.w_0"])
    fresh = fluid.core.Scope()
    with fluid.scope_guard(fresh):
        fluid.io.set_program_state(test_program, state)
        np.testing.assert_array_equal(
            exe.run(test_program, feed={"x": feed["x"]}, fetch_list=[pred])[0], want)
    only = fluid.io.load_program_state(str(path), var_list=["fc_1.b_0"])
    assert list(only) == ["fc_1.b_0"]


def test_a_pickle_written_by_paddle_is_refused(tmp_path):
    main, startup, *_ = build()
    (tmp_path / "m.pdparams").write_bytes(pickle.dumps({"fc_0.w_0": [1.0]}, protocol=2))
    with pytest.raises(TensorFormatError, match=r"m.pdparams is a Python pickle .*never "
                                                 r"unpickles") as info:
        fluid.load(main, str(tmp_path / "m"))
    assert "save_persistables" in info.value.hint
    with pytest.raises(TensorFormatError, match="Python pickle"):
        fluid.io.load_program_state(str(tmp_path / "m"))


def test_missing_files_and_mismatched_state_are_named(tmp_path):
    main, startup, test_program, *_ = build()
    with pytest.raises(TensorFormatError, match=r"nothing.pdparams does not exist; "
                                                 r"fluid.save\(program"):
        fluid.load(main, str(tmp_path / "nothing"))
    with pytest.raises(TensorFormatError, match="names a directory"):
        fluid.save(main, str(tmp_path) + "/")
    with fluid.scope_guard(fluid.core.Scope()), pytest.raises(
            PaddleIRError, match=r"'fc_0.w_0' is declared \[4, 8\] float32, but the state "
                                 r"holds \[3\] float32"):
        fluid.io.set_program_state(test_program, {"fc_0.w_0": np.zeros(3, "float32")})


def test_a_persistable_fluid_data_input_is_not_saved(tmp_path):
    """Fluid's fluid.save leaves fluid.data inputs out even when a program makes them
    persistable (PaddleNLP's language model feeds its initial LSTM state so)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 4], dtype="float32")
        state = fluid.data(name="init_state", shape=[None, 4], dtype="float32")
        state.persistable = True
        old_style = fluid.layers.data(name="old", shape=[4], dtype="float32")
        old_style.persistable = True
        loss = fluid.layers.mean(fluid.layers.fc(x + state + old_style, 1))
        fluid.optimizer.SGD(0.1).minimize(loss)
    assert x.need_check_feed and state.need_check_feed and not old_style.need_check_feed
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.core.Scope()
    ones = np.ones((2, 4), "float32")
    with fluid.scope_guard(scope):
        exe.run(startup)
        exe.run(main, feed={"x": ones, "init_state": ones, "old": ones})
        if scope.find_var("old") is None or not scope.find_var("old").is_initialized():
            # a layers.data input is saved as Fluid does: give it its fed value
            scope.var("old").get_tensor().set(ones, fluid.CPUPlace())
        fluid.save(main, str(tmp_path / "m"))
    state_dict = fluid.io.load_program_state(str(tmp_path / "m"))
    assert "init_state" not in state_dict and "x" not in state_dict
    assert "old" in state_dict
    assert any(name.startswith("fc_") for name in state_dict)
