"""Load-time passes on inference programs (paddle_ir/passes/inference.py)."""

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import io, layers
from paddle_ir.passes.inference import is_inference, optimize_inference
from paddle_ir.proto import framework_pb2 as pb
from tests.cli.test_cli import ok
from tests.paddle_helpers import feeds as fixture_feeds

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "paddle"
PADDLE_MODELS = sorted(p.name for p in FIXTURES.iterdir() if (p / "model.pdmodel").exists())


def _ops(program) -> Counter:
    return Counter(op.type for op in program.global_block().ops)


def _randomize(scope, program, rng) -> None:
    """Parameters away from their initial values (BN statistics especially: mean 0, var 1
    would make the fold look right even if it used the wrong statistic)."""
    variances = {op.input("Variance")[0] for op in program.global_block().ops
                 if op.type == "batch_norm"}
    for var in program.global_block().vars.values():
        if not var.persistable or scope.find_var(var.name) is None:
            continue
        value = np.asarray(scope.find_var(var.name).get_tensor())
        if not np.issubdtype(value.dtype, np.floating):
            continue
        fresh = (rng.uniform(0.5, 1.5, value.shape) if var.name in variances
                 else rng.standard_normal(value.shape))
        scope.find_var(var.name).get_tensor().set(fresh.astype(value.dtype))


def _vision_net(dropout_impl="downgrade_in_infer"):
    """conv -> BN -> relu -> depthwise conv -> BN -> conv -> affine_channel -> dropout ->
    scale(1) -> assign -> pooled fc, every kind of rewrite in one program."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        image = layers.data("image", [3, 9, 8], dtype="float32")
        x = layers.conv2d(image, 8, 3, padding=1, bias_attr=False)
        x = layers.batch_norm(x, act="relu")
        x = layers.conv2d(x, 8, 3, padding=1, groups=8, bias_attr=False)
        x = layers.batch_norm(x, epsilon=1e-3)
        x = layers.conv2d(x, 6, 1, bias_attr=False)
        scale = layers.create_parameter([6], "float32")
        bias = layers.create_parameter([6], "float32")
        x = layers.affine_channel(x, scale, bias)
        x = layers.dropout(x, 0.3, dropout_implementation=dropout_impl)
        x = layers.scale(x, 1.0)
        x = layers.assign(x)
        x = layers.pool2d(x, pool_type="avg", global_pooling=True)
        out = layers.fc(x, 4)
    return main, startup, image, out


def _saved(tmp_path, net=_vision_net, **kwargs):
    main, startup, image, out = net(**kwargs)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    _randomize(scope, main, np.random.default_rng(5))
    io.save_inference_model(str(tmp_path / "model"), ["image"], [out], exe, main_program=main,
                            scope=scope)
    return str(tmp_path / "model")


def _load_both(path):
    exe = pir.Executor()
    plain, optimized = pir.Scope(), pir.Scope()
    p0, feeds, fetch0 = io.load_inference_model(path, exe, scope=plain, optimize=False)
    p1, _, fetch1 = io.load_inference_model(path, exe, scope=optimized)
    return exe, (p0, plain, fetch0), (p1, optimized, fetch1), feeds


def _close(got, want, rtol=1e-5):
    """Exact to float rounding: within rtol of the output's largest magnitude."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= rtol * max(np.abs(want).max(), 1e-30)


