"""The same training on Ray actors: parity, a server that dies and comes back, the cluster."""

import os
import socket
import time

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.distributed import DistributedError, train
from paddle_ir.distributed.launch import transpile
from paddle_ir.transpiler import DistributeTranspilerConfig
from tests.distributed.models import DIM, batches, ctr_model, initial_and_trained, split_batches

ray = pytest.importorskip("ray")  # the optional extra paddle-ir[distributed]; CI installs it
from paddle_ir.distributed import ray_cluster  # noqa: E402

SMALL_BLOCKS = DistributeTranspilerConfig(min_block_size=16, rpc_timeout=20)


@pytest.fixture(scope="module")
def cluster():
    ray_cluster.start_local_cluster(num_cpus=2)
    yield
    ray.shutdown()


def test_the_local_cluster_has_no_dashboard_and_requires_a_token(cluster):
    node = ray._private.worker._global_node
    assert not node.webui_url  # no dashboard, hence no job-submission API
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", 8265)) != 0  # nothing on the dashboard's port
    assert ray._private.authentication.authentication_utils.is_token_auth_enabled()


def _listening_addresses(pids: set[int]) -> list[str]:
    """The local addresses of every listening TCP socket the processes `pids` hold,
    read from /proc (socket inodes in /proc/PID/fd, LISTEN rows in /proc/net/tcp*)."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:  # exited meanwhile
            continue
    addresses = []
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        with open(table) as f:
            for row in f.read().splitlines()[1:]:
                cols = row.split()
                if cols[3] == "0A" and cols[9] in inodes:  # 0A: TCP_LISTEN
                    raw = bytes.fromhex(cols[1].split(":")[0])
                    # /proc prints the address as 32-bit words in host (little-endian) order
                    words = b"".join(raw[i:i + 4][::-1] for i in range(0, width // 2, 4))
                    family = socket.AF_INET if width == 8 else socket.AF_INET6
                    addresses.append(socket.inet_ntop(family, words))
    return addresses


def _descendants(pid: int) -> set[int]:
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    found, frontier = {pid}, [pid]
    while frontier:
        p = frontier.pop()
        children = [c for c, parent in parents.items() if parent == p]
        found.update(children)
        frontier.extend(children)
    return found


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="reads Linux's /proc")
def test_the_local_cluster_listens_on_the_loopback_only(cluster):
    assert ray.util.get_node_ip_address() == "127.0.0.1"
    ray.get(ray.remote(lambda: 1).remote())  # a worker process is up, with its own server
    processes = _descendants(os.getpid())
    addresses = _listening_addresses(processes)
    assert len(processes) >= 3 and len(addresses) >= 3  # driver, GCS, raylet at the least
    loopback = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}
    assert set(addresses) <= loopback, addresses


def test_start_local_cluster_leaves_no_switch_behind(cluster):
    from ray._private import ray_constants

    assert ray_constants.ENABLE_RAY_CLUSTER  # a later ray.init(address=...) is not bent
    assert "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER" not in os.environ


@pytest.mark.parametrize("opt", ["sgd", "lazy_adam"])
def test_ray_sync_training_equals_one_machine(cluster, opt, tmp_path):
    """With a job_dir the server actors read their initial values from it (not from the
    driver's object store): equality to one machine shows they read the right ones."""
    make = {"sgd": lambda: pir.optimizer.SGD(0.2),
            "lazy_adam": lambda: pir.optimizer.Adam(0.02, lazy_mode=True)}[opt]
    main, startup, loss, _ = ctr_model(True, make)
    global_batches = batches(20, 8)
    initial, trained, _ = initial_and_trained(main, startup, loss, global_batches)
    result = train(main, startup, split_batches(global_batches, 2), pservers=2,
                   fetch_list=[loss], init_from=initial, config=SMALL_BLOCKS,
                   job_dir=str(tmp_path / "job"))
    for name, value in trained.items():
        np.testing.assert_allclose(result.params[name], value, rtol=0, atol=1e-6, err_msg=name)
    assert all("table" not in names for names in result.trainer_scopes)


def test_a_failed_round_on_a_server_actor_fails_its_waiting_pulls_at_once(cluster):
    main, startup, _, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.1))
    _, servers = transpile(main, startup, ["ps0"], 2, True, SMALL_BLOCKS)
    program, server_startup = servers["ps0"]
    shapes = {v.name: tuple(v.shape) for v in main.global_block().vars.values()}
    table = next(p.name for p in program.global_block().vars.values()
                 if p.name.startswith("table."))
    rate = next(n for n in program.global_block().vars if n.startswith("learning_rate"))
    actor = ray_cluster.ServerActor.options(name="pserver:fail-test", num_cpus=0).remote(
        "ps0", shapes, inline=(program.serialize(), server_startup.serialize(),
                               {rate: np.zeros((2, 2), np.float32)}, None))  # sgd refuses it
    grad = {table.replace("table", "table@GRAD", 1):
            {"rows": np.array([1, 2], np.int64), "value": np.ones((2, DIM), np.float32),
             "height": 60}}
    transport = ray_cluster.RayTransport({"ps0": actor}, timeout=30)
    assert ray.get(actor.push.remote(0, 0, grad)) is False  # trainer 0's half of the round
    waiting = actor.pull.remote([table], 1, 60.0)  # trainer 0 waits for the round
    with pytest.raises(DistributedError, match="failed running step 0 and stopped"):
        transport.wait([transport.push("ps0", 1, 0, grad)])  # trainer 1 completes it: it fails
    with pytest.raises(DistributedError, match="failed running step 0 and stopped"):
        transport.call("ps0", waiting, 30)  # not the 60 s timeout blaming a trainer
    ray.kill(actor)


