"""sequence_pool (ops/sequence_ops/sequence_pool.py): every pool type against numpy,
gradients, empty sequences."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.ops.sequence_ops.sequence_pool import pool
from tests.op_test import check_grad, check_op

POOL_TYPES = ["SUM", "AVERAGE", "SQRT", "MAX", "LAST", "FIRST"]
# The seed: 3 articles of 3, 1 and 2 sentences; 6 sentences of 3, 2, 4, 1, 2, 3 words.
ARTICLES, SENTENCES = [3, 1, 2], [3, 2, 4, 1, 2, 3]
rng = np.random.RandomState(7)


def reference_pool(x, lengths, pooltype, pad_value=0.0):
    """One sequence at a time, the way the formulas read: (Out, MaxIndex)."""
    out, index, start = [], [], 0
    for n in lengths:
        seq = x[start:start + n].astype(np.float64)
        if n == 0:
            out.append(np.full(x.shape[1:], pad_value))
            index.append(np.full(x.shape[1:], -1))
        elif pooltype == "SUM":
            out.append(seq.sum(axis=0))
        elif pooltype == "AVERAGE":
            out.append(seq.sum(axis=0) / n)
        elif pooltype == "SQRT":
            out.append(seq.sum(axis=0) / np.sqrt(n))
        elif pooltype == "MAX":
            out.append(seq.max(axis=0))
            index.append(seq.argmax(axis=0) + start)
        elif pooltype == "LAST":
            out.append(seq[-1])
        else:
            out.append(seq[0])
        if n and pooltype != "MAX":
            index.append(None)
        start += n
    out = np.stack(out).astype(x.dtype) if out else np.zeros((0,) + x.shape[1:], x.dtype)
    if pooltype != "MAX":
        return out, None
    return out, np.stack(index).astype(np.int32)


def seed_words(features=4, dtype=np.float32):
    data = rng.uniform(-1, 1, size=(sum(SENTENCES), features)).astype(dtype)
    return pir.create_lod_tensor(data, [ARTICLES, SENTENCES])


def pool_outputs(pooltype):
    return {"Out": 1, "MaxIndex": 1} if pooltype == "MAX" else {"Out": 1}


@pytest.mark.parametrize("pooltype", POOL_TYPES)
def test_pooling_words_gives_one_row_per_sentence_grouped_in_articles(pooltype):
    words = seed_words()
    want, want_index = reference_pool(words.numpy(), SENTENCES, pooltype)
    expected = {"Out": pir.create_lod_tensor(want, [ARTICLES])}
    if pooltype == "MAX":
        expected["MaxIndex"] = want_index
    got = check_op("sequence_pool", {"X": words}, {"pooltype": pooltype}, expected,
                   outputs=pool_outputs(pooltype))
    out = got["Out"][0]
    assert out.shape == (6, 4)
    assert out.recursive_sequence_lengths() == [ARTICLES]


@pytest.mark.parametrize("pooltype", POOL_TYPES)
def test_pooling_sentences_again_gives_one_row_per_article(pooltype):
    sentences = pir.create_lod_tensor(rng.uniform(-1, 1, (6, 3)).astype(np.float32), [ARTICLES])
    want, want_index = reference_pool(sentences.numpy(), ARTICLES, pooltype)
    expected = {"Out": want} if pooltype != "MAX" else {"Out": want, "MaxIndex": want_index}
    got = check_op("sequence_pool", {"X": sentences}, {"pooltype": pooltype}, expected,
                   outputs=pool_outputs(pooltype))
    assert got["Out"][0].shape == (3, 3) and got["Out"][0].lod() == []


def test_two_pools_in_one_program_carry_the_lod_through():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        words = pir.layers.data("words", [-1, 4], lod_level=2)
        sentences = pir.layers.sequence_pool(words, "average")
        articles = pir.layers.sequence_pool(sentences, "max")
    assert (words.lod_level, sentences.lod_level, articles.lod_level) == (2, 1, 0)
    feed = seed_words()
    s, a = pir.Executor(check=True).run(main, feed={"words": feed},
                                        fetch_list=[sentences, articles], return_numpy=False)
    want_s, _ = reference_pool(feed.numpy(), SENTENCES, "AVERAGE")
    want_a, _ = reference_pool(want_s, ARTICLES, "MAX")
    assert s.lod() == [[0, 3, 4, 6]] and a.lod() == []
    np.testing.assert_allclose(s.numpy(), want_s, rtol=1e-6)
    np.testing.assert_allclose(a.numpy(), want_a, rtol=1e-6)


@pytest.mark.parametrize("pooltype", POOL_TYPES)
def test_empty_sequences_give_pad_value(pooltype):
    lengths = [2, 0, 3, 0, 1]
    x = pir.create_lod_tensor(rng.uniform(-1, 1, (6, 2)).astype(np.float32), [lengths])
    want, want_index = reference_pool(x.numpy(), lengths, pooltype, pad_value=7.5)
    expected = {"Out": want} if pooltype != "MAX" else {"Out": want, "MaxIndex": want_index}
    got = check_op("sequence_pool", {"X": x}, {"pooltype": pooltype, "pad_value": 7.5},
                   expected, outputs=pool_outputs(pooltype))
    np.testing.assert_array_equal(got["Out"][0].numpy()[[1, 3]], 7.5)
    if pooltype == "MAX":
        np.testing.assert_array_equal(got["MaxIndex"][0].numpy()[[1, 3]], -1)


def test_a_one_dimensional_input_pools_to_one_value_per_sequence():
    """X needs only its rows: a [N] input gives a [number of sequences] output."""
    values = np.array([1.0, 2.0, 4.0, 8.0, 16.0], np.float32)
    x = pir.create_lod_tensor(values, [[2, 3]])
    check_op("sequence_pool", {"X": x}, {"pooltype": "SUM"},
             {"Out": np.array([3.0, 28.0], np.float32)})
    check_op("sequence_pool", {"X": x}, {"pooltype": "LAST"},
             {"Out": np.array([2.0, 16.0], np.float32)})


def test_all_sequences_empty_and_no_rows():
    x = pir.create_lod_tensor(np.zeros((0, 3), np.float32), [[0, 0]])
    check_op("sequence_pool", {"X": x}, {"pooltype": "MAX", "pad_value": -1.0},
             {"Out": np.full((2, 3), -1, np.float32), "MaxIndex": np.full((2, 3), -1, np.int32)},
             outputs={"Out": 1, "MaxIndex": 1})


@pytest.mark.parametrize("pooltype", POOL_TYPES)
def test_many_lengths_against_the_loop(pooltype):
    # Lengths around and past the 16-row blocks of the vectorized max, and empties.
    lengths = [0, 1, 2, 15, 16, 17, 31, 32, 33, 47, 64, 100, 0, 257, 3]
    total = sum(lengths)
    x = rng.uniform(-10, 10, size=(total, 3, 2)).astype(np.float32)
    x[5:9] = 4.0  # ties: the first row holding the max wins, as Paddle's strict `>` scan
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    got, got_index = pool(x, offsets, pooltype, 0.5)
    want, want_index = reference_pool(x, lengths, pooltype, 0.5)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    if pooltype == "MAX":
        np.testing.assert_array_equal(got_index, want_index)


@pytest.mark.parametrize("pooltype", POOL_TYPES)
def test_gradients_by_finite_differences(pooltype):
    lengths = [3, 0, 2, 4, 1]
    n = sum(lengths)
    if pooltype == "MAX":  # distinct values, far apart relative to eps: no ties
        data = (rng.permutation(n * 3).reshape(n, 3) * 0.1).astype(np.float64)
    else:
        data = rng.uniform(-1, 1, (n, 3))
    x = pir.create_lod_tensor(data, [[2, 3], lengths])
    check_grad("sequence_pool", {"X": x}, {"pooltype": pooltype, "pad_value": 0.25},
               outputs=pool_outputs(pooltype))


def test_lod_level_0_input_fails_at_build_time_with_paddles_message_and_the_fix():
    with pir.program_guard(pir.Program(), pir.Program()):
        ids = pir.layers.data("ids", [-1, 8])
        with pytest.raises(pir.ProgramError, match=(
                r"(?s)\[ShapeInferenceError\] block 0, op #0 sequence_pool \(X=ids.*"
                r"The LoD level Input\(X\) of sequence_pool should be larger than 0, but 'ids' "
                r"has lod_level 0.*op created at tests/ops/sequence_ops/test_sequence_pool.py:\d+.*"
                r"hint: declare 'ids' with data\(\.\.\., lod_level=1\) and feed it "
                r"create_lod_tensor\(data, \[\[lengths\]\]\)")):
            pir.layers.sequence_pool(ids, "sum")


def test_unknown_pool_type_fails_at_build_time():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 8], lod_level=1)
        with pytest.raises(pir.ProgramError, match="pooltype must be one of AVERAGE, SUM"):
            pir.layers.sequence_pool(x, "median")


def test_a_program_without_lod_on_its_input_fails_at_run_time_naming_the_variable():
    # A program from elsewhere (built, then its data var's lod_level dropped) is only
    # checked when it runs: the op's rule runs again on the actual value.
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 2], lod_level=1)
        pir.layers.sequence_pool(x, "sum")
    x.lod_level = 0
    program = pir.Program.parse(main.serialize())
    with pytest.raises(pir.ProgramError, match=(
            r"(?s)\[ShapeInferenceError\] block 0, op #0 sequence_pool \(X=x\[4, 2\].*"
            r"should be larger than 0, but 'x' at run time has lod_level 0.*"
            r"create_lod_tensor\(data, \[\[lengths\]\]\)")):
        pir.Executor().run(program, feed={"x": np.ones((4, 2), np.float32)},
                           fetch_list=[program.global_block().ops[0].output("Out")[0]])


@pytest.mark.parametrize("fed, declared, fed_levels", [
    (np.ones((4, 2), np.float32), 1, 0),
    (pir.create_lod_tensor(np.ones((4, 2), np.float32), [[1, 1], [3, 1]]), 1, 2),
    # A LoD on a lod_level-0 variable is accepted and carried, as in Fluid
    # (tests/fluid_compat/test_fluid_api.py).
])
def test_feed_with_the_wrong_number_of_lod_levels_names_the_var_and_both_numbers(
        fed, declared, fed_levels):
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        words = pir.layers.data("words", [-1, 2], lod_level=declared)
        out = pir.layers.scale(words, 2.0)
    pattern = (rf"(?s)feed 'words' carries {fed_levels} LoD levels, but the variable is declared "
               rf"with lod_level={declared}")
    if declared and not fed_levels:
        pattern += r".*hint: .*create_lod_tensor\(data, \[\[3, 1, 2\]\]\)"
    with pytest.raises(pir.ProgramError, match=pattern):
        pir.Executor().run(main, feed={"words": fed}, fetch_list=[out])


def test_max_in_test_mode_skips_max_index():
    words = seed_words()
    want, _ = reference_pool(words.numpy(), SENTENCES, "MAX")
    got = check_op("sequence_pool", {"X": words}, {"pooltype": "MAX", "is_test": True},
                   {"Out": pir.create_lod_tensor(want, [ARTICLES]),
                    "MaxIndex": np.zeros(0, np.int32)}, outputs=pool_outputs("MAX"))
    assert got["MaxIndex"][0].shape == (0,)


def test_max_gradient_needs_training_mode():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 2], lod_level=1)
        x.stop_gradient = False
        out = pir.layers.sequence_pool(x, "max", is_test=True)
        with pytest.raises(pir.ProgramError, match=r"(?s)sequence_pool_grad.*MAX pooling's "
                                                    r"gradient needs Input\(MaxIndex\) from a "
                                                    r"forward op run with is_test=False"):
            pir.append_backward(pir.layers.mean(out))


@pytest.mark.parametrize("pooltype", POOL_TYPES)
def test_only_the_max_gradient_op_reads_max_index(pooltype):
    """As Paddle's grad maker: sequence_pool_grad takes MaxIndex for MAX pooling only."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 2], lod_level=1)
        x.stop_gradient = False
        block = main.global_block()
        out = block.create_var(name="pooled", dtype="float32")
        index = block.create_var(name="index", dtype="int32")
        # bound for every pool type, as Fluid's layer (and so a Paddle program) binds it
        block.append_op("sequence_pool", inputs={"X": [x]},
                        outputs={"Out": [out], "MaxIndex": [index]},
                        attrs={"pooltype": pooltype, "is_test": False})
        pir.append_backward(pir.layers.mean(out))
    grad, = [op for op in main.global_block().ops if op.type == "sequence_pool_grad"]
    assert ("MaxIndex" in grad.input_names) == (pooltype == "MAX")