@pytest.mark.parametrize("impl", ["downgrade_in_infer", "upscale_in_train"])
def test_every_rewrite_keeps_the_results(tmp_path, impl):
    path = _saved(tmp_path, dropout_impl=impl)
    exe, (p0, s0, f0), (p1, s1, f1), feeds = _load_both(path)
    before, after = _ops(p0), _ops(p1)
    assert before["batch_norm"] == 2 and before["affine_channel"] == 1
    assert after["batch_norm"] == after["affine_channel"] == after["dropout"] == 0
    assert after["assign"] == 0
    # downgrade_in_infer's X * (1 - p) is the one scale left; upscale_in_train leaves none
    assert after["scale"] == (1 if impl == "downgrade_in_infer" else 0)
    # the folded biases (and the first conv's relu) go into the three fused convolutions
    assert after["fused_conv2d"] == 3 and after["conv2d"] == after["depthwise_conv2d"] == 0
    assert after["relu"] == before["relu"] - 1
    # the classifier's mul + bias add: one fc
    assert before["mul"] == after["fc"] == 1 and after["mul"] == after["elementwise_add"] == 0
    image = np.random.default_rng(1).standard_normal((3, 3, 9, 8)).astype(np.float32)
    want = exe.run(p0, feed={feeds[0]: image}, fetch_list=f0, scope=s0)[0]
    got = exe.run(p1, feed={feeds[0]: image}, fetch_list=f1, scope=s1)[0]
    _close(got, want)
    # The folded filters replace the originals in the scope: no parameter is kept twice.
    names = set(s1.local_var_names())
    persistable = {v.name for v in p1.global_block().vars.values() if v.persistable}
    assert names == persistable
    assert sum(n.endswith(".bn_folded") for n in names) == 3


def test_folding_against_numpy_batch_norm(tmp_path):
    """The folded filter and bias against the textbook batch_norm formula, written here."""
    path = _saved(tmp_path)
    _, (p0, s0, _), (p1, s1, _), _ = _load_both(path)
    conv = next(op for op in p0.global_block().ops if op.type == "conv2d")
    bn = next(op for op in p0.global_block().ops if op.type == "batch_norm")

    def value(scope, name):
        return np.asarray(scope.find_var(name).get_tensor()).astype(np.float64)

    w = value(s0, conv.input("Filter")[0])
    gamma, beta, mean, var = (value(s0, bn.input(s)[0])
                              for s in ("Scale", "Bias", "Mean", "Variance"))
    s = gamma / np.sqrt(var + bn.attr("epsilon"))
    # the folded conv, its bias and the relu after the batch_norm, fused into one op
    fused = next(op for op in p1.global_block().ops if op.type == "fused_conv2d")
    np.testing.assert_allclose(value(s1, fused.input("Filter")[0]),
                               w * s[:, None, None, None], rtol=1e-6)
    np.testing.assert_allclose(value(s1, fused.input("Bias")[0]), beta - mean * s, rtol=1e-6,
                               atol=1e-7)
    assert fused.attr("fuse_activation") == "relu" and fused.input("Input") == conv.input(
        "Input")


def _in_float64(program, scope):
    """The program with every float32 variable and dtype attribute made float64, and a
    scope holding its values in float64: the same math, rounded far less."""
    desc = pb.ProgramDesc()
    desc.ParseFromString(program.serialize())
    for block in desc.blocks:
        for var in block.vars:
            if var.HasField("lod_desc") and var.lod_desc.tensor.data_type == pb.FP32:
                var.lod_desc.tensor.data_type = pb.FP64
        for op in block.ops:
            for attr in op.attrs:
                if attr.name in ("dtype", "in_dtype", "out_dtype") and attr.i == pb.FP32:
                    attr.i = pb.FP64
    wide = pir.Scope()
    for name in scope.local_var_names():
        value = np.asarray(scope.find_var(name).value.numpy())
        wide.var(name).value = pir.LoDTensor(value.astype(np.float64)
                                             if value.dtype == np.float32 else value)
    return pir.Program.parse(desc.SerializeToString()), wide


def _wide(feed):
    return {k: np.asarray(v, np.float64) if np.asarray(v).dtype == np.float32 else v
            for k, v in feed.items()}


