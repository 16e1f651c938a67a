"""Parameter-server training in one process: parity, async, traffic, faults, checkpoints."""

import threading

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.distributed import (
    DistributedError,
    ParameterServer,
    merge_checkpoint,
    train,
)
from paddle_ir.distributed.communicator import TrainerCommunicator
from paddle_ir.distributed.launch import transpile
from paddle_ir.distributed.local import LocalTransport
from paddle_ir.ops.distributed_ops.dist_comm import COMMUNICATOR
from paddle_ir.transpiler import DistributeTranspilerConfig
from tests.distributed.models import (
    DIM,
    VOCAB,
    batches,
    ctr_model,
    initial_and_trained,
    split_batches,
)

SMALL_BLOCKS = DistributeTranspilerConfig(min_block_size=16)
OPTIMIZERS = {
    "sgd": lambda: pir.optimizer.SGD(0.2),
    "lazy_adam": lambda: pir.optimizer.Adam(0.02, lazy_mode=True),
    "adam": lambda: pir.optimizer.Adam(0.02),
    "momentum": lambda: pir.optimizer.Momentum(0.1, 0.9),
    "adagrad": lambda: pir.optimizer.Adagrad(0.1),
    # learning-rate schedules run on the servers, once per round (the lr_decay block)
    "sgd_exponential_decay": lambda: pir.optimizer.SGD(
        pir.layers.exponential_decay(0.4, 4, 0.5, staircase=True)),
    "momentum_piecewise_decay": lambda: pir.optimizer.Momentum(
        pir.layers.piecewise_decay([5, 12], [0.2, 0.05, 0.01]), 0.9),
    "lazy_adam_noam_decay": lambda: pir.optimizer.Adam(
        pir.layers.noam_decay(16, 5, 0.5), lazy_mode=True),
}


@pytest.mark.parametrize("distributed", [False, True], ids=["sparse", "distributed"])
@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_sync_training_equals_one_machine_on_the_joined_batches(distributed, opt):
    """2 servers x 2 trainers, 20 steps: every parameter equals single-process training on
    the concatenated batches (the servers average the two halves' gradients)."""
    main, startup, loss, _ = ctr_model(distributed, OPTIMIZERS[opt])
    global_batches = batches(20, 8)
    initial, trained, _ = initial_and_trained(main, startup, loss, global_batches)
    result = train(main, startup, split_batches(global_batches, 2), pservers=2,
                   fetch_list=[loss], init_from=initial, local=True, config=SMALL_BLOCKS)
    for name, value in trained.items():
        np.testing.assert_allclose(result.params[name], value, rtol=0, atol=1e-6, err_msg=name)
    moved = max(np.abs(trained[n] - initial[n]).max() for n in trained)
    assert moved > 1e-2  # the parameters did move: the comparison means something
    if distributed:  # the table is never on a trainer
        assert all("table" not in names for names in result.trainer_scopes)


def test_async_training_learns():
    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.Adam(0.05, lazy_mode=True))
    result = train(main, startup, split_batches(batches(60, 32), 2), pservers=2,
                   sync_mode=False, fetch_list=[loss], local=True, config=SMALL_BLOCKS)
    losses = [float(np.mean([result.fetches[t][s][0] for t in range(2)])) for s in range(60)]
    assert np.mean(losses[-10:]) < 0.6 * np.mean(losses[:10])


def _table_bytes(traffic) -> int:
    return sum(v for k, v in traffic["sent"].items() if k.startswith("table"))


def test_bytes_per_step_follow_distinct_ids_not_the_vocabulary():
    sent = {}
    for vocab in (100, 100_000):
        main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.1), vocab=vocab)
        rng = np.random.RandomState(1)
        ids = rng.choice(100, size=(8, 1), replace=False).astype(np.int64)
        feeds = [[{"ids": ids, "y": np.ones((8, 1), np.float32)}]]
        sent[vocab] = _table_bytes(train(main, startup, feeds, pservers=2, local=True,
                                         config=SMALL_BLOCKS).traffic[0])
    assert sent[100] == sent[100_000]
    # 8 distinct ids: 8 gradient rows of DIM floats + 8 row ids, plus 8 prefetched ids
    assert sent[100] == 8 * (DIM * 4 + 8) + 2 * 8 + 8 * 8
    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.1))
    few = [[{"ids": np.zeros((8, 1), np.int64), "y": np.ones((8, 1), np.float32)}]]
    fewer = _table_bytes(train(main, startup, few, pservers=2, local=True,
                               config=SMALL_BLOCKS).traffic[0])
    assert fewer < sent[100]


