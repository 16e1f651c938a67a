"""ParameterServer's rounds: a round's pushes merge in trainer-id order, whatever their arrival."""

import itertools

import numpy as np

import paddle_ir as pir
from paddle_ir.distributed import ParameterServer, train
from paddle_ir.distributed.launch import transpile
from paddle_ir.transpiler import DistributeTranspilerConfig
from tests.distributed.models import DIM, VOCAB, batches, ctr_model, split_batches

TRAINERS = 3


MODEL = ctr_model(True, lambda: pir.optimizer.SGD(1.0))


def _server():
    main, startup, _, _ = MODEL
    _, servers = transpile(main, startup, ["ps0"], TRAINERS, True,
                           DistributeTranspilerConfig(min_block_size=16))
    shapes = {v.name: tuple(v.shape) for v in main.global_block().vars.values()}
    program, server_startup = servers["ps0"]
    return ParameterServer("ps0", program, server_startup, shapes)


def _pushes(server):
    """Per trainer, gradients whose float32 sum depends on the order it is taken in:
    1e8 + 1 - 1e8 is 0 in float32 taken left to right, 1 taken as (1e8 - 1e8) + 1."""
    table = next(n for n, s in server.grads.items() if s.sparse)
    dense = next(n for n, s in server.grads.items() if not s.sparse)
    shape = server.grads[dense].shape
    magnitudes = [1e8, 1.0, -1e8]
    return [{table: {"rows": np.array([0, 3], np.int64),
                     "value": np.full((2, DIM), m, np.float32), "height": VOCAB},
             dense: np.full(shape, m, np.float32)} for m in magnitudes]


def test_a_round_merges_in_trainer_id_order_whatever_the_arrival_order():
    results = []
    for order in itertools.permutations(range(TRAINERS)):
        server = _server()
        pushes = _pushes(server)
        for trainer in order:
            server.push(trainer, 0, pushes[trainer])
        assert server.version == 1
        results.append({n: server.scope.find_var(n).get_tensor().numpy().copy()
                        for n in server.pieces})
    for got in results[1:]:
        for name, value in results[0].items():
            assert value.tobytes() == got[name].tobytes(), name
    # In trainer-id order every sum is (1e8 + 1) - 1e8 == 0 in float32, so SGD leaves the
    # startup values as they were; an arrival order such as 2, 0, 1 would give 1.
    fresh = _server()
    for name, value in results[0].items():
        start = fresh.scope.find_var(name).get_tensor().numpy()
        if name.startswith("table"):
            start, value = start[[0, 3]], value[[0, 3]]
        np.testing.assert_array_equal(value, start, err_msg=name)


def test_two_identical_runs_give_identical_bits():
    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.Adam(0.02, lazy_mode=True))
    readers = split_batches(batches(8, 12), TRAINERS)
    config = DistributeTranspilerConfig(min_block_size=16)
    runs = [train(main, startup, readers, pservers=2, local=True, config=config)
            for _ in range(3)]
    for other in runs[1:]:
        assert other.params.keys() == runs[0].params.keys()
        for name, value in runs[0].params.items():
            assert value.tobytes() == other.params[name].tobytes(), name