@pytest.mark.parametrize("name", PADDLE_MODELS)
def test_paddle_models_agree_with_and_without_the_passes(name):
    """The passes cost no accuracy. Where the float32 results differ (a deep net: folding
    a batch_norm changes the filter's rounding), the optimized result is measured against
    the same program run in float64 and must be as close to it as the unoptimized one
    (mobilenet_v1: 9.8e-6 against 1.1e-5 of the output's largest magnitude)."""
    path = str(FIXTURES / name / "model.pdmodel")
    exe, (p0, s0, f0), (p1, s1, f1), feeds = _load_both(path)
    feed = fixture_feeds(name)
    want = exe.run(p0, feed=feed, fetch_list=f0, scope=s0)
    got = exe.run(p1, feed=feed, fetch_list=f1, scope=s1)
    truth = None
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        if not np.issubdtype(w.dtype, np.floating):
            np.testing.assert_array_equal(g, w)
            continue
        scale = max(np.abs(w).max(), 1e-30)
        if np.abs(g.astype(np.float64) - w).max() <= 1e-5 * scale:
            continue
        if truth is None:
            p64, s64 = _in_float64(p0, s0)
            truth = exe.run(p64, feed=_wide(feed), fetch_list=[v.name for v in f0], scope=s64)
        t = np.asarray(truth[k], np.float64)
        plain, optimized = np.abs(w - t).max(), np.abs(g - t).max()
        assert optimized <= max(1.5 * plain, 1e-6 * scale), (name, optimized, plain)


def test_mobilenet_fixture_folds_every_batch_norm():
    exe, (p0, _, _), (p1, _, _), _ = _load_both(str(FIXTURES / "mobilenet_v1" / "model.pdmodel"))
    assert _ops(p0)["batch_norm"] == 27 and _ops(p1)["batch_norm"] == 0


def test_training_programs_are_untouched():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        image = layers.data("image", [3, 6, 6], dtype="float32")
        x = layers.batch_norm(layers.conv2d(image, 4, 3, bias_attr=False))
        x = layers.dropout(layers.scale(x, 1.0), 0.5)
        loss = layers.mean(x)
        before = main.serialize()
        assert not is_inference(main)  # batch_norm and dropout in training mode
        assert optimize_inference(main) is main and main.serialize() == before
        pir.optimizer.SGD(0.1).minimize(loss)
    assert not is_inference(main)
    before = main.serialize()
    assert optimize_inference(main, pir.Scope()) is main and main.serialize() == before


def _conv_bn_program(**bn):
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        image = layers.data("image", [2, 5, 5], dtype="float32")
        conv = layers.conv2d(image, 3, 3, bias_attr=False)
        out = layers.batch_norm(conv, is_test=True, **bn)
    return main, startup, conv, out


def test_what_must_stay_is_not_folded():
    # the conv's output is fetched (kept): the batch_norm stays
    main, _, conv, out = _conv_bn_program()
    test = main.clone(for_test=True)
    assert _ops(optimize_inference(test, keep=[conv.name, out.name]))["batch_norm"] == 1
    assert _ops(optimize_inference(test, keep=[out.name]))["batch_norm"] == 0
    # channels-last batch_norm: not folded into an NCHW filter
    main, _, _, out = _conv_bn_program(data_layout="NHWC")
    assert _ops(optimize_inference(main, keep=[out.name]))["batch_norm"] == 1
    # the filter is shared with a second convolution: folding would change that one too
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        image = layers.data("image", [2, 5, 5], dtype="float32")
        shared = pir.ParamAttr(name="shared_w")
        a = layers.batch_norm(layers.conv2d(image, 2, 3, param_attr=shared, bias_attr=False),
                              is_test=True)
        b = layers.conv2d(image, 2, 3, param_attr=shared, bias_attr=False)
    assert _ops(optimize_inference(main, keep=[a.name, b.name]))["batch_norm"] == 1


def test_identity_whose_output_is_fetched_or_whose_input_changes_later_stays():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [4], dtype="float32")
        y = layers.scale(x, 1.0)
        z = layers.scale(y, 2.0)
    assert _ops(optimize_inference(main, keep=[y.name, z.name]))["scale"] == 2
    assert _ops(optimize_inference(main, keep=[z.name]))["scale"] == 1
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [4], dtype="float32")
        copy = layers.assign(x)
        layers.assign(layers.scale(x, 3.0), output=x)  # x overwritten after the copy
        z = layers.scale(copy, 2.0)
    optimized = optimize_inference(main, keep=[z.name])
    assert _ops(optimized)["assign"] == 2
    exe = pir.Executor()
    feed = {"x": np.arange(8, dtype=np.float32).reshape(2, 4)}
    np.testing.assert_array_equal(
        exe.run(optimized, feed=dict(feed), fetch_list=[z.name], scope=pir.Scope())[0],
        feed["x"] * 2)


