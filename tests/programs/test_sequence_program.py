"""LoD end to end: every sequence op's output LoD through the executor, gradients
through append_backward, and the text-classification example."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.selected_rows import SelectedRows
from tests.op_test import check_op

L = pir.layers
rng = np.random.RandomState(2)


def lod_tensor(lengths, width=2, dtype=np.float32):
    rows = sum(lengths[-1])
    return pir.create_lod_tensor(rng.uniform(-1, 1, (rows, width)).astype(dtype), lengths)


# Each case: (build(feeds) -> output Variable, feed values, the output's expected offsets).
def _pool(v):
    return L.sequence_pool(v["x"], "sum")


CASES = {
    "sequence_pool drops the last level": (
        _pool, {"x": ([[2, 1], [1, 0, 3]], 2)}, [[0, 2, 3]]),
    "sequence_pool of one level gives none": (
        _pool, {"x": ([[1, 0, 3]], 2)}, []),
    "sequence_first_step": (
        lambda v: L.sequence_first_step(v["x"]), {"x": ([[2, 1], [1, 2, 3]], 2)}, [[0, 2, 3]]),
    "sequence_last_step": (
        lambda v: L.sequence_last_step(v["x"]), {"x": ([[3, 1]], 2)}, []),
    "sequence_expand with x's LoD": (
        lambda v: L.sequence_expand(v["x"], v["y"]),
        {"x": ([[1, 2]], 2), "y": ([[2, 1]], 1)}, [[0, 1, 2, 4]]),
    "sequence_expand of rows gives no LoD": (
        lambda v: L.sequence_expand(v["x"], v["y"], ref_level=0),
        {"x": ([[1, 1, 1]], 2, "plain"), "y": ([[2, 0, 1], [1, 1, 1]], 1)}, []),
    "sequence_softmax keeps X's LoD": (
        lambda v: L.sequence_softmax(v["x"]), {"x": ([[2, 1], [1, 0, 3]], 1)},
        [[0, 2, 3], [0, 1, 1, 4]]),
    "sequence_concat": (
        lambda v: L.sequence_concat([v["x"], v["y"]]),
        {"x": ([[1, 2]], 2), "y": ([[0, 3]], 2)}, [[0, 1, 6]]),
    "sequence_reverse keeps X's LoD": (
        lambda v: L.sequence_reverse(v["x"]), {"x": ([[3, 0, 1]], 2)}, [[0, 3, 3, 4]]),
    "sequence_pad gives no LoD": (
        lambda v: L.sequence_pad(v["x"], 0.0)[0], {"x": ([[3, 0, 1]], 2)}, []),
    "sequence_unpad makes one level": (
        lambda v: L.sequence_unpad(*L.sequence_pad(v["x"], 0.0)), {"x": ([[3, 0, 1]], 2)},
        [[0, 3, 3, 4]]),
    "lod_reset by target_lod": (
        lambda v: L.lod_reset(v["x"], target_lod=[0, 4]), {"x": ([[3, 0, 1]], 2)}, [[0, 4]]),
    "lod_reset by y's LoD": (
        lambda v: L.lod_reset(v["x"], y=v["y"]), {"x": ([[4]], 2), "y": ([[1, 1], [3, 1]], 1)},
        [[0, 1, 2], [0, 3, 4]]),
    "lod_append": (
        lambda v: L.lod_append(v["x"], [0, 1, 1, 2, 4]), {"x": ([[3, 1]], 2)},
        [[0, 3, 4], [0, 1, 1, 2, 4]]),
    "elementwise ops share X's LoD": (
        lambda v: L.scale(v["x"], 2.0) + 1.0, {"x": ([[2, 1], [1, 0, 3]], 2)},
        [[0, 2, 3], [0, 1, 1, 4]]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_executor_output_lod_matches_the_op_and_build_time_lod_level(case):
    build, inputs, want_lod = CASES[case]
    main = pir.Program()
    feed, variables = {}, {}
    with pir.program_guard(main, pir.Program()):
        for name, spec in inputs.items():
            lengths, width = spec[0], spec[1]
            value = lod_tensor(lengths, width)
            if len(spec) > 2:  # a plain tensor with as many rows
                value = value.numpy()
            levels = 0 if isinstance(value, np.ndarray) else len(lengths)
            variables[name] = L.data(name, [-1, width], lod_level=levels)
            feed[name] = value
        out = build(variables)
    (got,) = pir.Executor(check=True).run(main, feed=feed, fetch_list=[out], return_numpy=False)
    assert got.lod() == want_lod
    assert out.lod_level == len(want_lod), (
        f"{case}: build-time lod_level {out.lod_level}, run time {len(want_lod)} levels")


def _runtime_levels_equal_declared(program, feed):
    """Run `program` once; every LOD_TENSOR value's LoD levels equal its var's lod_level."""
    block = program.global_block()
    names = [n for n, v in block.vars.items()
             if v.type == pir.VarType.LOD_TENSOR and not v.persistable]
    exe = pir.Executor(check=True)
    values = exe.run(program, feed=feed, fetch_list=names, return_numpy=False)
    checked = {}
    for name, value in zip(names, values, strict=True):
        if isinstance(value, SelectedRows):
            continue
        assert block.var(name).lod_level == value.lod_level, (
            f"{name}: declared lod_level {block.var(name).lod_level}, ran with "
            f"{value.lod_level} levels")
        checked[name] = value
    return checked


def test_text_classification_program_carries_lod_forward_and_backward():
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 3
    with pir.program_guard(main, startup):
        words = L.data("words", [-1, 1], dtype="int64", lod_level=1)
        label = L.data("label", [-1, 1], dtype="int64")
        emb = L.embedding(words, size=[50, 8], is_sparse=True)
        pooled = L.sequence_pool(emb, "max")
        logits = L.fc(pooled, 3)
        loss = L.mean(L.softmax_with_cross_entropy(logits, label))
        pir.optimizer.Adam(learning_rate=0.1, lazy_mode=True).minimize(loss)
    assert (words.lod_level, emb.lod_level, pooled.lod_level, logits.lod_level) == (1, 1, 0, 0)
    emb_grad = main.global_block().var(emb.name + "@GRAD")
    assert emb_grad.lod_level == 1

    lengths = [4, 1, 0, 3]
    feed = {"words": pir.create_lod_tensor([[1, 2, 3, 4], [5], [], [6, 7, 1]], [lengths]),
            "label": np.array([[0], [1], [2], [1]], np.int64)}
    scope = pir.Scope()
    with pir.scope_guard(scope):
        pir.Executor().run(startup)
        table = np.array(scope.find_var("embedding_0.w_0").value.numpy())
        values = _runtime_levels_equal_declared(main, feed)
        updated = scope.find_var("embedding_0.w_0").value.numpy()
    assert values["words"].lod() == values[emb.name].lod() == [[0, 4, 5, 5, 8]]
    assert values[emb_grad.name].lod() == [[0, 4, 5, 5, 8]]
    assert values[pooled.name].lod() == [] and values[pooled.name].shape == (4, 8)
    # lazy Adam touched only the looked-up rows of the table
    used = sorted({1, 2, 3, 4, 5, 6, 7})
    unused = [r for r in range(50) if r not in used]
    np.testing.assert_array_equal(updated[unused], table[unused])
    assert not np.allclose(updated[used], table[used])


@pytest.mark.parametrize("layer, extra", [
    ("sequence_pool", "average"), ("sequence_pool", "max"), ("sequence_pool", "last"),
    ("sequence_softmax", None), ("sequence_reverse", None), ("sequence_expand", None),
    ("sequence_concat", None), ("sequence_pad", None), ("lod_reset", None),
])
def test_append_backward_gives_x_grad_with_x_lod(layer, extra):
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        width = 1 if layer == "sequence_softmax" else 2
        x = L.data("x", [-1, width], lod_level=1)
        x.stop_gradient = False
        y = L.data("y", [-1, 1], lod_level=1)
        build = {
            "sequence_pool": lambda: L.sequence_pool(x, extra),
            "sequence_softmax": lambda: L.sequence_softmax(x),
            "sequence_reverse": lambda: L.sequence_reverse(x),
            "sequence_expand": lambda: L.sequence_expand(x, y),
            "sequence_concat": lambda: L.sequence_concat([x, x]),
            "sequence_pad": lambda: L.sequence_pad(x, 0.0)[0],
            "lod_reset": lambda: L.lod_reset(x, target_lod=[0, 6]),
        }[layer]
        out = build()
        weights = L.data("w", [-1] + [int(d) for d in out.shape[1:]])
        loss = L.reduce_sum(L.elementwise_mul(out, weights))
        pir.append_backward(loss)
    x_grad = main.global_block().var("x@GRAD")
    assert x_grad.lod_level == 1
    lengths = [2, 0, 3, 1]
    # distinct values 0.1 apart: MAX has no ties within the finite-difference step
    data = (rng.permutation(6 * width).reshape(6, width) * 0.1 - 0.3).astype(np.float32)
    x_value = pir.create_lod_tensor(data, [lengths])
    feed = {"x": x_value, "y": lod_tensor([[1, 2, 1, 1]], 1)}
    head = main.clone(for_test=True)  # the ops up to `out`, to learn its shape
    while out.name not in head.global_block().ops[-1].output_arg_names:
        head.global_block()._remove_op(len(head.global_block().ops) - 1)
    (out_value,) = pir.Executor().run(head, feed=feed, fetch_list=[out])
    feed["w"] = rng.uniform(0.5, 1.5, out_value.shape).astype(np.float32)
    (grad,) = pir.Executor(check=True).run(main, feed=feed, fetch_list=[x_grad],
                                           return_numpy=False)
    assert grad.lod() == x_value.lod() and grad.shape == x_value.shape

    # The gradient of sum(w * out) by central differences of the forward program.
    forward = main.clone(for_test=True)
    numeric = np.zeros(x_value.shape)
    base = x_value.numpy().astype(np.float64)
    for index in np.ndindex(*base.shape):
        total = []
        for step in (1e-2, -1e-2):
            moved = base.copy()
            moved[index] += step
            f = dict(feed, x=pir.create_lod_tensor(moved.astype(np.float32), [lengths]))
            (o,) = pir.Executor().run(forward, feed=f, fetch_list=[out])
            total.append(float((np.asarray(o, np.float64) * feed["w"]).sum()))
        numeric[index] = (total[0] - total[1]) / 2e-2
    np.testing.assert_allclose(grad.numpy(), numeric, rtol=1e-3, atol=1e-3)


def _load_example(name):
    path = Path(__file__).resolve().parents[2] / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_text_classification_example_learns_well_above_chance():
    example = _load_example("text_classification")
    result = example.train(epochs=2, verbose=False)
    chance = 1 / example.NUM_CLASSES
    assert result["accuracy_before"] < 0.5
    assert result["accuracy"] > 0.8 > 2 * chance
    losses = result["losses"]
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:10])


def test_a_saved_inference_model_keeps_lod_level_and_pools_in_test_mode(tmp_path):
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 5
    with pir.program_guard(main, startup):
        words = L.data("words", [-1, 1], dtype="int64", lod_level=1)
        emb = L.embedding(words, size=[30, 6], is_sparse=True)
        logits = L.fc([L.sequence_pool(emb, "max"), L.sequence_last_step(emb)], 2)
    feed = {"words": pir.create_lod_tensor([[3, 4, 5], [7], [2, 2]], [[3, 1, 2]])}
    scope = pir.Scope()
    with pir.scope_guard(scope):
        exe = pir.Executor()
        exe.run(startup)
        (want,) = exe.run(main, feed=feed, fetch_list=[logits])
        pir.io.save_inference_model(str(tmp_path), ["words"], [logits], exe, main)
    loaded_scope = pir.Scope()
    with pir.scope_guard(loaded_scope):
        program, feed_names, targets = pir.io.load_inference_model(str(tmp_path), exe)
        assert feed_names == ["words"] and program.global_block().var("words").lod_level == 1
        pools = [op for op in program.global_block().ops if op.type == "sequence_pool"]
        assert pools and all(op.attr("is_test") for op in pools)
        (got,) = pir.Executor(check=True).run(program, feed=feed, fetch_list=targets)
        np.testing.assert_allclose(got, want, rtol=1e-6)
        with pytest.raises(pir.ProgramError, match=r"(?s)feed 'words' carries 0 LoD levels, but "
                                                    r"the variable is declared with lod_level=1"
                                                    r".*create_lod_tensor"):
            pir.Executor().run(program, feed={"words": np.array([[3], [4]], np.int64)},
                               fetch_list=targets)


def test_a_batch_of_no_sequences_runs_through_every_op():
    none = pir.create_lod_tensor(np.zeros((0, 3), np.float32), [[]])
    empty_out = pir.LoDTensor(np.zeros((0, 3), np.float32))
    for pooltype in ["SUM", "AVERAGE", "SQRT", "MAX", "FIRST", "LAST"]:
        check_op("sequence_pool", {"X": none}, {"pooltype": pooltype}, {"Out": empty_out})
    check_op("sequence_softmax",
             {"X": pir.create_lod_tensor(np.zeros((0, 1), np.float32), [[]])}, {}, {})
    check_op("sequence_reverse", {"X": none}, {}, {"Y": none})
    check_op("sequence_expand", {"X": none, "Y": none}, {}, {"Out": none})
    check_op("sequence_concat", {"X": [("a", none), ("b", none)]}, {}, {"Out": none})
    check_op("sequence_pad", {"X": none, "PadValue": np.zeros(1, np.float32)}, {},
             {"Out": np.zeros((0, 0, 3), np.float32), "Length": np.zeros(0, np.int64)})
    check_op("sequence_unpad", {"X": np.zeros((0, 2, 3), np.float32),
                                "Length": np.zeros(0, np.int64)}, {}, {"Out": none})
    check_op("sequence_mask", {"X": np.zeros(0, np.int64)}, {},
             {"Y": np.zeros((0, 0), np.int64)})
