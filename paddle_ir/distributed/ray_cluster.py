"""Parameter servers and trainers as Ray actors, and the transport between them.

A server is an async Ray actor around a ParameterServer: its methods run one
at a time on the actor's event loop, so a round never interleaves with a
pull, and a sync-mode pull awaits the round it needs instead of blocking the
actor. A server started with a checkpoint directory saves itself there every
`save_every` rounds (a staged, atomic save) and, when Ray restarts it after a
crash, restores the last save in its constructor; a trainer that then pushes
a step the server has not reached gets an error saying so.

Trust: only paddle-ir's own actors talk here, and only numpy arrays and
SelectedRows parts cross between them; every push is checked by the server
(server.py) before it touches a scope. `start_local_cluster` binds Ray to
127.0.0.1 with the dashboard (and with it the job-submission API) off; joining
an existing cluster with an address trusts whoever can reach it, so
`join_cluster` refuses another machine's cluster that takes calls without a
token (docs/distributed.md, "Several machines").
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket

import numpy as np
import ray

from paddle_ir.distributed.checkpoint import server_files
from paddle_ir.distributed.server import DistributedError, ParameterServer
from paddle_ir.distributed.trainer import Trainer
from paddle_ir.framework import Program

NAMESPACE = "paddle-ir"


def actor_name(endpoint: str) -> str:
    return f"pserver:{endpoint}"


# Ray keeps a local cluster on the loopback only where it thinks a cluster cannot span
# machines (macOS, Windows): there it takes 127.0.0.1 as the node's address, and its gRPC
# servers (GCS, raylet, workers) and runtime-env agent then listen on 127.0.0.1 alone.
# Elsewhere it rewrites 127.0.0.1 to the machine's address and listens on every interface.
# This switch, read by ray._private.services.get_node_ip_address, asks for the loopback.
_LOOPBACK_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
_LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@contextlib.contextmanager
def _on_the_loopback():
    """While ray.init runs, this machine's node is 127.0.0.1 (see _LOOPBACK_SWITCH)."""
    from ray._private import ray_constants

    saved_env, saved_flag = os.environ.get(_LOOPBACK_SWITCH), ray_constants.ENABLE_RAY_CLUSTER
    os.environ[_LOOPBACK_SWITCH] = "0"  # for the processes ray.init spawns
    ray_constants.ENABLE_RAY_CLUSTER = False  # for this process, which read it at import
    try:
        yield
    finally:
        # only this start is bent: a later ray.init elsewhere must not be
        ray_constants.ENABLE_RAY_CLUSTER = saved_flag
        if saved_env is None:
            os.environ.pop(_LOOPBACK_SWITCH, None)
        else:
            os.environ[_LOOPBACK_SWITCH] = saved_env


def start_local_cluster(num_cpus: int | None = None) -> None:
    """A private Ray on this machine, reachable from this machine only.

    - Every Ray server listens on 127.0.0.1 (checked after start: if Ray chose another
      address the cluster is shut down and an error raised, never left open).
    - No dashboard, hence no job-submission API.
    - Ray's token authentication stays on: refused to start with RAY_AUTH_MODE=disabled.
    """
    if ray.is_initialized():
        return
    if os.environ.get("RAY_AUTH_MODE", "").lower() == "disabled":
        raise DistributedError("RAY_AUTH_MODE=disabled: paddle-ir will not start a Ray cluster "
                               "without authentication, since anyone who reaches its ports "
                               "could run code on this machine", hint="unset RAY_AUTH_MODE")
    with _on_the_loopback():
        ray.init(num_cpus=num_cpus, include_dashboard=False, namespace=NAMESPACE,
                 log_to_driver=False, configure_logging=False, _node_ip_address="127.0.0.1")
    address = ray.util.get_node_ip_address()
    if address not in _LOOPBACK:
        ray.shutdown()
        raise DistributedError(
            f"the local Ray cluster came up on {address}, not on 127.0.0.1: this Ray "
            f"version ({ray.__version__}) ignores {_LOOPBACK_SWITCH}=0, and paddle-ir will "
            "not leave a cluster reachable from other machines",
            hint="start a cluster you trust yourself and pass its address (--address)")


