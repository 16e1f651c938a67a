"""Checkpoint, then load into an inference program that declares only a subset of the
persistables (no optimizer state, no label branch), as Fluid programs do; and the other
savers: save_params/load_params, save_vars/load_vars with vars= or predicate= and filename=."""

import os

import numpy as np
import pytest

import paddle_ir as fluid


def net(with_loss: bool):
    image = fluid.layers.data(name="image", shape=[6], dtype="float32")
    hidden = fluid.layers.fc(input=image, size=8, act="relu",
                             param_attr=fluid.ParamAttr(
                                 name="hidden_w", learning_rate=1.0,
                                 regularizer=fluid.regularizer.L2DecayRegularizer(
                                     regularization_coeff=1e-4)))
    predict = fluid.layers.fc(input=hidden, size=3, act="softmax", bias_attr=True)
    if not with_loss:
        return image, predict, None, None
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    avg_cost = fluid.layers.mean(fluid.layers.cross_entropy(input=predict, label=label))
    return image, predict, label, avg_cost


def batches(count=30, seed=0):
    rng = np.random.RandomState(seed)
    for _ in range(count):
        x = rng.randn(16, 6).astype(np.float32)
        yield x, (x[:, :3].argmax(axis=1)).reshape(-1, 1).astype(np.int64)


def train(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        image, predict, label, avg_cost = net(True)
        fluid.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(avg_cost)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for x, y in batches():
            exe.run(main, feed={"image": x, "label": y}, fetch_list=[avg_cost])
    return main, scope, exe, predict


def inference_program():
    infer, infer_startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(infer, infer_startup):
        _, predict, _, _ = net(False)
    return infer, predict


def test_checkpoint_then_inference_program_loads_the_subset(tmp_path):
    main, scope, exe, predict = train(tmp_path)
    x = next(batches(1, seed=3))[0]
    want, = exe.run(main.clone(for_test=True), feed={"image": x, "label": np.zeros((16, 1),
                                                                                   np.int64)},
                    fetch_list=[predict], scope=scope)
    ckpt = tmp_path / "ckpt"
    with fluid.scope_guard(scope):
        saved = fluid.io.save_persistables(exe, str(ckpt), main_program=main, filename=None)
    assert any(n.endswith("velocity_0") for n in saved)  # optimizer state is checkpointed
    # One file per variable at the top level, as Fluid, beside the staged save's own
    # CURRENT, LOCK and generation (core/savedir.py), which holds the same files.
    generation = (ckpt / "CURRENT").read_text().strip()
    assert sorted(os.listdir(ckpt)) == sorted(saved + ["CURRENT", "LOCK", generation])
    assert sorted(os.listdir(ckpt / generation)) == sorted(saved)

    infer, infer_predict = inference_program()
    with fluid.scope_guard(fluid.core.Scope()):
        loaded = fluid.io.load_persistables(exe, str(ckpt), main_program=infer)
        assert sorted(loaded) == ["fc_0.b_0", "fc_1.b_0", "fc_1.w_0", "hidden_w"]
        got, = exe.run(infer, feed={"image": x}, fetch_list=[infer_predict])
    np.testing.assert_array_equal(got, want)

    # The combined default (the project's checkpoint) loads into the subset program too:
    # its .names file says which record is which variable.
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(tmp_path / "combined"), main_program=main)
    with fluid.scope_guard(fluid.core.Scope()):
        loaded = fluid.io.load_persistables(exe, str(tmp_path / "combined"), main_program=infer)
        assert sorted(loaded) == ["fc_0.b_0", "fc_1.b_0", "fc_1.w_0", "hidden_w"]
        got, = exe.run(infer, feed={"image": x}, fetch_list=[infer_predict])
    np.testing.assert_array_equal(got, want)
    # Without the names (an older checkpoint, a Paddle file) the records cannot be told
    # apart, and the error says what to do.
    for leftover in (tmp_path / "combined").rglob("persistables.names"):
        leftover.unlink()
    with pytest.raises(fluid.PaddleIRError, match=r"(?s)more variables than the program "
                                                  r"declares.*without its .names file"):
        fluid.io.load_persistables(exe, str(tmp_path / "combined"), main_program=infer,
                                   scope=fluid.core.Scope())
    fresh = fluid.core.Scope()
    fluid.io.load_persistables(exe, str(tmp_path / "combined"), main_program=main, scope=fresh)
    np.testing.assert_array_equal(np.array(fresh.find_var("hidden_w").get_tensor()),
                                  np.array(scope.find_var("hidden_w").get_tensor()))