def test_cli_run_optimizes_unless_told_and_dump_shows_it(tmp_path):
    path = _saved(tmp_path)
    np.savez(tmp_path / "feeds.npz",
             image=np.random.default_rng(2).standard_normal((2, 3, 9, 8)).astype(np.float32))
    for flag in ([], ["--no-optimize"]):
        ok("run", path, "--feeds", tmp_path / "feeds.npz", "--out",
           tmp_path / f"out{len(flag)}.npz", *flag)
    got, want = np.load(tmp_path / "out0.npz"), np.load(tmp_path / "out1.npz")
    assert list(got) == list(want)
    for key in got:
        _close(got[key], want[key])
    assert "batch_norm" in ok("dump", path)
    shown = ok("dump", path, "--optimized")
    assert "batch_norm(" not in shown and "affine_channel(" not in shown
    assert ".bn_folded" in shown


@pytest.mark.parametrize("model", ["mobilenet_v3_small", "resnet18"])
def test_bench_zoo_models_agree_with_and_without_the_passes(tmp_path, model):
    """The benchmark's networks (bench/zoo_models.py), every batch_norm folded."""
    from bench import zoo_models

    path = zoo_models.build(model, str(tmp_path / model))
    exe, (p0, s0, f0), (p1, s1, f1), feeds = _load_both(path)
    assert _ops(p0)["batch_norm"] > 0 and _ops(p1)["batch_norm"] == 0
    image = np.load(tmp_path / model / "feeds.npz")["image"]
    want = exe.run(p0, feed={feeds[0]: image}, fetch_list=f0, scope=s0)[0]
    got = exe.run(p1, feed={feeds[0]: image}, fetch_list=f1, scope=s1)[0]
    _close(got, want)


def test_a_chain_of_identities_collapses_to_its_input():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [4], dtype="float32")
        y = x
        for k in range(30):
            y = layers.assign(y) if k % 3 else layers.scale(y, 1.0)
            if k % 10 == 9:
                y = layers.dropout(y, 0.25, is_test=True,
                                   dropout_implementation="upscale_in_train")
        z = layers.elementwise_add(y, y)
    optimized = optimize_inference(main, keep=["x", z.name])
    assert _ops(optimized) == Counter({"elementwise_add": 1})
    add = optimized.global_block().ops[0]
    assert add.input("X") == add.input("Y") == ["x"]
    feed = np.arange(8, dtype=np.float32).reshape(2, 4)
    got = pir.Executor().run(optimized, feed={"x": feed}, fetch_list=[z.name],
                             scope=pir.Scope())[0]
    np.testing.assert_array_equal(got, feed * 2)