# --- sequence_pool MAX with an empty last sequence ---------------------------------------------

def test_max_pool_gradient_with_a_trailing_empty_sequence_reaches_no_row():
    """lengths [3, 2, 0]: the empty sequence's MaxIndex is -1, which must route nowhere
    (as an index, -1 would be X's last row)."""
    x = np.array([[1.0, 9.0], [5.0, 2.0], [3.0, 4.0], [7.0, 0.5], [6.0, 8.0]], np.float64)
    seqs = pir.create_lod_tensor(x, [[3, 2, 0]])
    got = check_op("sequence_pool", {"X": seqs}, {"pooltype": "MAX", "pad_value": 0.0},
                   outputs={"Out": 1, "MaxIndex": 1})
    np.testing.assert_array_equal(got["MaxIndex"][0].numpy(), [[1, 0], [3, 4], [-1, -1]])
    # dX by hand: dOut[s, f] lands on the max row of sequence s, feature f; the empty
    # sequence's dOut lands nowhere, so X's last row gets only sequence 1's feature 1.
    dout = np.array([[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]])
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 2], dtype="float64", lod_level=1)
    block.create_var(name="idx", shape=[-1, 2], dtype="int32", lod_level=1)
    block.create_var(name="dout", shape=[-1, 2], dtype="float64", lod_level=1)
    block.create_var(name="dx", shape=[-1, 2], dtype="float64", lod_level=1)
    block.append_op("sequence_pool_grad", inputs={"X": ["x"], "MaxIndex": ["idx"],
                                                  "Out@GRAD": ["dout"]},
                    outputs={"X@GRAD": ["dx"]}, attrs={"pooltype": "MAX"})
    (dx,) = pir.Executor().run(program, feed={
        "x": seqs, "idx": pir.create_lod_tensor(np.array([[1, 0], [3, 4], [-1, -1]], np.int32),
                                                [[1, 1, 1]]),
        "dout": pir.create_lod_tensor(dout, [[1, 1, 1]])}, fetch_list=["dx"])
    want = np.zeros_like(x)
    want[1, 0], want[0, 1], want[3, 0], want[4, 1] = 10.0, 20.0, 30.0, 40.0
    np.testing.assert_array_equal(dx, want)