def test_a_killed_server_restarts_from_its_checkpoint(cluster, tmp_path):
    main, startup, _, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.1))
    _, servers = transpile(main, startup, ["ps0"], 1, True, SMALL_BLOCKS)
    program, server_startup = servers["ps0"]
    shapes = {v.name: tuple(v.shape) for v in main.global_block().vars.values()}
    actor = ray_cluster.ServerActor.options(name="pserver:kill-test", num_cpus=0).remote(
        "ps0", shapes, save_every=2,
        inline=(program.serialize(), server_startup.serialize(), None, str(tmp_path / "ckpt")))
    table = next(n for n in ray.get(actor.values.remote()) if n.startswith("table"))
    grad = {table.replace("table", "table@GRAD", 1):
            {"rows": np.array([1, 2], np.int64), "value": np.ones((2, DIM), np.float32),
             "height": 60}}
    for step in range(3):  # rounds 1..3; a save after round 2
        assert ray.get(actor.push.remote(0, step, grad))
    saved = ray.get(actor.values.remote())
    assert ray.get(actor.version.remote()) == 3
    ray.kill(actor, no_restart=False)
    transport = ray_cluster.RayTransport({"ps0": actor}, timeout=30)
    version, deadline = None, time.monotonic() + 60
    while version != 2 and time.monotonic() < deadline:
        # Ray restarts it; the constructor restores the last save (round 2)
        try:
            version = transport.version("ps0")
        except DistributedError as e:
            assert "died" in str(e)
        time.sleep(0.1)
    assert version == 2
    restored = ray.get(actor.values.remote())
    assert not np.array_equal(restored[table], saved[table])  # round 3 was lost ...
    with pytest.raises(DistributedError, match="at step 2 but trainer 0 pushed step 3 "
                                               r"\(the server restarted from its checkpoint\)"):
        transport.wait([transport.push("ps0", 0, 3, grad)])  # ... and the trainer is told
    ray.kill(actor, no_restart=True)


