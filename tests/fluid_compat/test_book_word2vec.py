"""word2vec (N-gram) as in the book chapter: four context words through one shared sparse
embedding (ParamAttr name), concat, hidden fc, softmax over the vocabulary; trained from
DataFeeder batches, saved, loaded and run without any LoD."""

import numpy as np

import paddle_ir as fluid
from tests.fluid_compat.helpers import falling, paddle_ir_run

DICT_SIZE, EMBED_SIZE, HIDDEN_SIZE, N = 40, 16, 32, 5


def corpus(seed=0, length=3000):
    """A word stream where each word is mostly its predecessor + 1 (mod the vocabulary)."""
    rng = np.random.RandomState(seed)
    words = [0]
    for _ in range(length):
        step = 1 if rng.rand() < 0.9 else rng.randint(DICT_SIZE)
        words.append((words[-1] + step) % DICT_SIZE)
    return words


def batches(batch_size=64):
    words = corpus()
    samples = [tuple([w] for w in words[i:i + N]) for i in range(len(words) - N)]
    for start in range(0, len(samples) - batch_size, batch_size):
        yield samples[start:start + batch_size]


def build(is_sparse=True):
    names = ["firstw", "secondw", "thirdw", "forthw"]
    words = [fluid.layers.data(name=n, shape=[1], dtype="int64") for n in names]
    next_word = fluid.layers.data(name="nextw", shape=[1], dtype="int64")
    embs = [fluid.layers.embedding(input=w, size=[DICT_SIZE, EMBED_SIZE], dtype="float32",
                                   is_sparse=is_sparse, is_distributed=False,
                                   param_attr="shared_w") for w in words]
    concat_embed = fluid.layers.concat(input=embs, axis=1)
    hidden1 = fluid.layers.fc(input=concat_embed, size=HIDDEN_SIZE, act="sigmoid")
    predict_word = fluid.layers.fc(input=hidden1, size=DICT_SIZE, act="softmax")
    cost = fluid.layers.cross_entropy(input=predict_word, label=next_word)
    avg_cost = fluid.layers.mean(cost)
    return words + [next_word], predict_word, avg_cost


def test_word2vec_with_shared_sparse_embedding(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        feed_vars, predict_word, avg_cost = build()
        fluid.optimizer.Adam(learning_rate=0.01).minimize(avg_cost)
    tables = [p.name for p in main.global_block().all_parameters() if p.name == "shared_w"]
    assert tables == ["shared_w"]  # one table for the four lookups

    place = fluid.CUDAPlace(0) if fluid.core.is_compiled_with_cuda() else fluid.CPUPlace()
    exe = fluid.Executor(place)
    feeder = fluid.DataFeeder(feed_list=feed_vars, place=place)
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        losses = []
        for _ in range(3):
            for data in batches():
                avg_cost_np = exe.run(main, feed=feeder.feed(data), fetch_list=[avg_cost])
                losses.append(avg_cost_np[0][0])
        assert falling(losses, 0.5), (losses[:3], losses[-3:])
        model = str(tmp_path / "word2vec")
        fluid.io.save_inference_model(model, ["firstw", "secondw", "thirdw", "forthw"],
                                      [predict_word], exe, main_program=main)

    with fluid.scope_guard(fluid.core.Scope()):
        program, feed_names, fetch_targets = fluid.io.load_inference_model(model, exe)
        ids = {n: np.array([[i + k] for i in range(3)], np.int64)
               for k, n in enumerate(feed_names)}
        probs, = exe.run(program, feed=ids, fetch_list=fetch_targets, return_numpy=False)
    probs = np.array(probs)
    assert probs.shape == (3, DICT_SIZE)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    # After "i, i+1, i+2, i+3" the model predicts i+4 most of the time.
    assert (probs.argmax(axis=1) == np.arange(3) + 4).mean() >= 2 / 3

    out = paddle_ir_run(tmp_path / "word2vec", ids, tmp_path)
    assert f"shape=[3, {DICT_SIZE}]" in out, out
