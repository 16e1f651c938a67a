"""TrainerCommunicator: what a trainer's send/recv/prefetch ops call, over any transport.

A transport moves calls to named servers and has four methods:

    push(endpoint, trainer_id, step, grads)  -> a handle (the push may still be in flight)
    wait(handles)                             raise what any push raised
    pull(endpoint, names, min_version, timeout) -> arrays, once the server ran that many rounds
    version(endpoint)                         -> the rounds the server has run
    prefetch(endpoint, table, ids)            -> the rows of `ids`

local.py runs servers in this process (threads); ray.py runs them as Ray
actors. In sync mode the communicator queues a step's gradient pieces per
server and pushes them at `send_barrier`, one push per server (an empty one
where it has nothing for that server, so that every round completes); `recv`
then waits for the round of this step. In async mode each `send` pushes at
once and `recv` takes what the servers hold.

It also counts the bytes it moves, per step, so that a run can show that a
sparse table costs bytes in proportion to the ids a batch touches.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from paddle_ir.distributed.server import DistributedError, encode


def _nbytes(value) -> int:
    if isinstance(value, dict):
        return value["rows"].nbytes + value["value"].nbytes + 8
    return value.nbytes


class TrainerCommunicator:
    def __init__(self, trainer_id: int, transport, sync_mode: bool = True,
                 timeout: float = 60.0):
        self.trainer_id, self.transport = trainer_id, transport
        self.sync_mode, self.timeout = sync_mode, timeout
        self.step = 0
        self._queued: dict[str, dict] = defaultdict(dict)
        self._pushes: list = []
        self._sent = False
        self.bytes_sent: dict[str, int] = defaultdict(int)   # variable name -> bytes, all steps
        self.bytes_received: dict[str, int] = defaultdict(int)

    def join(self, endpoints) -> None:
        """Start at the servers' step (a job resumed from their checkpoints is past step 0)."""
        steps = {self.transport.version(e) for e in endpoints}
        if len(steps) != 1:
            raise DistributedError(f"the servers are at different steps {sorted(steps)}: "
                                   "their checkpoints come from different moments")
        self.step = steps.pop()

    # -- the ops' calls ---------------------------------------------------------------------------
    def send(self, names, values, endpoints) -> None:
        for name, value, endpoint in zip(names, values, endpoints, strict=True):
            wire = encode(value)
            self.bytes_sent[name] += _nbytes(wire)
            self._queued[endpoint][name] = wire
        if not self.sync_mode:
            self._flush(sorted(self._queued), step=None)

    def send_barrier(self, endpoints) -> None:
        self._flush(endpoints, step=self.step)
        self._sent = True

    def _flush(self, endpoints, step) -> None:
        for endpoint in endpoints:
            grads = self._queued.pop(endpoint, {})
            self._pushes.append(self.transport.push(endpoint, self.trainer_id, step, grads))

    def recv(self, names, endpoints) -> list[np.ndarray]:
        # A push a server refused fails here, before waiting on a round it can never complete.
        self.transport.wait(self._pushes)
        self._pushes = []
        wanted = self.step + 1 if self.sync_mode and self._sent else 0
        by_server: dict[str, list[int]] = defaultdict(list)
        for i, endpoint in enumerate(endpoints):
            by_server[endpoint].append(i)
        values: list = [None] * len(names)
        for endpoint, positions in by_server.items():
            got = self.transport.pull(endpoint, [names[i] for i in positions], wanted,
                                      self.timeout)
            for i, value in zip(positions, got, strict=True):
                # a copy: a transport's arrays may be read-only views of its buffers
                values[i] = np.array(value)
                self.bytes_received[names[i]] += values[i].nbytes
        return values

    def fetch_barrier(self, endpoints) -> None:
        self.transport.wait(self._pushes)
        self._pushes = []
        if self._sent:
            self.step += 1
            self._sent = False

    def prefetch(self, tables, ids, endpoints) -> list[np.ndarray]:
        rows = []
        for table, shard_ids, endpoint in zip(tables, ids, endpoints, strict=True):
            got = np.array(self.transport.prefetch(endpoint, table, shard_ids))
            self.bytes_sent[table] += shard_ids.nbytes
            self.bytes_received[table] += got.nbytes
            rows.append(got)
        return rows
