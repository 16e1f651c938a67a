"""The driver's side of a Ray run: start the server and trainer actors, step them, collect.

Servers are placed as `ServerPlacement` asks (refused at once where no node could
take them), and each actor's node is recorded for TrainResult.nodes and for the
errors: a server or trainer that dies or stops answering is named with its node and
what to do. Every call the driver makes has a deadline; a step's has none of its
own, since the trainers' calls inside it have theirs.
"""

from __future__ import annotations

import ray

from paddle_ir.distributed import ray_cluster
from paddle_ir.distributed.checkpoint import pieces_of
from paddle_ir.distributed.server import DistributedError
from paddle_ir.distributed.server_placement import ServerPlacement, check_feasible


class RayRuntime:
    def __init__(self, t, servers, shapes, job, save_every, initial, sync_mode, timeout,
                 address, auth_token_file=None, insecure_cluster=False,
                 placement: ServerPlacement | None = None):
        if address:
            ray_cluster.join_cluster(address, auth_token_file, insecure_cluster)
        else:
            ray_cluster.start_local_cluster()
        self.t, self.sync_mode, self.timeout = t, sync_mode, timeout
        self.programs = {e: p for e, (p, _) in servers.items()}
        self.actors, self.trainers, self.nodes = {}, [], {}
        placement = placement or ServerPlacement()
        options = {e: placement.actor_options(p) for e, p in self.programs.items()}
        cluster_nodes = ray.nodes()
        for e, opts in options.items():
            check_feasible(e, opts, cluster_nodes)
        for e, (program, startup) in servers.items():
            inline = None if job else (program.serialize(), startup.serialize(), initial[e],
                                       None)
            self.actors[e] = ray_cluster.ServerActor.options(
                name=ray_cluster.actor_name(e), namespace=ray_cluster.NAMESPACE,
                **options[e]).remote(e, shapes, job, save_every, inline)
        self.transport = ray_cluster.RayTransport(self.actors, timeout)
        # a start may wait for a node to free resources or pull the package: a minute at least
        start = max(timeout, 60.0)
        try:
            for e, actor in self.actors.items():
                node, error = self.transport.call(e, actor.ready.remote(), start, "start")
                if error:
                    raise DistributedError(error)
                self.nodes[e] = self.transport.nodes[e] = node
        except BaseException:
            self.close()  # named actors left behind would block the next run's names
            raise

    def step(self) -> int:
        return min(self.transport.version(e) for e in self.actors)

    def run(self, readers, fetch_names, progress, result):
        main = self.t.get_trainer_program().serialize()
        startup = self.t.get_trainer_startup_program().serialize()
        endpoints = list(self.actors)
        # two threads: a step in one, the driver's "where are you" in the other
        self.trainers = [ray_cluster.TrainerActor.options(num_cpus=0, max_concurrency=2).remote(
            i, main, startup, endpoints, self.sync_mode, self.timeout, dict(self.nodes))
            for i in range(len(readers))]
        trainer_nodes = self._trainer_calls("start", lambda i, tr: tr.node.remote(),
                                            max(self.timeout, 60.0))
        for i, node in enumerate(trainer_nodes):
            self.nodes[f"trainer {i}"] = node
        for e, actor in self.actors.items():
            self.transport.call(e, actor.set_trainer_nodes.remote(dict(enumerate(trainer_nodes))),
                                what="call")
        for step in range(min(len(r) for r in readers)):
            values = self._trainer_calls(
                f"step {result.start_step + step}",
                lambda i, tr, step=step: tr.run_step.remote(readers[i][step], fetch_names))
            for i, fetched in enumerate(values):
                result.fetches[i].append(fetched)
            if progress:
                progress(step, result)
        result.traffic = self._trainer_calls("traffic count", lambda i, tr: tr.traffic.remote(),
                                             self.timeout)
        result.trainer_scopes = self._trainer_calls("scope listing",
                                                    lambda i, tr: tr.scope_names.remote(),
                                                    self.timeout)
        result.cluster = f"on the Ray cluster at {ray.get_runtime_context().gcs_address}"
        result.nodes = dict(self.nodes)

    def _trainer_calls(self, what: str, call, timeout: float | None = None) -> list:
        """Each trainer's answer to `call`, in trainer order. A trainer that died, or did not
        answer within `timeout`, is an error naming it and its node; a trainer's own
        DistributedError (a server that did not answer it, say) is raised as it is.

        Without `timeout` (a step, which takes what it takes) a trainer that is quiet for
        the run's timeout is asked where it is (an answer from another thread of the actor):
        one that does not answer that either is cut off, named at once instead of when
        Ray's health checks give its node up, a minute or more later."""
        refs = [call(i, tr) for i, tr in enumerate(self.trainers)]
        index = {ref: i for i, ref in enumerate(refs)}
        out: list = [None] * len(refs)
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1,
                                     timeout=self.timeout if timeout is None else timeout)
            if not done:
                quiet = [index[r] for r in pending]
                if timeout is None:
                    pings = {i: self.trainers[i].node.remote() for i in quiet}
                    answered, _ = ray.wait(list(pings.values()), num_returns=len(pings),
                                           timeout=self.timeout)
                    quiet = [i for i, ref in pings.items() if ref not in answered]
                    if not quiet:
                        continue  # a slow step, not a lost trainer
                i = quiet[0]
                raise DistributedError(
                    f"trainer {i}{self._on(f'trainer {i}')} did not answer its {what} within "
                    f"{timeout or self.timeout:g} s: its node may be cut off or overloaded",
                    hint=ray_cluster.WHAT_TO_DO)
            i = index[done[0]]
            try:
                out[i] = ray.get(done[0])
            except ray.exceptions.RayActorError as e:
                raise DistributedError(
                    f"trainer {i}{self._on(f'trainer {i}')} died during its {what} "
                    f"({ray_cluster.ray_reason(e)}): its process or its node is gone",
                    hint=ray_cluster.WHAT_TO_DO) from None
            except ray.exceptions.RayTaskError as e:
                raise e.cause from None  # the trainer's own error, not Ray's wrapper
        return out

    def _on(self, who: str) -> str:
        return f" on {self.nodes[who]}" if who in self.nodes else ""

    def save_all(self) -> None:
        for e, actor in self.actors.items():
            self.transport.call(e, actor.save.remote(), what="save")

    def server_pieces(self):
        pieces = {e: pieces_of(p) for e, p in self.programs.items()}
        values = {e: self.transport.call(e, a.values.remote(), what="values call")
                  for e, a in self.actors.items()}
        return pieces, values

    def close(self) -> None:
        for actor in self.trainers + list(self.actors.values()):
            ray.kill(actor)