def test_max_pool_gradient_with_a_trailing_empty_sequence_matches_finite_differences():
    rng = np.random.RandomState(3)
    x = pir.create_lod_tensor(rng.uniform(-1, 1, (5, 3)), [[3, 2, 0]])
    check_grad("sequence_pool", {"X": x}, {"pooltype": "MAX"},
               outputs={"Out": 1, "MaxIndex": 1})


@pytest.mark.parametrize("pooltype", ["MAX", "SUM"])
def test_sequence_pool_grad_declares_x_grad_like_x_with_the_gradient_dtype(pooltype):
    """The grad op's build-time rule, checked against its run by the op-test harness."""
    x = pir.create_lod_tensor(np.arange(10, dtype=np.float64).reshape(5, 2), [[3, 2, 0]])
    inputs = {"X": x, "Out@GRAD": pir.create_lod_tensor(np.ones((3, 2)), [[1, 1, 1]])}
    if pooltype == "MAX":
        inputs["MaxIndex"] = pir.create_lod_tensor(
            np.array([[2, 2], [4, 4], [-1, -1]], np.int32), [[1, 1, 1]])
    want = np.zeros((5, 2))
    if pooltype == "MAX":
        want[2] = want[4] = 1.0
    else:
        want[:] = 1.0
    got = check_op("sequence_pool_grad", inputs, {"pooltype": pooltype},
                   {"X@GRAD": pir.create_lod_tensor(want, [[3, 2, 0]])},
                   outputs={"X@GRAD": 1})
    assert got["X@GRAD"][0].dtype == np.float64