def _conv_chain(act=None, residual=True, reshaped_bias=False, **act_attrs):
    """conv (+ bias, Fluid's axis-1 add or Paddle 2.x's reshape2 + add) + residual + act."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        image = layers.data("image", [4, 6, 5], dtype="float32")
        if reshaped_bias:
            b = layers.create_parameter([4], "float32")
            y = layers.elementwise_add(layers.conv2d(image, 4, 3, padding=1, bias_attr=False),
                                       layers.reshape(b, [1, 4, 1, 1]))
        else:
            y = layers.conv2d(image, 4, 3, padding=1)  # conv2d + elementwise_add(axis=1)
        if residual:
            y = layers.elementwise_add(image, y)
        if act is not None:
            y = getattr(layers, act)(y, **act_attrs)
    return main, startup, y


ACTS = [(None, {}), ("relu", {}), ("relu6", {"threshold": 2.5}), ("leaky_relu", {"alpha": 0.3}),
        ("hard_sigmoid", {"slope": 0.3, "offset": 0.4}), ("hard_swish", {})]


@pytest.mark.parametrize("act, attrs", ACTS)
@pytest.mark.parametrize("residual", [False, True])
@pytest.mark.parametrize("reshaped_bias", [False, True])
def test_conv_chains_fuse_into_one_op_with_the_same_bits(act, attrs, residual, reshaped_bias):
    main, startup, y = _conv_chain(act, residual, reshaped_bias, **attrs)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    _randomize(scope, main, np.random.default_rng(3))
    fused = optimize_inference(main, scope, keep=[y.name])
    assert [op.type for op in fused.global_block().ops] == ["fused_conv2d"]
    op = fused.global_block().ops[0]
    assert op.attr("fuse_activation") == (act or "")
    assert bool(op.input("ResidualData")) == residual
    assert fused.global_block().var(y.name)  # the chain's last output keeps its name
    image = np.random.default_rng(4).standard_normal((2, 4, 6, 5)).astype(np.float32) * 3
    want = exe.run(main, feed={"image": image}, fetch_list=[y.name], scope=scope)[0]
    got = exe.run(fused, feed={"image": image}, fetch_list=[y.name], scope=scope)[0]
    if act == "hard_swish":  # fused_conv2d's division by 6 is a product with 1/6: an ulp
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
    else:
        np.testing.assert_array_equal(got, want)  # the same operations in the same order


def test_what_must_stay_is_not_fused():
    # an intermediate is fetched: the chain stops before it
    main, _, y = _conv_chain("relu")
    add = next(op for op in main.global_block().ops if op.type == "elementwise_add")
    kept = optimize_inference(main, keep=[y.name, add.output("Out")[0]])
    assert _ops(kept)["relu"] == 1 and _ops(kept)["fused_conv2d"] == 1
    # hard_swish with other constants than fused_conv2d's fixed 3 and 6: stays an op
    main, _, y = _conv_chain("hard_swish", offset=2.0)
    assert _ops(optimize_inference(main, keep=[y.name]))["hard_swish"] == 1
    # a channels-last convolution is not fused
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        image = layers.data("image", [6, 5, 4], dtype="float32")
        y = layers.relu(layers.conv2d(image, 4, 3, padding=1, data_format="NHWC"))
    assert _ops(optimize_inference(main, keep=[y.name]))["fused_conv2d"] == 0
    # the conv's input is overwritten between the conv and the add: a fused op (in the
    # add's place) would read the new value where the conv read the old one, so nothing
    # of the chain is fused
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        image = layers.data("image", [4, 6, 5], dtype="float32")
        x = layers.scale(image, 2.0)
        other = layers.scale(image, 3.0)
        conv = layers.conv2d(x, 4, 3, padding=1)
        layers.assign(layers.scale(image, 5.0), output=x)
        y = layers.elementwise_add(conv, other)
    _assert_fused_as_planned(main, startup, y, fused=0)


def _assert_fused_as_planned(main, startup, y, fused):
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    optimized = optimize_inference(main, scope, keep=[y.name])
    assert _ops(optimized)["fused_conv2d"] == fused
    feed = {"image": np.random.default_rng(6).standard_normal((1, 4, 6, 5)).astype(np.float32)}
    np.testing.assert_array_equal(
        exe.run(optimized, feed=dict(feed), fetch_list=[y.name], scope=scope)[0],
        exe.run(main, feed=dict(feed), fetch_list=[y.name], scope=scope)[0])


def test_a_residual_computed_or_rewritten_before_its_add_is_fused():
    """ResNet's downsampling block: the main branch's conv comes first, the shortcut (the
    residual) is computed after it, before the add. The add reads the residual there, as
    the fused op in its place does: the chain fuses (it used to be refused, leaving a
    conv and a bias add per block). So does a residual rewritten before the add."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        image = layers.data("image", [4, 6, 5], dtype="float32")
        main_branch = layers.conv2d(image, 4, 3, padding=1)
        shortcut = layers.conv2d(image, 4, 1)
        y = layers.relu(layers.elementwise_add(main_branch, shortcut))
    _assert_fused_as_planned(main, startup, y, fused=2)
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        image = layers.data("image", [4, 6, 5], dtype="float32")
        other = layers.scale(image, 2.0)
        conv = layers.conv2d(image, 4, 3, padding=1)
        layers.assign(layers.scale(image, 5.0), output=other)
        y = layers.elementwise_add(conv, other)
    _assert_fused_as_planned(main, startup, y, fused=1)


