"""train(): transpile a training program, start servers and trainers, run them step by step.

    result = paddle_ir.distributed.train(main, startup, readers, pservers=2, trainers=2,
                                         fetch_list=[loss])
    result.fetches[t][s]   # trainer t's fetched values at step s
    result.params          # every persistable, joined from the servers' pieces

`readers[t]` is trainer t's list of feed dicts, one per step. The servers
start from `init_from` (single-machine values, e.g. a checkpoint's) when it
is given, else from their own startup programs. With `job_dir`, the run
writes `origin/` (the single-machine job), `job.json` (checkpoint.write_job: the
run's id and servers) and per server `server-NAME/`: its program, startup and initial
values (checkpoint.write_server_files, what a server actor starts from) and the run's
id; each server saves its pieces to `server-NAME/checkpoint` every `save_every` rounds
and at the end; `merge_checkpoint(job_dir, out)` joins them. A job_dir that holds a
saved run resumes it (checkpoint.saved_step says at which step).

`local=True` runs the servers in this process and the trainers in threads
(no Ray); otherwise servers and trainers are Ray actors, on a private local
cluster unless `address` names one to join (ray_runtime.py; placement in
server_placement.py, the token in ray_auth.py).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from paddle_ir.distributed.checkpoint import (
    job_servers,
    merge_values,
    pieces_of,
    split_values,
    write_job,
    write_server_files,
)
from paddle_ir.distributed.local import LocalTransport
from paddle_ir.distributed.server import DistributedError, ParameterServer
from paddle_ir.distributed.server_placement import ServerPlacement
from paddle_ir.distributed.trainer import Trainer
from paddle_ir.framework import Program
from paddle_ir.io.checkpoint import save_train_program
from paddle_ir.transpiler import DistributeTranspiler, DistributeTranspilerConfig


@dataclass
class TrainResult:
    fetches: list[list[list]] = field(default_factory=list)  # [trainer][step] -> fetched values
    params: dict[str, np.ndarray] = field(default_factory=dict)
    traffic: list[dict] = field(default_factory=list)
    trainer_scopes: list[list[str]] = field(default_factory=list)
    cluster: str = "in this process"  # where it ran, or "on the Ray cluster at HOST:PORT"
    nodes: dict[str, str] = field(default_factory=dict)  # "ps0", "trainer 1" -> its node
    start_step: int = 0  # the servers' step when the run began (past 0 when it resumed)


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
          progress=None, auth_token_file: str | None = None, insecure_cluster: bool = False,
          placement: ServerPlacement | None = None,
          start_step: int | None = None) -> TrainResult:
    """See the module's doc. `auth_token_file`: join `address` in Ray's token mode with
    the token in that file (mode 0600); `insecure_cluster`: join another machine's cluster
    that takes calls without a token; `placement`: where the server actors go. A job_dir
    whose servers saved before resumes at their step: readers[t][0] is then trainer t's
    batch for that step (result.start_step); with `start_step`, servers at another step
    are an error before any training."""
    if (auth_token_file or insecure_cluster) and not address:
        raise DistributedError("auth_token_file and insecure_cluster are for joining a cluster "
                               "(address=HOST:PORT); a local run starts its own, on the "
                               "loopback with Ray's token")
    trainers = len(readers)
    endpoints = [f"ps{i}" for i in range(pservers)] if isinstance(pservers, int) \
        else list(pservers)
    config = config or DistributeTranspilerConfig()
    timeout = config.rpc_timeout if timeout is None else timeout
    t, servers = transpile(main, startup, endpoints, trainers, sync_mode, config)
    shapes = {v.name: tuple(v.shape) for v in main.global_block().vars.values() if v.persistable}
    initial = {e: split_values(pieces_of(p), init_from) if init_from else None
               for e, (p, _) in servers.items()}
    job = None
    if job_dir:
        before = job_servers(job_dir) if os.path.isdir(job_dir) else None
        if before is not None and sorted(before) != sorted(servers):
            raise DistributedError(f"{job_dir} holds a run with servers {before}, not "
                                   f"{list(servers)}: a run resumes only with the same servers",
                                   hint="use the same number of servers, or another --save")
        save_train_program(os.path.join(job_dir, "origin"), main, startup,
                              main.feed_target_names, main.fetch_target_names)
        for endpoint, (program, server_startup) in servers.items():
            write_server_files(job_dir, endpoint, program, server_startup, initial[endpoint])
        job = (os.path.abspath(job_dir), os.urandom(8).hex())
        write_job(job_dir, job[1], list(servers))
    checkpoint = (lambda e: os.path.join(job_dir, f"server-{e}", "checkpoint")) if job_dir \
        else (lambda e: None)
    if local:
        runtime = _LocalRuntime(t, servers, shapes, checkpoint, save_every, initial, sync_mode,
                                timeout)
    else:
        from paddle_ir.distributed.ray_runtime import RayRuntime

        runtime = RayRuntime(t, servers, shapes, job, save_every, initial, sync_mode, timeout,
                             address, auth_token_file, insecure_cluster, placement)
    try:
        result = TrainResult(fetches=[[] for _ in readers], start_step=runtime.step())
        if start_step is not None and result.start_step != start_step:
            raise DistributedError(
                f"the servers are at step {result.start_step}, but this run starts at step "
                f"{start_step}" + (f": {job_dir} holds a run saved at step "
                                   f"{result.start_step}" if job_dir else ""),
                hint="pass --resume to continue that run, or --save another directory"
                if start_step == 0 else "the checkpoints changed while the run started")
        runtime.run(readers, _fetch_names(fetch_list), progress, result)
        if job_dir:
            runtime.save_all()
        result.params = merge_values(*runtime.server_pieces(), shapes)
        return result
    finally:
        runtime.close()


class _LocalRuntime:
    def __init__(self, t, servers, shapes, checkpoint, save_every, initial, sync_mode, timeout):
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

    def step(self) -> int:
        return min(s.version for s in self.servers.values())

    def run(self, readers, fetch_names, progress, result) -> None:
        n = len(readers)
        self.pool = ThreadPoolExecutor(max_workers=n)
        main, startup = self.t.get_trainer_program(), self.t.get_trainer_startup_program()
        trainers = list(self.pool.map(
            lambda i: Trainer(i, main, startup, self.transport, self.sync_mode, self.timeout),
            range(n)))
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