@pytest.mark.parametrize("pooltype", POOL_TYPES)
def test_an_empty_sequence_pools_to_zeros_when_the_op_sets_no_pad_value(pooltype):
    """pad_value defaults to 0.0, as in Paddle: an op (a loaded program's, say) that does
    not set it gives an empty sequence a row of zeros, inputs all positive."""
    lengths = [2, 0, 1]
    x = pir.create_lod_tensor(rng.uniform(1, 2, (3, 2)).astype(np.float32), [lengths])
    want, want_index = reference_pool(x.numpy(), lengths, pooltype)
    expected = {"Out": want} if pooltype != "MAX" else {"Out": want, "MaxIndex": want_index}
    got = check_op("sequence_pool", {"X": x}, {"pooltype": pooltype}, expected,
                   outputs=pool_outputs(pooltype))
    np.testing.assert_array_equal(got["Out"][0].numpy()[1], [0, 0])


def test_the_grad_op_s_attributes_default_as_the_forward_op_s():
    """sequence_pool_grad copies pooltype, is_test and pad_value from the forward op; a
    program that leaves one out of the grad op gets the forward op's default."""
    from paddle_ir.ops import registry

    forward = {a.name: (a.kind, a.default) for a in registry.get_op_def("sequence_pool").attrs}
    grad = {a.name: (a.kind, a.default)
            for a in registry.get_op_def("sequence_pool_grad").attrs}
    assert grad == forward == {"pooltype": ("string", "AVERAGE"), "is_test": ("bool", False),
                               "pad_value": ("float", 0.0)}