def join_cluster(address: str, auth_token_file: str | None = None,
                 insecure_cluster: bool = False) -> None:
    """Join a running Ray cluster the user trusts (`paddle-ir train --address`).

    A cluster on this machine's loopback (one `start_local_cluster` made in another
    process, or `ray start --node-ip-address=127.0.0.1`) is joined as a loopback node
    too: a driver that announced the machine's outward address would look for its
    raylet there and never find it. Before joining, the cluster's GCS is asked
    (ray_auth.probe) whether it takes calls without a token: another machine's cluster
    that does is refused unless `insecure_cluster` (anyone who reaches its ports runs
    code on it), and one that wants a token the driver lacks, or refuses the one in
    `auth_token_file`, is an error that says so.
    """
    from paddle_ir.distributed import ray_auth

    if ray.is_initialized():
        raise DistributedError(f"cannot join the Ray cluster at {address!r}: this process is "
                               "already connected to one", hint="call ray.shutdown() first")
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit():
        raise DistributedError(f"cannot join the Ray cluster at {address!r}: expected "
                               "HOST:PORT (the address of the cluster's GCS, as `ray start "
                               "--head` prints it)")
    try:  # Ray itself retries an unreachable address for minutes: answer at once instead
        socket.create_connection((host, int(port)), timeout=10).close()
    except OSError as e:
        raise DistributedError(f"cannot join the Ray cluster at {address!r}: nothing answers "
                               f"there ({e.strerror or e})",
                               hint="check the address and that the cluster is running") from None
    token = ray_auth.use_token_file(auth_token_file) if auth_token_file else None
    loopback = host in _LOOPBACK
    if ray_auth.probe(address, None) == ray_auth.ACCEPTED:
        if not loopback and not insecure_cluster:
            raise DistributedError(
                f"the Ray cluster at {address!r} accepts calls without a token: anyone who "
                "reaches its ports can run code on its machines, so paddle-ir will not train "
                "there", hint="restart every node with RAY_AUTH_MODE=token and pass "
                              "--auth-token-file (docs/distributed.md, 'Several machines'), "
                              "or pass --insecure-cluster if a private network guards it")
    elif token is not None:
        if ray_auth.probe(address, token) == ray_auth.TOKEN_REFUSED:
            raise DistributedError(f"the Ray cluster at {address!r} refused the token in "
                                   f"{auth_token_file!r}: it is not this cluster's token",
                                   hint="copy the token file the cluster's nodes were "
                                        "started with (RAY_AUTH_TOKEN_PATH on the head)")
    elif not loopback:
        raise DistributedError(f"the Ray cluster at {address!r} requires an auth token, and "
                               "none was given", hint="pass --auth-token-file PATH (train("
                                                      "auth_token_file=...)): a copy of the "
                                                      "cluster's token file, mode 0600")
    try:
        if loopback:
            # Ray sends this machine's token (~/.ray/auth_token) only to clusters it found
            # itself, never to an explicit address, lest a token leak to another machine.
            # A loopback address is this machine, so the token may go, as Ray would send it.
            from ray._private.authentication.authentication_token_setup import (
                maybe_enable_token_auth_if_token_available,
            )

            maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
            with _on_the_loopback():
                ray.init(address=address, namespace=NAMESPACE, log_to_driver=False,
                         configure_logging=False, _node_ip_address="127.0.0.1")
        else:
            ray.init(address=address, namespace=NAMESPACE, log_to_driver=False,
                     configure_logging=False)
    except (ConnectionError, TimeoutError, ray.exceptions.AuthenticationError) as e:
        raise DistributedError(f"cannot join the Ray cluster at {address!r}: {e}",
                               hint="check the address (HOST:PORT of the cluster's GCS), "
                                    "that the cluster is running, and its token") from None