def test_a_silent_trainer_fails_the_others_after_the_timeout_on_ray(cluster):
    main, startup, _, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.1))
    _, servers = transpile(main, startup, ["ps0"], 2, True, SMALL_BLOCKS)
    program, server_startup = servers["ps0"]
    shapes = {v.name: tuple(v.shape) for v in main.global_block().vars.values()}
    actor = ray_cluster.ServerActor.options(name="pserver:timeout-test", num_cpus=0).remote(
        "ps0", shapes, inline=(program.serialize(), server_startup.serialize(), None, None))
    transport = ray_cluster.RayTransport({"ps0": actor}, timeout=30)
    transport.wait([transport.push("ps0", 0, 0, {})])  # trainer 0 pushed; trainer 1 never does
    with pytest.raises(DistributedError, match=r"did not finish step 0 within 1 s: "
                                               r"trainer\(s\) \[1\] never pushed it"):
        transport.pull("ps0", [next(iter(ray.get(actor.values.remote())))], 1, 1.0)
    ray.get(actor.set_trainer_nodes.remote({0: "10.0.0.2 (node a)", 1: "10.0.0.3 (node b)"}))
    with pytest.raises(DistributedError, match=r"(?s)did not finish step 0 within 1 s: trainer 1 "
                                               r"on 10.0.0.3 \(node b\) never pushed it.*--resume"):
        transport.pull("ps0", [next(iter(ray.get(actor.values.remote())))], 1, 1.0)
    ray.kill(actor, no_restart=True)


def test_paddle_ir_train_on_a_local_ray_cluster(tmp_path):
    import subprocess
    import sys

    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.Adam(0.05, lazy_mode=True))
    pir.io.save_train_program(tmp_path / "job", main, startup, ["ids", "y"], [loss])
    np.savez(tmp_path / "data.npz", **batches(1, 64)[0])
    done = subprocess.run([sys.executable, "-m", "paddle_ir", "train", str(tmp_path / "job"),
                           "--trainers", "2", "--pservers", "2", "--feeds",
                           str(tmp_path / "data.npz"), "--batch-size", "8", "--steps", "4",
                           "--min-block-size", "16"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "2 trainer(s) x 2 server(s) on the Ray cluster at 127.0.0.1:" in done.stdout
    assert ", 4 step(s)" in done.stdout


def test_each_actor_s_node_is_recorded(cluster):
    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.2))
    result = train(main, startup, split_batches(batches(2, 8), 2), pservers=2,
                   fetch_list=[loss], config=SMALL_BLOCKS)
    node = ray.get_runtime_context().get_node_id()[:8]
    assert result.nodes == {k: f"127.0.0.1 (node {node})"
                            for k in ("ps0", "ps1", "trainer 0", "trainer 1")}


def test_a_server_placement_no_node_offers_is_refused_at_once(cluster):
    from paddle_ir.distributed.server_placement import ServerPlacement

    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.2))
    readers = split_batches(batches(1, 8), 2)
    started = time.monotonic()
    with pytest.raises(DistributedError, match=r"(?s)server 'ps0' asks for resource 'pserver' "
                                               r"x 1, which no node of the cluster offers.*"
                                               r"--resources='\{\"pserver\": 1\}'"):
        train(main, startup, readers, placement=ServerPlacement({"pserver": 1}),
              config=SMALL_BLOCKS)
    with pytest.raises(DistributedError, match=r"server 'ps0' needs 4096.00 GiB of memory"):
        train(main, startup, readers, placement=ServerPlacement(memory=4 << 40),
              config=SMALL_BLOCKS)
    assert time.monotonic() - started < 10  # not left pending


def test_servers_placed_by_memory_and_spread_train_as_before(cluster):
    from paddle_ir.distributed.server_placement import ServerPlacement

    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.2))
    global_batches = batches(4, 8)
    initial, trained, _ = initial_and_trained(main, startup, loss, global_batches)
    result = train(main, startup, split_batches(global_batches, 2), init_from=initial,
                   placement=ServerPlacement(memory="auto", spread=True), config=SMALL_BLOCKS)
    for name, value in trained.items():
        np.testing.assert_allclose(result.params[name], value, rtol=0, atol=1e-6, err_msg=name)


