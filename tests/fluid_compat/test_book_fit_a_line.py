"""fit_a_line as a Fluid 1.x user writes it: layers.data without a batch dim, DataFeeder
from sample tuples, CPUPlace(), avg_cost[0], save/load_inference_model, `paddle-ir run`."""

import numpy as np

import paddle_ir as fluid
from tests.fluid_compat.helpers import falling, paddle_ir_run

TRUE_W = np.array([0.5, -1.0, 2.0, 0.0, 1.5, -0.5, 0.25, 1.0, -2.0, 0.75, 0.1, -0.3, 0.6],
                  np.float32)


def reader(batches=150, batch_size=16, seed=0):
    rng = np.random.RandomState(seed)
    for _ in range(batches):
        xs = rng.uniform(-1, 1, (batch_size, 13)).astype(np.float32)
        ys = xs @ TRUE_W + 0.3
        yield [(x, [y]) for x, y in zip(xs, ys, strict=True)]  # (features, [price]) samples


def test_fit_a_line_trains_saves_loads_and_runs(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[13], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="float32")
        y_predict = fluid.layers.fc(input=x, size=1, act=None)
        cost = fluid.layers.square(fluid.layers.elementwise_sub(y_predict, y))
        avg_cost = fluid.layers.mean(cost)
        test_program = main.clone(for_test=True)
        sgd_optimizer = fluid.optimizer.SGD(learning_rate=0.1)
        sgd_optimizer.minimize(avg_cost)
    assert x.shape == (-1, 13) and y.shape == (-1, 1)

    place = fluid.CPUPlace()
    feeder = fluid.DataFeeder(place=place, feed_list=[x, y])
    exe = fluid.Executor(place)
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        losses = []
        for data in reader():
            avg_loss_value, = exe.run(main, feed=feeder.feed(data), fetch_list=[avg_cost])
            assert avg_loss_value.shape == (1,)
            losses.append(avg_loss_value[0])  # the universal Fluid idiom
        assert falling(losses, 0.2), losses
        test_loss, = exe.run(test_program, feed=feeder.feed(next(reader(1, 8, seed=5))),
                             fetch_list=[avg_cost])
        assert test_loss[0] < losses[0]
        batch = next(reader(1, 4, seed=9))
        xs = np.array([s[0] for s in batch])
        want, = exe.run(test_program, feed=feeder.feed(batch), fetch_list=[y_predict])
        fluid.io.save_inference_model(str(tmp_path / "fit_a_line"), ["x"], [y_predict], exe,
                                      main_program=main)
    with fluid.scope_guard(fluid.core.Scope()):
        infer_program, feed_names, fetch_targets = fluid.io.load_inference_model(
            str(tmp_path / "fit_a_line"), exe)
        results = exe.run(infer_program, feed={feed_names[0]: xs}, fetch_list=fetch_targets)
    assert results[0].shape == (4, 1)
    np.testing.assert_allclose(results[0], want, rtol=1e-6)
    np.testing.assert_allclose(results[0][:, 0], xs @ TRUE_W + 0.3, atol=0.15)

    out = paddle_ir_run(tmp_path / "fit_a_line", {"x": xs}, tmp_path)
    assert "shape=[4, 1]" in out, out
    assert f"{want[0, 0]:.4g}"[:5] in out, (want, out)