def _servers(main, startup, trainers=2, **kwargs):
    t, servers = transpile(main, startup, ["ps0", "ps1"], trainers, True, SMALL_BLOCKS)
    shapes = {v.name: tuple(v.shape) for v in main.global_block().vars.values()}
    return t, {e: ParameterServer(e, p, s, shapes, **kwargs) for e, (p, s) in servers.items()}


def test_a_trainer_that_never_pushes_fails_the_others_after_the_timeout():
    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.1))
    t, servers = _servers(main, startup)
    transport = LocalTransport(servers)
    scope = pir.Scope()
    scope.var(COMMUNICATOR).value = TrainerCommunicator(0, transport, timeout=0.5)
    exe = pir.Executor()
    exe.run(t.get_trainer_startup_program(), scope=scope)
    feed = batches(1, 4)[0]
    with pytest.raises(DistributedError, match=r"did not finish step 0 within 0.5 s: "
                                               r"trainer\(s\) \[1\] never pushed it"):
        exe.run(t.get_trainer_program(), feed=feed, fetch_list=[loss], scope=scope)


def test_a_failed_round_fails_every_trainer_at_once_and_stops_the_server(tmp_path):
    """A round that raises on a server may have run some updates: the pushing trainer and
    the trainers waiting on that round get the server's error at once (not a timeout
    blaming a trainer), and the server refuses everything after, saves included."""
    main, startup, loss, _ = ctr_model(False, lambda: pir.optimizer.SGD(0.1))
    t, servers = _servers(main, startup)
    ps0 = servers["ps0"]
    rate = next(n for n in ps0.pieces if n.startswith("learning_rate"))
    ps0.scope.find_var(rate).get_tensor().set(np.zeros((2, 2), np.float32))  # sgd refuses it
    transport = LocalTransport(servers)
    feeds = split_batches(batches(1, 8), 2)
    errors = {}

    def trainer(tid):
        scope = pir.Scope()
        scope.var(COMMUNICATOR).value = TrainerCommunicator(tid, transport, timeout=60)
        exe = pir.Executor()
        try:
            exe.run(t.get_trainer_startup_program(), scope=scope)
            exe.run(t.get_trainer_program(), feed=feeds[tid][0], fetch_list=[loss], scope=scope)
        except DistributedError as e:
            errors[tid] = str(e)

    threads = [threading.Thread(target=trainer, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=50)  # a regression waits out the 60 s pull timeout: fails here
    assert not any(th.is_alive() for th in threads)
    assert sorted(errors) == [0, 1]
    for message in errors.values():
        assert "server 'ps0' failed running step 0 and stopped" in message, message
        # the cause, as the server's executor gave it: the rate is not what its program
        # declares (checked before sgd could refuse its shape)
        assert f"persistable variable '{rate}' holds float32 [2, 2]" in message, message
    for call in (lambda: ps0.push(0, 0, {}), lambda: ps0.pull([rate]),
                 lambda: ps0.save(str(tmp_path / "ckpt"))):
        with pytest.raises(DistributedError, match="failed running step 0 and stopped"):
            call()
    assert not (tmp_path / "ckpt").exists()


def test_servers_check_every_push_before_touching_their_scope():
    main, startup, _, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.1))
    _, servers = _servers(main, startup)
    ps0 = servers["ps0"]
    before = {n: np.array(ps0.scope.find_var(n).get_tensor().numpy()) for n in ps0.pieces}
    table_grad = next(n for n in ps0.grads if n.startswith("table"))
    good_rows = {"rows": np.array([0, 2], np.int64), "value": np.ones((2, DIM), np.float32),
                 "height": VOCAB}
    cases = [
        ({"nope@GRAD": np.zeros(1)}, 0, r"unknown gradient 'nope@GRAD'"),
        ({table_grad: dict(good_rows, rows=np.array([0, 3], np.int64))}, 0,
         r"table 'table': row 3 is outside shard 0 of 2"),
        ({table_grad: dict(good_rows, rows=np.array([0, VOCAB], np.int64))}, 0,
         rf"row {VOCAB} is outside shard 0 of 2"),
        ({table_grad: dict(good_rows, value=np.ones((2, DIM + 1), np.float32))}, 0,
         r"value must be float32 \[2, 4\]"),
        ({table_grad: dict(good_rows, value=np.ones((2, DIM)))}, 0, r"value must be float32"),
        ({table_grad: dict(good_rows, height=5)}, 0, r"height must be the table's 60"),
        ({table_grad: np.ones((2, DIM), np.float32)}, 0, r"must be a SelectedRows"),
        ({}, 7, r"trainer id 7 is not in \[0, 2\)"),
    ]
    dense = next(n for n, spec in ps0.grads.items() if not spec.sparse)
    cases.append(({dense: np.ones((1,), np.float32)}, 0, rf"gradient '{dense}' must be float32"))
    for grads, trainer, message in cases:
        with pytest.raises(DistributedError, match=message):
            ps0.push(trainer, 0, grads)
    assert ps0.version == 0 and not ps0._pending
    for name, value in before.items():
        np.testing.assert_array_equal(ps0.scope.find_var(name).get_tensor().numpy(), value)
    ps0.push(0, 0, {table_grad: good_rows})
    with pytest.raises(DistributedError, match="pushed step 0 twice"):
        ps0.push(0, 0, {})
    with pytest.raises(DistributedError, match="at step 0 but trainer 1 pushed step 3"):
        ps0.push(1, 3, {})
    with pytest.raises(DistributedError, match="id 5 is outside shard 0 of 2"):
        ps0.prefetch(next(iter(ps0.tables)), np.array([4, 5]))
    with pytest.raises(DistributedError, match="no table shard 'fc_0.w_0'"):
        ps0.prefetch("fc_0.w_0", np.array([0]))


