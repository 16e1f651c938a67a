"""train(): transpile a training program, start servers and trainers, run them step by step.

    result = paddle_ir.distributed.train(main, startup, readers, pservers=2, trainers=2,
                                         fetch_list=[loss])
    result.fetches[t][s]   # trainer t's fetched values at step s
    result.params          # every persistable, joined from the servers' pieces

`readers[t]` is trainer t's list of feed dicts, one per step. The servers
start from `init_from` (single-machine values, e.g. a checkpoint's) when it
is given, else from their own startup programs. With `job_dir`, the run
writes `origin/` (the single-machine job), `job.json` and `server-NAME/pserver.pb`
(checkpoint.write_job: the run's id and servers), and each server saves its pieces
to `server-NAME/checkpoint` every `save_every` rounds and at the end;
`merge_checkpoint(job_dir, out)` joins them.

`local=True` runs the servers in this process and the trainers in threads
(no Ray); otherwise servers and trainers are Ray actors, on a private local
cluster unless `address` names one to join.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from paddle_ir.distributed.checkpoint import (
    merge_values,
    pieces_of,
    split_values,
    write_job,
)
from paddle_ir.distributed.local import LocalTransport
from paddle_ir.distributed.server import ParameterServer
from paddle_ir.distributed.trainer import Trainer
from paddle_ir.framework import Program
from paddle_ir.io.checkpoint import save_train_program
from paddle_ir.model_files.program_file import save_program
from paddle_ir.transpiler import DistributeTranspiler, DistributeTranspilerConfig


@dataclass
class TrainResult:
    fetches: list[list[list]] = field(default_factory=list)  # [trainer][step] -> fetched values
    params: dict[str, np.ndarray] = field(default_factory=dict)
    traffic: list[dict] = field(default_factory=list)
    trainer_scopes: list[list[str]] = field(default_factory=list)
    cluster: str = "in this process"  # where it ran, or "on the Ray cluster at HOST:PORT"


def _fetch_names(fetch_list) -> list[str]:
    return [f if isinstance(f, str) else f.name for f in fetch_list]


def transpile(main: Program, startup: Program, pservers: list[str], trainers: int,
              sync_mode: bool, config: DistributeTranspilerConfig | None):
    t = DistributeTranspiler(config)
    t.transpile(0, main, ",".join(pservers), trainers=trainers, sync_mode=sync_mode,
                startup_program=startup)
    servers = {}
    for endpoint in pservers:
        program = t.get_pserver_program(endpoint)
        servers[endpoint] = (program, t.get_startup_program(endpoint, program))
    return t, servers


def train(main: Program, startup: Program, readers: list[list[dict]], *, pservers=2,
          sync_mode: bool = True, fetch_list=(), config: DistributeTranspilerConfig | None = None,
          init_from: dict | None = None, job_dir: str | None = None, save_every: int = 0,
          local: bool = False, address: str | None = None, timeout: float | None = None,
          progress=None) -> TrainResult:
    trainers = len(readers)
    endpoints = [f"ps{i}" for i in range(pservers)] if isinstance(pservers, int) \
        else list(pservers)
    config = config or DistributeTranspilerConfig()
    timeout = config.rpc_timeout if timeout is None else timeout
    t, servers = transpile(main, startup, endpoints, trainers, sync_mode, config)
    shapes = {v.name: tuple(v.shape) for v in main.global_block().vars.values() if v.persistable}
    if job_dir:
        save_train_program(os.path.join(job_dir, "origin"), main, startup,
                              main.feed_target_names, main.fetch_target_names)
        for endpoint, (program, _) in servers.items():
            os.makedirs(os.path.join(job_dir, f"server-{endpoint}"), exist_ok=True)
            save_program(os.path.join(job_dir, f"server-{endpoint}", "pserver.pb"), program)
        write_job(job_dir, os.urandom(8).hex(), list(servers))
    checkpoint = (lambda e: os.path.join(job_dir, f"server-{e}", "checkpoint")) if job_dir \
        else (lambda e: None)
    initial = {e: split_values(pieces_of(p), init_from) if init_from else None
               for e, (p, _) in servers.items()}
    runtime = (_LocalRuntime if local else _RayRuntime)(
        t, servers, shapes, checkpoint, save_every, initial, sync_mode, timeout, address)
    try:
        result = runtime.run(readers, _fetch_names(fetch_list), progress)
        if job_dir:
            runtime.save_all()
        result.params = merge_values(*runtime.server_pieces(), shapes)
        return result
    finally:
        runtime.close()


class _LocalRuntime:
    def __init__(self, t, servers, shapes, checkpoint, save_every, initial, sync_mode, timeout,
                 address):
        self.servers = {e: ParameterServer(e, p, s, shapes, checkpoint(e))
                        for e, (p, s) in servers.items()}
        for e, values in initial.items():
            if self.servers[e].version == 0:  # not when it resumed from its checkpoint
                for name, value in (values or {}).items():
                    self.servers[e].scope.find_var(name).get_tensor().set(np.array(value))
        self.transport = LocalTransport(self.servers)
        self.t, self.sync_mode, self.timeout = t, sync_mode, timeout
        self.checkpoint, self.save_every = checkpoint, save_every
        self.pool = None

    def run(self, readers, fetch_names, progress) -> TrainResult:
        n = len(readers)
        self.pool = ThreadPoolExecutor(max_workers=n)
        main, startup = self.t.get_trainer_program(), self.t.get_trainer_startup_program()
        trainers = list(self.pool.map(
            lambda i: Trainer(i, main, startup, self.transport, self.sync_mode, self.timeout),
            range(n)))
        result = TrainResult(fetches=[[] for _ in range(n)])
        for step in range(min(len(r) for r in readers)):
            futures = [self.pool.submit(tr.run_step, readers[i][step], fetch_names)
                       for i, tr in enumerate(trainers)]
            for i, f in enumerate(futures):
                result.fetches[i].append(f.result())
            if self.save_every and (step + 1) % self.save_every == 0:
                self.save_all()
            if progress:
                progress(step, result)
        result.traffic = [tr.traffic() for tr in trainers]
        result.trainer_scopes = [tr.scope_names() for tr in trainers]
        return result

    def save_all(self) -> None:
        for e, server in self.servers.items():
            if self.checkpoint(e):
                server.save(self.checkpoint(e))

    def server_pieces(self):
        pieces = {e: pieces_of(s.program) for e, s in self.servers.items()}
        values = {e: {p.name: s.scope.find_var(p.name).get_tensor().numpy() for p in pieces[e]}
                  for e, s in self.servers.items()}
        return pieces, values

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)


class _RayRuntime:
    def __init__(self, t, servers, shapes, checkpoint, save_every, initial, sync_mode, timeout,
                 address):
        import ray

        from paddle_ir.distributed import ray_cluster

        self.ray, self.rc = ray, ray_cluster
        if address:
            ray_cluster.join_cluster(address)
        else:
            ray_cluster.start_local_cluster()
        self.t, self.sync_mode, self.timeout = t, sync_mode, timeout
        self.programs = {e: p for e, (p, _) in servers.items()}
        self.actors = {}
        for e, (program, startup) in servers.items():
            self.actors[e] = ray_cluster.ServerActor.options(
                name=ray_cluster.actor_name(e), namespace=ray_cluster.NAMESPACE,
                num_cpus=0).remote(e, program.serialize(), startup.serialize(), shapes,
                                   checkpoint(e), save_every, initial[e])
        ray.get([a.version.remote() for a in self.actors.values()])  # constructed
        self.trainers = []

    def run(self, readers, fetch_names, progress) -> TrainResult:
        main = self.t.get_trainer_program().serialize()
        startup = self.t.get_trainer_startup_program().serialize()
        endpoints = list(self.actors)
        self.trainers = [self.rc.TrainerActor.options(num_cpus=0).remote(
            i, main, startup, endpoints, self.sync_mode, self.timeout) for i in range(len(readers))]
        result = TrainResult(fetches=[[] for _ in readers])
        for step in range(min(len(r) for r in readers)):
            refs = [tr.run_step.remote(readers[i][step], fetch_names)
                    for i, tr in enumerate(self.trainers)]
            for i, values in enumerate(self._get(refs)):
                result.fetches[i].append(values)
            if progress:
                progress(step, result)
        result.traffic = self._get([tr.traffic.remote() for tr in self.trainers])
        result.trainer_scopes = self._get([tr.scope_names.remote() for tr in self.trainers])
        result.cluster = f"on the Ray cluster at {self.ray.get_runtime_context().gcs_address}"
        return result

    def _get(self, refs):
        try:
            return self.ray.get(refs)
        except self.ray.exceptions.RayTaskError as e:
            raise e.cause from None

    def save_all(self) -> None:
        self._get([a.save.remote() for a in self.actors.values()])

    def server_pieces(self):
        pieces = {e: pieces_of(p) for e, p in self.programs.items()}
        values = dict(zip(self.actors, self._get([a.values.remote()
                                                  for a in self.actors.values()]), strict=True))
        return pieces, values

    def close(self) -> None:
        for actor in self.trainers + list(self.actors.values()):
            self.ray.kill(actor)