@pytest.mark.parametrize("filename", [None, "params_combined"])
def test_save_params_and_vars_round_trip(tmp_path, filename):
    main, scope, exe, predict = train(tmp_path)
    params = sorted(p.name for p in main.global_block().all_parameters())
    with fluid.scope_guard(scope):
        assert sorted(fluid.io.save_params(exe, str(tmp_path / "p"), main, filename)) == params
        fluid.io.save_vars(exe, str(tmp_path / "v"), main, vars=["hidden_w"], filename=filename)
        fluid.io.save_vars(exe, str(tmp_path / "pred"), main,
                           predicate=lambda v: v.persistable and "velocity" in v.name,
                           filename=filename)
    for directory, names in (("p", params), ("v", ["hidden_w"])):
        fresh = fluid.core.Scope()
        if directory == "p":
            fluid.io.load_params(exe, str(tmp_path / directory), main, filename, scope=fresh)
        else:
            fluid.io.load_vars(exe, str(tmp_path / directory), main,
                               vars=[main.global_block().var("hidden_w")], filename=filename,
                               scope=fresh)
        for name in names:
            np.testing.assert_array_equal(np.array(fresh.find_var(name).get_tensor()),
                                          np.array(scope.find_var(name).get_tensor()))
    fresh = fluid.core.Scope()
    loaded = fluid.io.load_vars(exe, str(tmp_path / "pred"), main, filename=filename,
                                predicate=lambda v: v.persistable and "velocity" in v.name,
                                scope=fresh)
    assert loaded and all("velocity" in n for n in loaded)


def test_saver_errors(tmp_path):
    main, scope, exe, _ = train(tmp_path)
    infer, _ = inference_program()
    with pytest.raises(fluid.PaddleIRError, match="is not a directory of saved variables"):
        fluid.io.load_params(exe, str(tmp_path / "nothing"), infer)
    with fluid.scope_guard(scope):
        fluid.io.save_vars(exe, str(tmp_path / "one"), main, vars=["hidden_w"])
    with pytest.raises(fluid.PaddleIRError, match=r"holds no saved 'fc_0.b_0'"):
        fluid.io.load_params(exe, str(tmp_path / "one"), infer, scope=fluid.core.Scope())
    other, _ = fluid.Program(), None
    with fluid.unique_name.guard(), fluid.program_guard(other, fluid.Program()):
        fluid.layers.fc(fluid.layers.data("image", [6]), size=5, param_attr="hidden_w")
    with pytest.raises(fluid.PaddleIRError, match=r"holds float32 \[6, 8\], but the program "
                                                  r"declares float32 \[6, 5\]"):
        fluid.io.load_vars(exe, str(tmp_path / "one"), other, vars=["hidden_w"],
                           scope=fluid.core.Scope())
    with pytest.raises(fluid.PaddleIRError, match="is not a variable of the program"):
        fluid.io.save_vars(exe, str(tmp_path / "x"), main, vars=["nope"], scope=scope)
    with pytest.raises(fluid.PaddleIRError, match="has no value in the scope"):
        fluid.io.save_params(exe, str(tmp_path / "x"), main, scope=fluid.core.Scope())
    # Bug regression: a missing model directory is a project error, not FileNotFoundError.
    with pytest.raises(fluid.PaddleIRError, match="is not a directory: there is no inference "
                                                  "model to load"):
        fluid.io.load_inference_model(str(tmp_path / "no_model"), exe)


def test_inference_model_file_names_as_fluid_passes_them(tmp_path):
    main, scope, exe, predict = train(tmp_path)
    x = next(batches(1, seed=4))[0]
    with fluid.scope_guard(scope):
        # Fluid's positional order: ..., executor, main_program, model_filename, params_filename
        fluid.io.save_inference_model(str(tmp_path / "a"), ["image"], [predict], exe, main,
                                      None, None)
        fluid.io.save_inference_model(str(tmp_path / "b"), ["image"], [predict], exe, main,
                                      "__model__", "__params__", export_for_deployment=True)
        with pytest.raises(fluid.PaddleIRError, match=r"program_only=True\) is not supported"):
            fluid.io.save_inference_model(str(tmp_path / "c"), ["image"], [predict], exe, main,
                                          program_only=True)
    # the files Fluid names sit at the top (beside the committed generation, docs/architecture.md)
    assert {"__model__", "__params__"} <= set(os.listdir(tmp_path / "b"))
    outs = []
    for args in ((str(tmp_path / "a"), exe, None, None),
                 (str(tmp_path / "b"), exe, "__model__", "__params__")):
        with fluid.scope_guard(fluid.core.Scope()):
            program, feeds, fetches = fluid.io.load_inference_model(*args)
            outs.append(exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)[0])
    np.testing.assert_array_equal(outs[0], outs[1])
