"""DynamicRNN over 1- and 2-level LoD batches: forward against numpy loops, gradients
against finite differences (float64), and the rules its backward relies on."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers

D, H = 3, 4


def param(name):
    return pir.ParamAttr(name=name)


def simple_rnn(x, prefix="", init=None, need_reorder=False):
    """h_t = tanh(x_t W + b + h_{t-1} U) per sequence; returns the per-step outputs."""
    rnn = layers.DynamicRNN()
    with rnn.block():
        word = rnn.step_input(x)
        if init is None:
            prev = rnn.memory(shape=[H], dtype=x.dtype)
        else:
            prev = rnn.memory(init=init, need_reorder=need_reorder)
        h = layers.tanh(layers.fc(word, H, param_attr=param(prefix + "W"),
                                  bias_attr=param(prefix + "b"))
                        + layers.fc(prev, H, param_attr=param(prefix + "U"), bias_attr=False))
        rnn.update_memory(prev, h)
        rnn.output(h)
    return rnn()


def numpy_rnn(x, lengths, p, prefix="", h0=None):
    out, start = [], 0
    for k, n in enumerate(lengths):
        h = np.zeros(H) if h0 is None else h0[k]
        for t in range(start, start + n):
            h = np.tanh(x[t] @ p[prefix + "W"] + p[prefix + "b"] + h @ p[prefix + "U"])
            out.append(h)
        start += n
    return np.array(out).reshape(-1, H)


def build(fn, dtype="float64", lod_level=1, extra=()):
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 7
    with pir.program_guard(main, startup):
        x = layers.data("x", [-1, D], dtype=dtype, lod_level=lod_level)
        x.stop_gradient = False
        extras = [layers.data(name, shape, dtype=dtype, append_batch_size=False)
                  for name, shape in extra]
        outputs = fn(x, *extras)
    return main, startup, x, outputs


def params_of(scope, names):
    return {n: np.array(scope.find_var(n).value) for n in names}


@pytest.mark.parametrize("lengths", [[3, 1, 2], [2, 0, 4, 1], [5]])
def test_one_level_equals_the_numpy_loop(lengths):
    main, startup, x, out = build(simple_rnn)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(1)
    xv = pir.create_lod_tensor(rng.normal(size=(sum(lengths), D)), [lengths])
    for _ in range(2):  # the second run goes through cached plans, loop body included
        (got,) = exe.run(main, feed={"x": xv}, fetch_list=[out], scope=scope,
                         return_numpy=False)
        assert got.recursive_sequence_lengths() == [lengths]
        want = numpy_rnn(xv.numpy(), lengths, params_of(scope, ["W", "b", "U"]))
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    assert set(scope.local_var_names()) == {"W", "b", "U"}  # parameters only


def test_a_memory_starts_from_init_in_the_inputs_order():
    def fn(x, h0):
        return simple_rnn(x, init=h0, need_reorder=True)

    main, startup, x, out = build(fn, extra=[("h0", [-1, H])])
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(2)
    lengths = [1, 3, 2]
    xv = pir.create_lod_tensor(rng.normal(size=(6, D)), [lengths])
    h0 = rng.normal(size=(3, H))
    want = numpy_rnn(xv.numpy(), lengths, params_of(scope, ["W", "b", "U"]), h0=h0)
    for _ in range(2):  # the second run reuses the plan: reorder_lod_tensor_by_rank cached
        (got,) = exe.run(main, feed={"x": xv, "h0": h0}, fetch_list=[out], scope=scope)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_static_input_follows_the_running_sequences():
    def fn(x, ctx):
        rnn = layers.DynamicRNN()
        with rnn.block():
            word = rnn.step_input(x)
            c = rnn.static_input(ctx)
            rnn.output(layers.reduce_sum(word, dim=[1], keep_dim=True) + c)
        return rnn()

    main, startup, x, out = build(fn, extra=[("ctx", [-1, 1])])
    xv = pir.create_lod_tensor(np.ones((6, D)), [[2, 3, 1]])
    ctx = np.array([[10.0], [20.0], [30.0]])
    (got,) = pir.Executor().run(main, feed={"x": xv, "ctx": ctx}, fetch_list=[out],
                                scope=pir.Scope())
    np.testing.assert_allclose(got[:, 0], [13, 13, 23, 23, 23, 33])


def nested(x):
    """Articles of sentences of words: a word RNN per sentence, a sentence RNN per article."""
    outer = layers.DynamicRNN()
    with outer.block():
        sentence = outer.step_input(x)            # the t-th sentence of each article
        prev = outer.memory(shape=[H], dtype=x.dtype)
        words = simple_rnn(sentence, prefix="word_")
        vector = layers.sequence_last_step(words)  # one vector per sentence
        h = layers.tanh(layers.fc(vector, H, param_attr=param("sent_W"), bias_attr=False)
                        + layers.fc(prev, H, param_attr=param("sent_U"), bias_attr=False))
        outer.update_memory(prev, h)
        outer.output(h)
    return layers.sequence_last_step(outer())


def numpy_nested(x, lengths, p):
    articles, sentence, start = [], 0, 0
    for n_sentences in lengths[0]:
        h = np.zeros(H)
        for _ in range(n_sentences):
            n_words = lengths[1][sentence]
            words = numpy_rnn(x[start:start + n_words], [n_words], p, "word_")
            h = np.tanh(words[-1] @ p["sent_W"] + h @ p["sent_U"])
            sentence, start = sentence + 1, start + n_words
        articles.append(h)
    return np.array(articles)


NESTED_PARAMS = ["word_W", "word_b", "word_U", "sent_W", "sent_U"]
SEED_LENGTHS = [[3, 1, 2], [3, 2, 4, 1, 2, 3]]  # the LoD seed's 2-level example


def test_two_level_input_gives_one_vector_per_article():
    main, startup, x, article = build(nested, lod_level=2)
    assert article.lod_level == 0 and list(article.shape) == [-1, H]
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    xv = pir.create_lod_tensor(np.random.default_rng(3).normal(size=(15, D)), SEED_LENGTHS)
    (got,) = exe.run(main, feed={"x": xv}, fetch_list=[article], scope=scope)
    assert got.shape == (3, H)
    want = numpy_nested(xv.numpy(), SEED_LENGTHS, params_of(scope, NESTED_PARAMS))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def lod_tensor_to_array_of_the_seed():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [-1, 1], dtype="float32", lod_level=2)
        table = layers.lod_rank_table(x, level=0)
        array = layers.lod_tensor_to_array(x, table)
        back = layers.array_to_lod_tensor(array, table)
    return main, table, array, back


def test_the_seeds_batch_splits_into_sentences_per_step_and_back():
    main, table, array, back = lod_tensor_to_array_of_the_seed()
    xv = pir.create_lod_tensor(np.arange(15, dtype=np.float32).reshape(-1, 1), SEED_LENGTHS)
    got_table, got_array, got_back = pir.Executor().run(
        main, feed={"x": xv}, fetch_list=[table, array, back], scope=pir.Scope(),
        return_numpy=False)
    assert got_table.items() == [(0, 3), (2, 2), (1, 1)]
    # step t: the t-th sentence of articles 0, 2, 1 (longest first), each with its words
    assert [e.recursive_sequence_lengths() for e in got_array] == [[[3, 2, 1]], [[2, 3]], [[4]]]
    assert got_array[0].numpy().ravel().tolist() == [0, 1, 2, 10, 11, 9]
    assert got_back.recursive_sequence_lengths() == SEED_LENGTHS
    np.testing.assert_array_equal(got_back.numpy(), xv.numpy())


def finite_difference_check(main, startup, feed, loss, names, eps=1e-6):
    grads = pir.append_backward(loss)
    wanted = {p.name: g.name for p, g in grads}
    assert set(names) - {"x"} <= set(wanted)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    fetch = [wanted[n] if n != "x" else "x@GRAD" for n in names]
    analytic = exe.run(main, feed=feed, fetch_list=fetch, scope=scope)
    forward = main.clone(for_test=True)

    def loss_at():
        (value,) = exe.run(forward, feed=feed, fetch_list=[loss], scope=scope)
        return float(np.asarray(value).sum())

    for name, got in zip(names, analytic, strict=True):
        if name == "x":
            base = feed["x"].numpy()
            holder = None
        else:
            holder = scope.find_var(name)
            base = np.array(holder.value)
        numeric = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            values = []
            for delta in (eps, -eps):
                moved = base.copy()
                moved[idx] += delta
                if holder is None:
                    feed["x"] = pir.create_lod_tensor(moved, feed["x"].recursive_sequence_lengths())
                else:
                    holder.value = pir.LoDTensor(moved)
                values.append(loss_at())
            numeric[idx] = (values[0] - values[1]) / (2 * eps)
        if holder is None:
            feed["x"] = pir.create_lod_tensor(base, feed["x"].recursive_sequence_lengths())
        else:
            holder.value = pir.LoDTensor(base)
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-8, err_msg=name)


def test_gradients_through_the_loop_match_finite_differences():
    def fn(x):
        out = simple_rnn(x)
        last = layers.sequence_last_step(out)
        return layers.reduce_sum(layers.square(last)) + layers.reduce_sum(out)

    main, startup, x, loss = build(fn)
    xv = pir.create_lod_tensor(np.random.default_rng(4).normal(size=(6, D)), [[3, 1, 2]])
    finite_difference_check(main, startup, {"x": xv}, loss, ["W", "b", "U", "x"])


def test_gradients_through_the_nested_loops_match_finite_differences():
    main, startup, x, article = build(nested, lod_level=2)
    with pir.program_guard(main, startup):
        loss = layers.reduce_sum(layers.square(article))
    xv = pir.create_lod_tensor(np.random.default_rng(5).normal(size=(15, D)), SEED_LENGTHS)
    finite_difference_check(main, startup, {"x": xv}, loss, NESTED_PARAMS + ["x"])
    # block 0, the two bodies, and one grad block per body, each under the block of its
    # while_grad op and pointing at the body it differentiates
    assert [(b.parent_idx, b.forward_block_idx) for b in main.blocks] == [
        (-1, -1), (0, -1), (1, -1), (0, 1), (3, 2)]


def test_a_gradient_needing_an_overwritten_loop_value_is_refused():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [2], dtype="float64", append_batch_size=False)
        x.stop_gradient = False
        state = layers.scale(x, 1.0)
        i = layers.fill_constant([1], "int64", 0)
        n = layers.fill_constant([1], "int64", 3)
        c = layers.less_than(i, n)
        loop = layers.While(c)
        with loop.block():
            # tanh writes the carried value in place: its gradient reads tanh's output,
            # which the step scope does not keep (it keeps the value the step began with)
            main.current_block().append_op("tanh", inputs={"X": state},
                                           outputs={"Out": state})
            layers.increment(i, in_place=True)
            layers.less_than(i, n, cond=c)
        loss = layers.reduce_sum(state)
        with pytest.raises(pir.ProgramError, match=r"(?s)gradient of tanh needs the value .* "
                                                   r"when the step began.*layers.assign"):
            pir.append_backward(loss)


def test_a_while_loop_with_assign_trains_through_its_carried_value():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [1, 2], dtype="float64", append_batch_size=False)
        x.stop_gradient = False
        state = layers.scale(x, 1.0)
        i = layers.fill_constant([1], "int64", 0)
        n = layers.fill_constant([1], "int64", 3)
        c = layers.less_than(i, n)
        loop = layers.While(c)
        with loop.block():
            layers.assign(layers.tanh(layers.fc(state, 2, param_attr=param("A"),
                                                bias_attr=False)), output=state)
            layers.increment(i, in_place=True)
            layers.less_than(i, n, cond=c)
        loss = layers.reduce_sum(layers.square(state))
    feed = {"x": pir.create_lod_tensor(np.array([[0.3, -0.7]]), [])}
    finite_difference_check(main, startup, feed, loss, ["A", "x"])


def test_dynamic_rnn_misuse_is_reported():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = layers.data("x", [-1, D], lod_level=1)
        dense = layers.data("d", [-1, D])
        rnn = layers.DynamicRNN()
        with pytest.raises(pir.PaddleIRError, match=r"step_input\(\) can only be called inside"):
            rnn.step_input(x)
        with pytest.raises(pir.PaddleIRError, match="needs a sequence input"):
            with rnn.block():
                rnn.step_input(dense)
        other = layers.DynamicRNN()
        with pytest.raises(pir.PaddleIRError, match="is not a memory of this DynamicRNN"):
            with other.block():
                word = other.step_input(x)
                other.update_memory(word, word)


def test_the_nested_rnn_example_trains():
    path = Path(__file__).resolve().parents[2] / "examples" / "nested_rnn.py"
    spec = importlib.util.spec_from_file_location("example_nested_rnn", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    result = example.train(epochs=2, num_train=320, num_test=96, verbose=False)
    losses = result["losses"]
    assert np.mean(losses[:5]) > 0.55  # about ln 2: the classes are balanced
    assert np.mean(losses[-5:]) < 0.2 * np.mean(losses[:5])
    assert result["accuracy_before"] < 0.7 and result["accuracy"] > 0.9
    again = example.train(epochs=1, num_train=64, num_test=32, verbose=False)["losses"]
    assert again == losses[:2]  # a fixed seed: the same losses every time



@pytest.mark.parametrize("lengths, level", [
    ([[2, 0, 3], [1, 2, 2, 1, 3]], 0),             # an empty paragraph among others
    ([[2, 0, 3], [1, 2, 2, 1, 3]], 1),
    ([[2, 1], [1, 2, 1], [2, 1, 3, 1]], 0),        # three levels, ranked at each
    ([[2, 1], [1, 2, 1], [2, 1, 3, 1]], 1),
    ([[2, 1], [1, 2, 1], [2, 1, 3, 1]], 2),
])
def test_splitting_by_steps_and_joining_back_is_the_identity(lengths, level):
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [-1, 2], dtype="float32", lod_level=len(lengths))
        table = layers.lod_rank_table(x, level=level)
        array = layers.lod_tensor_to_array(x, table)
        back = layers.array_to_lod_tensor(array, table)
    assert array.lod_level == len(lengths) - level - 1 and back.lod_level == len(lengths)
    rows = sum(lengths[-1])
    xv = pir.create_lod_tensor(np.arange(2 * rows, dtype=np.float32).reshape(rows, 2), lengths)
    got_table, got_array, got = pir.Executor(check=True).run(
        main, feed={"x": xv}, fetch_list=[table, array, back], scope=pir.Scope(),
        return_numpy=False)
    counts = np.diff(xv.offsets[level])
    assert [n for _, n in got_table.items()] == sorted(counts.tolist(), reverse=True)
    assert len(got_array) == counts.max()
    for t, element in enumerate(got_array):  # step t holds one item per sequence longer than t
        assert element.lod_level == len(lengths) - level - 1
        items = element.offsets[0].size - 1 if element.lod_level else element.shape[0]
        assert items == int((counts > t).sum())
    assert got.recursive_sequence_lengths() == lengths
    np.testing.assert_array_equal(got.numpy(), xv.numpy())


def test_a_test_mode_loop_refuses_a_backward_pass():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [2], dtype="float64", append_batch_size=False)
        x.stop_gradient = False
        state = layers.scale(x, 1.0)
        i = layers.fill_constant([1], "int64", 0)
        n = layers.fill_constant([1], "int64", 2)
        c = layers.less_than(i, n)
        loop = layers.While(c, is_test=True)
        with loop.block():
            layers.assign(layers.tanh(state), output=state)
            layers.increment(i, in_place=True)
            layers.less_than(i, n, cond=c)
        loss = layers.reduce_sum(state)
        with pytest.raises(pir.ProgramError, match="is_test=True keeps no step scopes"):
            pir.append_backward(loss)


def test_a_sparse_embedding_inside_the_loop_keeps_its_gradient_sparse():
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 3
    with pir.program_guard(main, startup):
        ids = layers.data("ids", [-1, 1], dtype="int64", lod_level=1)
        rnn = layers.DynamicRNN()
        with rnn.block():
            emb = layers.embedding(rnn.step_input(ids), [50, H], is_sparse=True,
                                   param_attr=param("emb"))
            prev = rnn.memory(shape=[H])
            h = layers.tanh(layers.fc(emb, H) + layers.fc(prev, H, bias_attr=False))
            rnn.update_memory(prev, h)
            rnn.output(h)
        loss = layers.mean(layers.sequence_last_step(rnn()))
        pir.optimizer.SGD(0.5).minimize(loss)
    exe, scope = pir.Executor(storage_fallback="error"), pir.Scope()
    exe.run(startup, scope=scope)
    before = np.array(scope.find_var("emb").value).copy()  # sgd updates it in place
    feed = {"ids": pir.create_lod_tensor([[1, 2, 3], [4], [5, 1]], [[3, 1, 2]])}
    (grad,) = exe.run(main, feed=feed, fetch_list=["emb@GRAD"], scope=scope)
    assert isinstance(grad, pir.SelectedRows) and sorted(grad.rows.tolist()) == [1, 1, 2, 3, 4, 5]
    changed = np.flatnonzero(np.abs(np.array(scope.find_var("emb").value) - before).sum(1))
    assert changed.tolist() == [1, 2, 3, 4, 5]  # only the looked-up rows moved


def test_gradients_through_a_reordered_initial_memory_match_finite_differences():
    """The initial memory is put in the rank table's order (reorder_lod_tensor_by_rank) and
    its gradient put back in the inputs' order."""
    def fn(x):
        h0 = layers.create_parameter([3, H], "float64", name="h0")
        out = simple_rnn(x, init=h0, need_reorder=True)
        return layers.reduce_sum(layers.square(layers.sequence_last_step(out)))

    main, startup, x, loss = build(fn)
    xv = pir.create_lod_tensor(np.random.default_rng(6).normal(size=(6, D)), [[1, 3, 2]])
    finite_difference_check(main, startup, {"x": xv}, loss, ["h0", "U", "x"])
