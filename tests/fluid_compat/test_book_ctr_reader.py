"""A CTR-style model with many sparse id slots (lod_level=1), each through its own sparse
embedding and a sum pool, fed from a Python generator three ways Fluid 1.x programs do:
create_py_reader_by_data + start/EOFException/reset, layers.py_reader + read_file, and
an iterable DataLoader.from_generator. Trained with ParallelExecutor / CompiledProgram,
which run on the one CPU Executor."""

import numpy as np
import pytest

import paddle_ir as fluid
from tests.fluid_compat.helpers import falling, paddle_ir_run

SLOTS, VOCAB, EMB = 6, 50, 4


def sample_generator(count=384, seed=0):
    """One sample: SLOTS id lists, then [click]; a click when slot 0 holds an id < 10."""
    def reader():
        rng = np.random.RandomState(seed)
        for _ in range(count):
            slots = [rng.randint(0, VOCAB, rng.randint(1, 4)).tolist() for _ in range(SLOTS)]
            yield tuple(slots) + ([int(min(slots[0]) < 10)],)
    return reader


def batched(reader, batch_size=32):
    def batches():
        batch = []
        for sample in reader():
            batch.append(sample)
            if len(batch) == batch_size:
                yield batch
                batch = []
    return batches


def ctr_net(slots, label):
    pooled = []
    for i, slot in enumerate(slots):
        emb = fluid.layers.embedding(input=slot, size=[VOCAB, EMB], is_sparse=True,
                                     param_attr=fluid.ParamAttr(name=f"emb_{i}"))
        pooled.append(fluid.layers.sequence_pool(input=emb, pool_type="sum"))
    hidden = fluid.layers.fc(input=fluid.layers.concat(pooled, axis=1), size=16, act="relu",
                             bias_attr=True)
    predict = fluid.layers.fc(input=hidden, size=2, act="softmax")
    avg_cost = fluid.layers.mean(fluid.layers.cross_entropy(input=predict, label=label))
    return predict, avg_cost


def build(reader_kind):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 11
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        if reader_kind == "py_reader":
            reader = fluid.layers.py_reader(
                capacity=64, shapes=[[-1, 1]] * SLOTS + [[-1, 1]],
                dtypes=["int64"] * (SLOTS + 1), lod_levels=[1] * SLOTS + [0], name="ctr")
            *slots, label = fluid.layers.read_file(reader)
        else:
            slots = [fluid.layers.data(name=f"slot_{i}", shape=[1], dtype="int64", lod_level=1)
                     for i in range(SLOTS)]
            label = fluid.layers.data(name="click", shape=[1], dtype="int64")
            if reader_kind == "by_data":
                reader = fluid.layers.create_py_reader_by_data(capacity=64,
                                                               feed_list=slots + [label])
            else:
                reader = fluid.io.DataLoader.from_generator(feed_list=slots + [label],
                                                            capacity=64, iterable=True)
        predict, avg_cost = ctr_net(slots, label)
        fluid.optimizer.SGD(learning_rate=0.5).minimize(avg_cost)
    return main, startup, reader, slots, predict, avg_cost


@pytest.mark.parametrize("reader_kind", ["by_data", "py_reader"])
def test_ctr_from_a_started_reader_until_eof(reader_kind, tmp_path):
    main, startup, reader, slots, predict, avg_cost = build(reader_kind)
    reader.decorate_paddle_reader(batched(sample_generator()))
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=avg_cost.name)
        losses, steps_per_pass = [], []
        for _ in range(4):
            reader.start()
            steps = 0
            try:
                while True:
                    loss, = exe.run(compiled, fetch_list=[avg_cost.name])
                    losses.append(loss[0])
                    steps += 1
            except fluid.core.EOFException:
                reader.reset()
            steps_per_pass.append(steps)
        assert steps_per_pass == [12] * 4
        assert falling(losses, 0.8), (losses[:3], losses[-3:])
        names = [s.name for s in slots]
        fluid.io.save_inference_model(str(tmp_path / "ctr"), names, [predict], exe,
                                      main_program=main)
    ids = np.array([[1], [2], [30], [31], [40]], np.int64)
    feeds = {n: ids for n in names}
    lods = {n: "[[2, 3]]" for n in names}
    out = paddle_ir_run(tmp_path / "ctr", feeds, tmp_path, lods=lods)
    assert "shape=[2, 2]" in out, out


def test_ctr_from_an_iterable_data_loader_with_parallel_executor():
    main, startup, loader, slots, predict, avg_cost = build("loader")
    loader.set_sample_generator(sample_generator(), batch_size=32, drop_last=True)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        pe = fluid.ParallelExecutor(use_cuda=False, loss_name=avg_cost.name, main_program=main)
        losses = []
        for _ in range(4):
            for data in loader():
                assert isinstance(data, list) and len(data) == 1  # one feed dict per device
                loss, = pe.run(fetch_list=[avg_cost.name], feed=data[0])
                losses.append(loss[0])
            for data in loader():  # an Executor takes the per-device list as is
                exe.run(main, feed=data, fetch_list=[avg_cost])
                break
    assert len(losses) == 48
    assert falling(losses, 0.8), (losses[:3], losses[-3:])


def test_reader_errors():
    main, startup, reader, *_ = build("by_data")
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        with pytest.raises(fluid.PaddleIRError, match="has no data source"):
            reader.start()
        reader.decorate_paddle_reader(batched(sample_generator(count=32)))
        with pytest.raises(fluid.PaddleIRError, match="was not started; call reader.start"):
            exe.run(main)
        reader.start()
        exe.run(main)
        with pytest.raises(fluid.core.EOFException, match="no more batches"):
            exe.run(main)
    with pytest.raises(fluid.PaddleIRError, match="one feed dict per device"):
        exe.run(main, feed=[{}, {}])


def test_a_test_clone_reads_from_the_same_started_reader():
    """Fluid's read ops are part of the program: main.clone(for_test=True) run with no feed
    takes its batches from the reader the training program was given."""
    main, startup, reader, slots, predict, avg_cost = build("by_data")
    test_program = main.clone(for_test=True)
    reader.decorate_paddle_reader(batched(sample_generator()))
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        reader.start()
        costs = []
        try:
            while True:
                costs.append(exe.run(test_program, fetch_list=[avg_cost.name])[0][0])
        except fluid.core.EOFException:
            reader.reset()
    assert len(costs) == 12  # every batch of the pass, none trained on
    assert not any(op.type == "sgd" for op in test_program.global_block().ops)