def _fc_chain(act=None, op="matmul_v2", rank=3):
    """x [N, (5,) 6] times a [6, 4] weight (matmul_v2 as Paddle 2.x saves it, or mul),
    + a [4] bias over the last dim, + act."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [5, 6] if rank == 3 else [6], dtype="float32")
        w = layers.create_parameter([6, 4], "float32")
        b = layers.create_parameter([4], "float32")
        if op == "matmul_v2":
            block = main.global_block()
            y = block.create_var(shape=[-1, 5, 4][3 - rank:], dtype="float32")
            block.append_op("matmul_v2", inputs={"X": x, "Y": w}, outputs={"Out": y})
        else:
            y = layers.mul(x, w, x_num_col_dims=rank - 1)
        y = layers.elementwise_add(y, b, axis=-1)
        if act is not None:
            y = getattr(layers, act)(y)
    return main, startup, y


@pytest.mark.parametrize("act", [None, "relu", "hard_swish"])
@pytest.mark.parametrize("op, rank", [("matmul_v2", 2), ("matmul_v2", 3), ("mul", 2),
                                      ("mul", 3), ("fc_layer", 3)])
def test_linear_layers_fuse_into_fc(act, op, rank):
    if op == "fc_layer":  # layers.fc: mul + elementwise_add (+ act), Fluid's linear layer
        main, startup = pir.Program(), pir.Program()
        with pir.program_guard(main, startup):
            x = layers.data("x", [5, 6], dtype="float32")
            y = layers.fc(x, 4, num_flatten_dims=2, act=act)
    else:
        main, startup, y = _fc_chain(act, op, rank)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    _randomize(scope, main, np.random.default_rng(8))
    fused = optimize_inference(main, scope, keep=[y.name])
    assert [o.type for o in fused.global_block().ops] == ["fc"]
    assert fused.global_block().ops[0].attr("activation_type") == (act or "")
    shape = (3, 5, 6) if rank == 3 else (3, 6)
    x = np.random.default_rng(9).standard_normal(shape).astype(np.float32) * 3
    want = exe.run(main, feed={"x": x}, fetch_list=[y.name], scope=scope)[0]
    got = exe.run(fused, feed={"x": x}, fetch_list=[y.name], scope=scope)[0]
    if act == "hard_swish":  # fc's division by 6 is a product with 1/6 (fused_conv2d.activate)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
    else:
        np.testing.assert_array_equal(got, want)  # the same product, add and activation


def test_what_must_stay_is_not_fused_into_fc():
    # the product is fetched: it stays, and so does the add after it
    main, _, y = _fc_chain("relu")
    product = main.global_block().ops[0].output("Out")[0]
    assert _ops(optimize_inference(main, keep=[y.name, product]))["fc"] == 0
    # a transposed weight or a bias that is not over the last dim: not an fc
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [6], dtype="float32")
        w = layers.create_parameter([4, 6], "float32")
        b = layers.create_parameter([4], "float32")
        y = main.global_block().create_var(shape=[-1, 4], dtype="float32")
        main.global_block().append_op("matmul_v2", inputs={"X": x, "Y": w}, outputs={"Out": y},
                                      attrs={"trans_y": True})
        z = layers.elementwise_add(y, b, axis=-1)
        x2 = layers.data("x2", [4, 3], dtype="float32")
        b2 = layers.create_parameter([4], "float32")
        z2 = layers.elementwise_add(layers.mul(x2, layers.create_parameter([3, 4], "float32"),
                                               x_num_col_dims=2), b2, axis=1)
    assert _ops(optimize_inference(main, keep=[z.name, z2.name]))["fc"] == 0


def test_fc_over_sequences_keeps_their_lod():
    """layers.fc on a LoD input (mul + bias add): the fused fc passes the LoD on, so the
    sequence op after it still sees the sequences."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        words = layers.data("words", [6], dtype="float32", lod_level=1)
        pooled = layers.sequence_pool(layers.fc(words, 4, act="relu"), "sum")
    main = main.clone(for_test=True)  # sequence_pool's is_test set
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    fused = optimize_inference(main, scope, keep=[pooled.name])
    assert _ops(fused)["fc"] == 1 and _ops(fused)["mul"] == 0
    rows = np.random.default_rng(10).standard_normal((7, 6)).astype(np.float32)
    feed = {"words": pir.create_lod_tensor(rows, [[3, 4]], pir.CPUPlace())}
    want = exe.run(main, feed=dict(feed), fetch_list=[pooled.name], scope=scope)[0]
    got = exe.run(fused, feed=dict(feed), fetch_list=[pooled.name], scope=scope)[0]
    assert np.asarray(got).shape == (2, 4)
    np.testing.assert_array_equal(got, want)


