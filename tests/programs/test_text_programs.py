"""Whole programs in the style of the Paddle book's chapters, trained on synthetic data:

- a CNN text classifier (understand_sentiment's convolution net) built on
  nets.sequence_conv_pool, which must tell "3 7" from "7 3" inside random
  sentences: only a window over neighbouring words can (both classes hold both words);
- an SRL-style tagger (label_semantic_roles): stacked forward/backward dynamic_lstm
  layers under a linear_chain_crf loss, decoded with crf_decoding and scored with
  chunk_eval, learning an IOB chunking rule that depends on the previous word.
"""

import numpy as np

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.layers import nets


def order_sentences(rng, n, vocab=30):
    """Random sentences (words 3 and 7 left out) with "3 7" (label 1) or "7 3" (0) inserted."""
    fillers = np.setdiff1d(np.arange(vocab), [3, 7])
    sentences, labels = [], []
    for _ in range(n):
        body = list(rng.choice(fillers, rng.randint(3, 15)))
        label = int(rng.rand() < 0.5)
        pos = rng.randint(0, len(body) + 1)
        body[pos:pos] = [3, 7] if label else [7, 3]
        sentences.append(body)
        labels.append(label)
    return sentences, np.array(labels, dtype=np.int64).reshape(-1, 1)


def as_lod(sentences):
    flat = np.concatenate([np.asarray(s, dtype=np.int64) for s in sentences]).reshape(-1, 1)
    return pir.create_lod_tensor(flat, [[len(s) for s in sentences]])


def test_cnn_text_classifier_learns_word_order():
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 7
    with pir.program_guard(main, startup):
        words = layers.data("words", [-1, 1], dtype="int64", lod_level=1)
        label = layers.data("label", [-1, 1], dtype="int64")
        emb = layers.embedding(words, size=[30, 16])
        conv = nets.sequence_conv_pool(emb, num_filters=32, filter_size=3, act="tanh",
                                       pool_type="max")
        prediction = layers.fc(conv, size=2, act="softmax")
        loss = layers.mean(layers.cross_entropy(prediction, label))
        accuracy = layers.accuracy(prediction, label)
        test_program = main.clone(for_test=True)
        pir.optimizer.Adam(learning_rate=0.01).minimize(loss)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.RandomState(0)
    for _ in range(150):
        sentences, labels = order_sentences(rng, 32)
        exe.run(main, feed={"words": as_lod(sentences), "label": labels}, fetch_list=[loss],
                scope=scope)
    sentences, labels = order_sentences(np.random.RandomState(99), 500)
    (acc,) = exe.run(test_program, feed={"words": as_lod(sentences), "label": labels},
                     fetch_list=[accuracy], scope=scope)
    assert float(np.asarray(acc).reshape(-1)[0]) >= 0.95     # chance is 0.5


# IOB tags of one chunk type: B 0, I 1, O 2. Determiners (1, 2) begin a chunk; nouns
# (3..8) continue one if the previous word is in a chunk; everything else is outside.
B, I, O = 0, 1, 2


def tagged_sentences(rng, n, vocab=20):
    sentences, tags = [], []
    for _ in range(n):
        words = rng.randint(1, vocab, rng.randint(4, 12))
        seq, inside = [], False
        for w in words:
            if w in (1, 2):
                seq.append(B)
                inside = True
            elif 3 <= w <= 8 and inside:
                seq.append(I)
            else:
                seq.append(O)
                inside = False
        sentences.append(words)
        tags.append(seq)
    return sentences, tags


def test_stacked_lstm_crf_tagger_learns_chunks():
    hidden, depth = 16, 2
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 3
    with pir.program_guard(main, startup):
        words = layers.data("words", [-1, 1], dtype="int64", lod_level=1)
        target = layers.data("target", [-1, 1], dtype="int64", lod_level=1)
        emb = layers.embedding(words, size=[20, 16])
        # label_semantic_roles' db_lstm: alternate directions, each layer fed the last two.
        hidden_0 = layers.fc(emb, size=4 * hidden, act="tanh")
        lstm_0, _ = layers.dynamic_lstm(hidden_0, size=4 * hidden)
        inputs = [hidden_0, lstm_0]
        for k in range(1, depth):
            mix = layers.fc(inputs, size=4 * hidden, act="tanh")
            lstm, _ = layers.dynamic_lstm(mix, size=4 * hidden, is_reverse=k % 2 == 1)
            inputs = [mix, lstm]
        emission = layers.fc(inputs, size=3)
        crf_cost = layers.linear_chain_crf(emission, target,
                                           param_attr=pir.ParamAttr(name="crfw"))
        loss = layers.mean(crf_cost)
        path = layers.crf_decoding(emission, param_attr=pir.ParamAttr(name="crfw"))
        metrics = layers.chunk_eval(path, target, chunk_scheme="IOB", num_chunk_types=1)
        test_program = main.clone(for_test=True)
        pir.optimizer.Adam(learning_rate=0.02).minimize(loss)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.RandomState(1)
    losses = []
    for _ in range(120):
        sentences, tags = tagged_sentences(rng, 16)
        (cost,) = exe.run(main, feed={"words": as_lod(sentences), "target": as_lod(tags)},
                          fetch_list=[loss], scope=scope)
        losses.append(float(np.asarray(cost).reshape(-1)[0]))
    sentences, tags = tagged_sentences(np.random.RandomState(42), 200)
    got = exe.run(test_program, feed={"words": as_lod(sentences), "target": as_lod(tags)},
                  fetch_list=[path, *metrics], scope=scope, return_numpy=False)
    decoded = got[0]
    assert decoded.lod() == [list(np.cumsum([0] + [len(s) for s in sentences]))]
    precision, recall, f1 = (float(np.asarray(v).reshape(-1)[0]) for v in got[1:4])
    assert f1 >= 0.95 and precision >= 0.95 and recall >= 0.95
    assert int(np.asarray(got[6]).reshape(-1)[0]) > 100          # correct chunks counted
    assert np.mean(losses[-10:]) < 0.2 * np.mean(losses[:10])
