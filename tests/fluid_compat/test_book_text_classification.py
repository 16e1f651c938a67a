"""understand_sentiment's stacked LSTM net on LoD input: embedding -> fc -> dynamic_lstm,
stacked three deep with alternating directions, max sequence_pool, softmax; DataFeeder
builds the LoD from lists of word ids. The saved model passes `paddle-ir check` (the
sequence_pool MAX regression) and runs with `paddle-ir run --lod`."""

import subprocess
import sys

import numpy as np

import paddle_ir as fluid
from tests.fluid_compat.helpers import falling, paddle_ir_check, paddle_ir_run

VOCAB, CLASS_DIM, EMB_DIM, HID_DIM, STACKED_NUM = 30, 2, 8, 16, 3


def samples(count, seed):
    """Sentences of ids; label 1 when words from the upper half outnumber the lower half."""
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(count):
        words = rng.randint(0, VOCAB, rng.randint(2, 9)).tolist()
        label = int(sum(w >= VOCAB // 2 for w in words) * 2 > len(words))
        out.append((words, [label]))
    return out


def stacked_lstm_net(data, label):
    emb = fluid.layers.embedding(input=data, size=[VOCAB, EMB_DIM], is_sparse=True)
    fc1 = fluid.layers.fc(input=emb, size=HID_DIM)
    lstm1, cell1 = fluid.layers.dynamic_lstm(input=fc1, size=HID_DIM)
    inputs = [fc1, lstm1]
    for i in range(2, STACKED_NUM + 1):
        fc = fluid.layers.fc(input=inputs, size=HID_DIM)
        lstm, cell = fluid.layers.dynamic_lstm(input=fc, size=HID_DIM, is_reverse=(i % 2) == 0)
        inputs = [fc, lstm]
    fc_last = fluid.layers.sequence_pool(input=inputs[0], pool_type="max")
    lstm_last = fluid.layers.sequence_pool(input=inputs[1], pool_type="max")
    prediction = fluid.layers.fc(input=[fc_last, lstm_last], size=CLASS_DIM, act="softmax")
    cost = fluid.layers.cross_entropy(input=prediction, label=label)
    avg_cost = fluid.layers.mean(cost)
    accuracy = fluid.layers.accuracy(input=prediction, label=label)
    return avg_cost, accuracy, prediction


def test_stacked_lstm_text_classification(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        data = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        avg_cost, accuracy, prediction = stacked_lstm_net(data, label)
        fluid.optimizer.Adagrad(learning_rate=0.05).minimize(avg_cost)

    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    feeder = fluid.DataFeeder(feed_list=[data, label], place=place)
    train = samples(640, seed=1)
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        losses, accs = [], []
        for _ in range(4):
            for start in range(0, len(train), 32):
                cost_np, acc_np = exe.run(main, feed=feeder.feed(train[start:start + 32]),
                                          fetch_list=[avg_cost, accuracy])
                losses.append(cost_np[0])
                accs.append(acc_np[0])
        assert falling(losses, 0.8), (losses[:3], losses[-3:])
        assert np.mean(accs[-10:]) > 0.75, accs[-10:]
        model = tmp_path / "sentiment"
        fluid.io.save_inference_model(str(model), ["words"], [prediction], exe,
                                      main_program=main)

    checked = paddle_ir_check(model)
    assert checked.returncode == 0, checked.stdout + checked.stderr  # MAX pool: MaxIndex

    test = samples(6, seed=2)
    words = fluid.create_lod_tensor([np.array(w) for w, _ in test],
                                    [[len(w) for w, _ in test]], place)
    with fluid.scope_guard(fluid.core.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(str(model), exe)
        probs, = exe.run(program, feed={feeds[0]: words}, fetch_list=fetches)
    assert probs.shape == (6, CLASS_DIM)

    lengths = [[len(w) for w, _ in test]]
    out = paddle_ir_run(model, {"words": words.numpy()}, tmp_path, lods={"words": lengths})
    assert "shape=[6, 2]" in out, out

    # Without --lod the CLI says how to give one.
    np.save(tmp_path / "w.npy", words.numpy())
    done = subprocess.run([sys.executable, "-m", "paddle_ir", "run", str(model), "--feed",
                           f"words={tmp_path / 'w.npy'}"], capture_output=True, text=True)
    assert done.returncode == 1
    assert "lod_level=1" in done.stderr and "--lod words=" in done.stderr, done.stderr