@ray.remote
class _Silent:
    """A server that never answers (as one behind a cut link looks from the caller)."""

    async def version(self):
        import asyncio

        await asyncio.sleep(60)


def test_a_server_that_does_not_answer_fails_the_call_at_its_deadline(cluster):
    silent = _Silent.options(num_cpus=0).remote()
    transport = ray_cluster.RayTransport({"ps1": silent}, timeout=1.0,
                                         nodes={"ps1": "10.0.0.2 (node abcd1234)"})
    started = time.monotonic()
    with pytest.raises(DistributedError, match=r"(?s)server 'ps1' on 10.0.0.2 \(node abcd1234\) "
                                               r"did not answer a version call within 1 s.*"
                                               r"partition.*--resume"):
        transport.version("ps1")
    assert time.monotonic() - started < 5
    ray.kill(silent)
    with pytest.raises(DistributedError, match=r"(?s)server 'ps1' on 10.0.0.2 \(node abcd1234\) "
                                               r"died or became unreachable.*--resume"):
        transport.version("ps1")


def test_a_trainer_that_dies_is_named_with_its_node(cluster):
    from paddle_ir.distributed.launch import TrainResult
    from paddle_ir.distributed.ray_runtime import RayRuntime

    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.2))
    t, servers = transpile(main, startup, ["ps0", "ps1"], 2, True, SMALL_BLOCKS)
    shapes = {v.name: tuple(v.shape) for v in main.global_block().vars.values() if v.persistable}
    runtime = RayRuntime(t, servers, shapes, None, 0, {"ps0": None, "ps1": None}, True, 20.0,
                         None)

    def kill_trainer_1(step, result):
        if step == 0:
            ray.kill(runtime.trainers[1])

    result = TrainResult(fetches=[[], []])
    try:
        with pytest.raises(DistributedError, match=r"(?s)trainer 1 on 127.0.0.1 \(node \w+\) "
                                                   r"died during its step 1.*--resume"):
            runtime.run(split_batches(batches(3, 8), 2), [loss.name], kill_trainer_1, result)
    finally:
        runtime.close()


def test_a_server_that_cannot_see_the_job_dir_fails_the_start_and_leaves_no_actor(cluster,
                                                                                   tmp_path):
    from paddle_ir.distributed.checkpoint import write_job, write_server_files
    from paddle_ir.distributed.ray_runtime import RayRuntime

    main, startup, loss, _ = ctr_model(True, lambda: pir.optimizer.SGD(0.2))
    t, servers = transpile(main, startup, ["ps0", "ps1"], 2, True, SMALL_BLOCKS)
    for endpoint, (program, server_startup) in servers.items():  # as train() writes them
        write_server_files(str(tmp_path / "job"), endpoint, program, server_startup, None)
    write_job(str(tmp_path / "job"), "the-drivers-run", list(servers))
    shapes = {v.name: tuple(v.shape) for v in main.global_block().vars.values() if v.persistable}
    with pytest.raises(DistributedError, match=r"(?s)server 'ps0' on 127.0.0.1 \(node \w+\) "
                                               r"cannot see the job directory .*finds job "
                                               r"the-drivers-run.*shared storage"):
        RayRuntime(t, servers, shapes, (str(tmp_path / "job"), "not-this-run"), 0,
                   {"ps0": None, "ps1": None}, True, 20.0, None)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # ray.kill lets the names go shortly after
        try:
            ray.get_actor(ray_cluster.actor_name("ps0"), namespace=ray_cluster.NAMESPACE)
        except ValueError:
            break
        time.sleep(0.2)
    else:
        pytest.fail("the failed start left its server actors behind")