def this_node() -> str:
    """Where the calling Ray worker runs: "ADDRESS (node ID8)"."""
    return (f"{ray.util.get_node_ip_address()} "
            f"(node {ray.get_runtime_context().get_node_id()[:8]})")


def ray_reason(error: Exception) -> str:
    """Ray's error in one line: its type and the first line of its message, shortened."""
    first = next((line.strip() for line in str(error).splitlines() if line.strip()), "")
    return f"{type(error).__name__}: {first[:200]}" if first else type(error).__name__


WHAT_TO_DO = ("check the node (`ray status`), restart its Ray node if it is down or cut off, "
               "then resume the job from the servers' last checkpoint (`paddle-ir train "
               "--resume` with the same --save)")


@ray.remote(max_restarts=3, max_task_retries=0)
class ServerActor:
    """A ParameterServer in its own process.

    With a job directory the actor is built from small arguments (the directory, the
    run's id) and reads its program, startup and initial values from
    `job_dir/server-NAME/` (checkpoint.write_server_files): a restart after a crash then
    needs nothing from the driver's object store. It first checks that it sees the
    directory the driver wrote (the run's id in server-NAME/job): a server whose node
    does not mount the job directory would otherwise start from step 0 and save where
    nobody merges. Without a job directory the pieces come as arguments.
    """

    def __init__(self, endpoint: str, origin_shapes: dict, job: tuple[str, str] | None = None,
                 save_every: int = 0, inline: tuple | None = None):
        """job: (job_dir, run id); else inline: (program bytes, startup bytes, initial values
        or None, checkpoint dir or None)."""
        self.server, self.error, self.node = None, None, this_node()
        self.trainer_nodes: dict[int, str] = {}
        self.save_every = save_every
        self._changed: asyncio.Condition | None = None
        try:
            if job is not None:
                program, startup, initial, checkpoint = server_files(endpoint, *job, self.node)
            else:
                program, startup, initial, checkpoint = inline
                program, startup = Program.parse(program), Program.parse(startup)
            self.server = ParameterServer(endpoint, program, startup, origin_shapes, checkpoint)
        except DistributedError as e:
            self.error = str(e)  # told to the driver by ready(), not lost in Ray's wrapper
            return
        if initial and self.server.version == 0:
            for name, value in initial.items():
                # a copy: arrays from Ray's object store are read-only, and updates are in place
                self.server.scope.find_var(name).get_tensor().set(np.array(value))

    async def ready(self) -> tuple[str, str | None]:
        """(its node, why it could not start or None)."""
        return self.node, self.error

    async def set_trainer_nodes(self, nodes: dict[int, str]) -> None:
        """Where each trainer runs, for the error that names a trainer whose push is late."""
        self.trainer_nodes = dict(nodes)

    def _cond(self) -> asyncio.Condition:
        if self._changed is None:  # made on the actor's event loop, on first use
            self._changed = asyncio.Condition()
        return self._changed

    async def push(self, trainer_id, step, grads) -> bool:
        try:
            ran = self.server.push(trainer_id, step, grads)
        except DistributedError:
            if self.server.failure is not None:  # a failed round: waiting pulls fail now
                async with self._cond():
                    self._cond().notify_all()
            raise
        if ran:
            if self.save_every and self.server.checkpoint_dir \
                    and self.server.version % self.save_every == 0:
                self.server.save(self.server.checkpoint_dir)
            async with self._cond():
                self._cond().notify_all()
        return ran

    async def pull(self, names, min_version: int, timeout: float):
        async with self._cond():
            try:
                await asyncio.wait_for(
                    self._cond().wait_for(lambda: self.server.version >= min_version
                                          or self.server.failure is not None), timeout)
            except TimeoutError:
                missing = self.server.waiting_for()
                if self.trainer_nodes:
                    who = ", ".join(f"trainer {t} on {self.trainer_nodes.get(t, '?')}"
                                    for t in missing)
                    raise DistributedError(
                        f"server {self.server.endpoint!r} did not finish step "
                        f"{min_version - 1} within {timeout:g} s: {who} never pushed it (the "
                        "trainer died, or its node is cut off)", hint=WHAT_TO_DO) from None
                raise DistributedError(
                    f"server {self.server.endpoint!r} did not finish step {min_version - 1} "
                    f"within {timeout:g} s: trainer(s) {missing} never "
                    "pushed it (did a trainer die?)") from None
        return self.server.pull(names)

    async def prefetch(self, table, ids):
        return self.server.prefetch(table, ids)

    async def save(self, dirname: str | None = None) -> int:
        self.server.save(dirname or self.server.checkpoint_dir)
        return self.server.version

    async def version(self) -> int:
        return self.server.version

    async def values(self) -> dict:
        return {name: self.server.scope.find_var(name).get_tensor().numpy()
                for name in self.server.pieces}


