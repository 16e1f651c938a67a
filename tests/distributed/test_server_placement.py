"""Server placement options: the actor options they make, what they refuse, shard sizes."""

import pytest

import paddle_ir as pir
from paddle_ir.distributed import DistributedError, ParameterServer
from paddle_ir.distributed.launch import transpile
from paddle_ir.distributed.server_placement import (
    PROCESS_BYTES,
    ServerPlacement,
    check_feasible,
    shard_bytes,
)
from paddle_ir.transpiler import DistributeTranspilerConfig
from tests.distributed.models import ctr_model


def _servers():
    main, startup, _, _ = ctr_model(True, lambda: pir.optimizer.Adam(0.1, lazy_mode=True),
                                    vocab=1000)
    _, servers = transpile(main, startup, ["ps0", "ps1"], 2, True,
                           DistributeTranspilerConfig(min_block_size=16))
    return main, servers


def test_shard_bytes_are_the_bytes_a_started_server_holds():
    main, servers = _servers()
    shapes = {v.name: tuple(v.shape) for v in main.global_block().vars.values()}
    for endpoint, (program, startup) in servers.items():
        server = ParameterServer(endpoint, program, startup, shapes)
        held = sum(server.scope.find_var(v.name).get_tensor().numpy().nbytes
                   for v in program.global_block().vars.values() if v.persistable)
        assert shard_bytes(program) == held
        assert held > 3 * 500 * 4 * 4  # half the table and its two Adam moments, at least


def test_placement_options_become_ray_actor_options():
    _, servers = _servers()
    program = servers["ps0"][0]
    assert ServerPlacement().actor_options(program) == {"num_cpus": 0}
    options = ServerPlacement({"pserver": 1}, "auto", True).actor_options(program)
    assert options == {"num_cpus": 0, "resources": {"pserver": 1},
                       "memory": 2 * shard_bytes(program) + PROCESS_BYTES,
                       "scheduling_strategy": "SPREAD"}
    assert ServerPlacement(memory=1 << 30).actor_options(program)["memory"] == 1 << 30


@pytest.mark.parametrize("kwargs, message", [
    ({"resources": {"CPU": 1}}, "must be a custom resource's name"),
    ({"resources": {"": 1}}, "must be a custom resource's name"),
    ({"resources": {"pserver": 0}}, "needs a positive amount"),
    ({"resources": {"pserver": float("inf")}}, "needs a positive amount"),
    ({"resources": {"pserver": True}}, "needs a positive amount"),
    ({"memory": -5}, "memory must be 'auto' or a positive number of bytes"),
    ({"memory": "lots"}, "memory must be 'auto' or a positive number of bytes"),
    ({"memory": 1.5}, "memory must be 'auto' or a positive number of bytes"),
])
def test_bad_placement_options_are_refused(kwargs, message):
    with pytest.raises(DistributedError, match=message):
        ServerPlacement(**kwargs)


NODES = [{"Alive": True, "Resources": {"CPU": 2.0, "memory": 8 * 2.0**30, "pserver": 1.0,
                                       "node:10.0.0.2": 1.0}},
         {"Alive": True, "Resources": {"CPU": 2.0, "memory": 2 * 2.0**30}},
         {"Alive": False, "Resources": {"CPU": 2.0, "memory": 64 * 2.0**30, "gpuhost": 1.0}}]


def test_a_placement_no_alive_node_could_take_is_refused():
    check_feasible("ps0", {"resources": {"pserver": 1}, "memory": 4 << 30}, NODES)
    with pytest.raises(DistributedError, match=r"resource 'pserver' x 2, which no node .* "
                                               r"\(they offer CPU, memory, pserver\)"):
        check_feasible("ps0", {"resources": {"pserver": 2}}, NODES)
    with pytest.raises(DistributedError, match="resource 'gpuhost' x 1"):  # its node is dead
        check_feasible("ps0", {"resources": {"gpuhost": 1}}, NODES)
    with pytest.raises(DistributedError, match=r"server 'ps1' needs 16.00 GiB of memory for its "
                                               r"shard, but the largest node .* 8.00 GiB"):
        check_feasible("ps1", {"memory": 16 << 30}, NODES)
