"""A DynamicRNN sentiment model as Fluid 1.x programs write it: step_input over embedded
words, a memory with a shape, update_memory, output, the last step into a softmax."""

import numpy as np

import paddle_ir as fluid
from tests.fluid_compat.helpers import falling, paddle_ir_run

VOCAB, EMB, HID = 20, 8, 12


def samples(count, seed):
    """Label 1 when the sentence's last word is in the upper half of the vocabulary."""
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(count):
        words = rng.randint(0, VOCAB, rng.randint(1, 7)).tolist()
        out.append((words, [int(words[-1] >= VOCAB // 2)]))
    return out


def test_dynamic_rnn_sentiment(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        sentence = fluid.layers.data(name="word", shape=[1], dtype="int64", lod_level=1)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        emb = fluid.layers.embedding(input=sentence, size=[VOCAB, EMB], is_sparse=True)
        drnn = fluid.layers.DynamicRNN()
        with drnn.block():
            word = drnn.step_input(emb)
            prev = drnn.memory(shape=[HID], value=0.0)
            hidden = fluid.layers.fc(input=[word, prev], size=HID, act="tanh")
            drnn.update_memory(prev, hidden)
            drnn.output(hidden)
        last = fluid.layers.sequence_last_step(drnn())
        prediction = fluid.layers.fc(input=last, size=2, act="softmax")
        avg_cost = fluid.layers.mean(fluid.layers.cross_entropy(input=prediction, label=label))
        fluid.optimizer.Adam(learning_rate=0.02).minimize(avg_cost)

    exe = fluid.Executor(fluid.CPUPlace())
    feeder = fluid.DataFeeder(feed_list=["word", "label"], place=fluid.CPUPlace(), program=main)
    train = samples(480, seed=1)
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        losses = []
        for _ in range(3):
            for start in range(0, len(train), 32):
                loss, = exe.run(main, feed=feeder.feed(train[start:start + 32]),
                                fetch_list=[avg_cost])
                losses.append(float(loss[0]))
        assert falling(losses, 0.7), (losses[:3], losses[-3:])
        fluid.io.save_inference_model(str(tmp_path / "drnn"), ["word"], [prediction], exe,
                                      main_program=main)

    test = samples(5, seed=4)
    words = np.concatenate([w for w, _ in test]).reshape(-1, 1).astype(np.int64)
    lengths = [[len(w) for w, _ in test]]
    with fluid.scope_guard(fluid.core.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path / "drnn"), exe)
        probs, = exe.run(program, feed={"word": fluid.create_lod_tensor(words, lengths, None)},
                         fetch_list=fetches)
    assert probs.shape == (5, 2)
    out = paddle_ir_run(tmp_path / "drnn", {"word": words}, tmp_path, lods={"word": lengths})
    assert "shape=[5, 2]" in out, out