def test_attributes_of_the_wrong_type_are_left_to_the_executor():
    """A program whose axis, activation or dropout attributes hold strings: the passes
    leave those ops be (no stray ValueError from a pass); the executor names them."""
    from paddle_ir.proto import framework_pb2 as pb

    main, _, y = _conv_chain("hard_sigmoid", residual=False)
    desc = pb.ProgramDesc()
    desc.CopyFrom(main.desc)
    for op in desc.blocks[0].ops:
        for a in op.attrs:
            if a.name in ("axis", "slope"):
                a.type, a.s = pb.STRING, "x"
    broken = pir.Program.from_desc(desc)
    optimized = optimize_inference(broken, keep=[y.name])
    assert _ops(optimized)["fused_conv2d"] == 0 and _ops(optimized)["hard_sigmoid"] == 1


def _shuffle_program(axis=(0, 2, 1, 3, 4), groups=2):
    """ShuffleNet's channel shuffle as Paddle saves it: reshape2, transpose2, reshape2."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [6, 4, 5], dtype="float32")
        a = layers.relu(x)
        y = layers.reshape(a, [-1, groups, 6 // groups, 4, 5])
        y = layers.transpose(y, list(axis))
        y = layers.reshape(y, [-1, 6, 4, 5])
        z = layers.scale(y, 2.0)
    return main, y, z


@pytest.mark.parametrize("groups", [2, 3])
def test_a_channel_shuffle_becomes_one_op(groups):
    main, y, z = _shuffle_program(groups=groups)
    optimized = optimize_inference(main, keep=[z.name])
    assert [op.type for op in optimized.global_block().ops] == ["relu", "channel_shuffle",
                                                               "scale"]
    op = optimized.global_block().ops[1]
    assert op.attr("groups") == groups and op.output("Out") == [y.name]
    assert len(optimized.global_block().vars) < len(main.global_block().vars)
    feed = np.random.default_rng(2).standard_normal((3, 6, 4, 5)).astype(np.float32)
    exe = pir.Executor()
    want = exe.run(main, feed={"x": feed}, fetch_list=[z.name], scope=pir.Scope())[0]
    got = exe.run(optimized, feed={"x": feed}, fetch_list=[z.name], scope=pir.Scope())[0]
    np.testing.assert_array_equal(got, want)
    shuffled = np.maximum(feed, 0).reshape(3, groups, 6 // groups, 4, 5).swapaxes(1, 2)
    np.testing.assert_array_equal(got, 2 * shuffled.reshape(3, 6, 4, 5))


def test_what_is_not_a_channel_shuffle_stays():
    main, y, z = _shuffle_program(axis=(0, 1, 2, 4, 3))  # another transpose
    assert "channel_shuffle" not in _ops(optimize_inference(main, keep=[z.name]))
    main, y, z = _shuffle_program()
    grouped = main.global_block().ops[1].output("Out")[0]
    # an intermediate that is kept (fetched) stays, and so do its ops
    assert "channel_shuffle" not in _ops(optimize_inference(main, keep=[z.name, grouped]))