def test_checkpoint_merge_gives_the_distributed_models_predictions(tmp_path):
    main, startup, loss, pred = ctr_model(True, lambda: pir.optimizer.Adam(0.02, lazy_mode=True))
    infer = main.clone(for_test=True)
    job = tmp_path / "job"
    result = train(main, startup, split_batches(batches(10, 8), 2), pservers=2, local=True,
                   config=SMALL_BLOCKS, job_dir=str(job))
    out = tmp_path / "merged"
    merge_checkpoint(str(job), str(out))
    exe, scope = pir.Executor(), pir.Scope()
    loaded_main, _ = pir.io.load_train_program(str(out))
    pir.io.load_persistables(exe, str(out), loaded_main, scope)
    for name, value in result.params.items():
        np.testing.assert_array_equal(scope.find_var(name).get_tensor().numpy(), value)
    test_feed = batches(1, 6, seed=9)[0]
    got = exe.run(infer, feed=test_feed, fetch_list=[pred], scope=scope)[0]
    ref_scope = pir.Scope()
    for name, value in result.params.items():
        ref_scope.var(name).get_tensor().set(value)
    want = pir.Executor().run(infer, feed=test_feed, fetch_list=[pred], scope=ref_scope)[0]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("opt", ["lazy_adam", "sgd_exponential_decay"])
def test_resuming_from_sharded_checkpoints_continues_exactly(tmp_path, opt):
    """10 steps, save; restart the servers from their checkpoints; 10 more == 20 at once
    (a schedule's step counter is restored with the pieces, so it goes on where it was)."""
    main, startup, loss, _ = ctr_model(True, OPTIMIZERS[opt])
    feeds = split_batches(batches(20, 8), 2)
    initial, _, _ = initial_and_trained(main, startup, loss, [])
    whole = train(main, startup, feeds, pservers=2, local=True, config=SMALL_BLOCKS,
                  init_from=initial)
    job = tmp_path / "job"
    first = [f[:10] for f in feeds]
    train(main, startup, first, pservers=2, local=True, config=SMALL_BLOCKS, init_from=initial,
          job_dir=str(job))
    # the second run's servers restore their pieces and step count from the checkpoints,
    # and its trainers join them at step 10
    rest = [f[10:] for f in feeds]
    resumed = train(main, startup, rest, pservers=2, local=True, config=SMALL_BLOCKS,
                    init_from=initial, job_dir=str(job))
    for name, value in whole.params.items():
        np.testing.assert_allclose(resumed.params[name], value, rtol=0, atol=1e-6,
                                   err_msg=name)
    assert resumed.traffic[0]["steps"] == 20


def test_several_slots_per_sample_lookup_table_v2_train_the_same():
    main, startup, loss, _ = ctr_model(True, OPTIMIZERS["lazy_adam"], slots=3)
    assert any(op.type == "lookup_table_v2" for op in main.global_block().ops)
    global_batches = batches(10, 8, slots=3)
    initial, trained, _ = initial_and_trained(main, startup, loss, global_batches)
    result = train(main, startup, split_batches(global_batches, 2), pservers=2,
                   init_from=initial, local=True, config=SMALL_BLOCKS)
    for name, value in trained.items():
        np.testing.assert_allclose(result.params[name], value, rtol=0, atol=1e-6, err_msg=name)