class RayTransport:
    """The communicator's transport over ServerActor handles found by name.

    Every call has a deadline (`timeout` s; a pull that waits for a round gets the
    round's timeout and 10 s more): a server on a node cut off from this one fails the
    call with an error naming the server and its node, not Ray's own error after its
    health checks give the node up (a minute or more).
    """

    def __init__(self, actors: dict, timeout: float = 60.0, nodes: dict[str, str] | None = None):
        self.actors, self.timeout, self.nodes = actors, timeout, dict(nodes or {})

    @classmethod
    def by_name(cls, endpoints: list[str], timeout: float, nodes: dict[str, str] | None):
        return cls({e: ray.get_actor(actor_name(e), namespace=NAMESPACE) for e in endpoints},
                   timeout, nodes)

    def _where(self, endpoint: str) -> str:
        node = self.nodes.get(endpoint)
        return f"server {endpoint!r}" + (f" on {node}" if node else "")

    def call(self, endpoint: str, ref, timeout: float | None = None, what: str = "call"):
        timeout = self.timeout if timeout is None else timeout
        try:
            return ray.get(ref, timeout=timeout)
        except ray.exceptions.GetTimeoutError:
            raise DistributedError(f"{self._where(endpoint)} did not answer a {what} within "
                                   f"{timeout:g} s: its node may be cut off from this one (a "
                                   "network partition) or overloaded", hint=WHAT_TO_DO) from None
        except ray.exceptions.RayActorError as e:
            raise DistributedError(f"{self._where(endpoint)} died or became unreachable "
                                   f"({ray_reason(e)}); Ray restarts it from its last "
                                   "checkpoint where its node is alive",
                                   hint=WHAT_TO_DO) from None
        except ray.exceptions.RayTaskError as e:
            if isinstance(e.cause, DistributedError):  # the server's own words, not Ray's wrapper
                raise e.cause from None
            raise

    def push(self, endpoint, trainer_id, step, grads):
        return endpoint, self.actors[endpoint].push.remote(trainer_id, step, grads)

    def wait(self, handles) -> None:
        for endpoint, ref in handles:
            self.call(endpoint, ref, what="push")

    def pull(self, endpoint, names, min_version, timeout):
        ref = self.actors[endpoint].pull.remote(names, min_version, timeout)
        return self.call(endpoint, ref, timeout + 10, what="pull")

    def version(self, endpoint) -> int:
        return self.call(endpoint, self.actors[endpoint].version.remote(), what="version call")

    def prefetch(self, endpoint, table, ids):
        return self.call(endpoint, self.actors[endpoint].prefetch.remote(table, ids),
                          what="prefetch")


@ray.remote
class TrainerActor(Trainer):
    """A Trainer in its own process, talking to the ServerActors by name."""

    def __init__(self, trainer_id: int, main: bytes, startup: bytes, endpoints: list[str],
                 sync_mode: bool, timeout: float, nodes: dict[str, str] | None = None):
        super().__init__(trainer_id, Program.parse(main), Program.parse(startup),
                         RayTransport.by_name(endpoints, timeout, nodes), sync_mode, timeout)

    def node(self) -> str:
        return this_node()