@pytest.mark.parametrize("is_test", [False, True])
@pytest.mark.parametrize("pooltype", POOL_TYPES)
def test_max_index_is_declared_as_it_runs_empty_unless_max_pooling_trains(pooltype, is_test):
    """MaxIndex, bound for every pool type (as a Paddle program binds it), holds the pooled
    rows for MAX in training only; otherwise it runs empty, (0,) as in Paddle 3.3.1 (its
    run gives (0,) for SUM, AVERAGE and FIRST), and is declared (0,): exactly that, not an
    unknown size a later op's inference would have to guess."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 2], lod_level=1)
        block = main.global_block()
        out = block.create_var(name="pooled", dtype="float32")
        block.create_var(name="index", dtype="int32")
        block.append_op("sequence_pool", inputs={"X": [x]},
                        outputs={"Out": [out], "MaxIndex": ["index"]},
                        attrs={"pooltype": pooltype, "is_test": is_test})
    makes_index = pooltype == "MAX" and not is_test
    declared = block.var("index")
    assert declared.shape == ((-1, 2) if makes_index else (0,))
    assert declared.dtype == np.int32 and declared.lod_level == 0
    data = np.array([[1.0, 6.0], [5.0, 2.0], [3.0, 4.0]], np.float32)
    (index,) = pir.Executor().run(main, feed={"x": pir.create_lod_tensor(data, [[2, 1]])},
                                  fetch_list=["index"])
    want = np.array([[1, 0], [2, 2]], np.int32) if makes_index else np.zeros(0, np.int32)
    np.testing.assert_array_equal(index, want)
    assert index.shape == want.shape and index.dtype == np.int32


def test_an_unknown_pool_type_is_named_with_the_fix_in_the_forward_and_the_grad_op():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 8], lod_level=1)
        with pytest.raises(pir.ProgramError, match=(
                r"(?s)pooltype must be one of AVERAGE, SUM, SQRT, MAX, LAST, FIRST, got "
                r"'MEDIAN'.*hint: the sequence_pool layer takes pool_type in any case, "
                r"e\.g\. 'max'")):
            pir.layers.sequence_pool(x, "median")
    program = pir.Program()
    block = program.global_block()
    for n in ("x", "dout", "dx"):
        block.create_var(name=n, shape=[-1, 2], dtype="float32", lod_level=1)
    with pytest.raises(pir.ProgramError, match=r"(?s)sequence_pool_grad.*got 'max'"):
        block.append_op("sequence_pool_grad", inputs={"X": ["x"], "Out@GRAD": ["dout"]},
                        outputs={"X@GRAD": ["dx"]}, attrs={"pooltype": "max"})


def test_the_max_gradient_without_max_index_is_refused_when_built():
    program = pir.Program()
    block = program.global_block()
    for n in ("x", "dout", "dx"):
        block.create_var(name=n, shape=[-1, 2], dtype="float32", lod_level=1)
    with pytest.raises(pir.ProgramError, match=r"MAX pooling's gradient needs "
                                                r"Input\(MaxIndex\)"):
        block.append_op("sequence_pool_grad", inputs={"X": ["x"], "Out@GRAD": ["dout"]},
                        outputs={"X@GRAD": ["dx"]}, attrs={"pooltype": "MAX"})


def test_a_zero_dimensional_input_has_no_rows_to_pool():
    """require_lod refuses it first (a LoD segments rows), naming the variable."""
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="x", shape=[], dtype="float32", lod_level=1)
    block.create_var(name="out", dtype="float32")
    with pytest.raises(pir.ProgramError, match=r"Input\(X\) of sequence_pool is a sequence "
                                                r"batch, so it needs a row dimension, but 'x' "
                                                r"is declared 0-D with lod_level 1"):
        block.append_op("sequence_pool", inputs={"X": ["x"]}, outputs={"Out": ["out"]},
                        attrs={"pooltype": "SUM"})


@pytest.mark.parametrize("pooltype", POOL_TYPES)
def test_a_float64_input_pads_with_the_float32_attribute_widened(pooltype):
    """pad_value is a FLOAT attribute (float32 on the wire, as in Paddle): a float64 input's
    empty sequence gets float32(0.1) widened, 0.10000000149..., not the double 0.1."""
    x = pir.create_lod_tensor(np.ones((2, 2), np.float64), [[2, 0]])
    got = check_op("sequence_pool", {"X": x}, {"pooltype": pooltype, "pad_value": 0.1},
                   outputs=pool_outputs(pooltype))
    assert got["Out"][0].numpy()[1].tolist() == [float(np.float32(0.1))] * 2
