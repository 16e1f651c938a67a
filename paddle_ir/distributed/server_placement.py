"""Where Ray puts the server actors: a custom resource, memory sized from the shard, or spread.

Without placement Ray puts an actor that asks for nothing (`num_cpus=0`) on any node,
differently on each run; a server whose shard is a 16 GB slice of a 10^9-row table
must go to a node that has the memory, and a cluster may keep some nodes for serving
(`ray start --resources='{"pserver": 1}'` on them). The options turn into the actor
options Ray schedules by; `check_feasible` refuses at once what no node of the
cluster could ever satisfy, where Ray would leave the actor pending for ever.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from paddle_ir.distributed.server import DistributedError
from paddle_ir.framework import Program

# A server process before it holds any piece (Python, numpy, Ray's worker): measured at
# 150-200 MB resident on Linux with Ray 2.60, rounded up.
PROCESS_BYTES = 256 << 20


def shard_bytes(program: Program) -> int:
    """Bytes of the persistable variables a server program holds (its pieces, their
    optimizer state, its counters)."""
    total = 0
    for var in program.global_block().vars.values():
        if var.persistable and var.shape is not None and all(d >= 0 for d in var.shape):
            total += math.prod(var.shape) * np.dtype(var.dtype).itemsize
    return total


@dataclass(frozen=True)
class ServerPlacement:
    """resources: custom resources every server asks for, e.g. {"pserver": 1};
    memory: "auto" (twice the shard's bytes, since a restore reads the checkpoint beside
    the startup values, plus PROCESS_BYTES), a number of bytes, or None;
    spread: put the servers on different nodes where Ray can."""

    resources: dict[str, float] = field(default_factory=dict)
    memory: str | int | None = None
    spread: bool = False

    def __post_init__(self):
        for name, amount in self.resources.items():
            if not (isinstance(name, str) and name and name not in ("CPU", "GPU", "memory")):
                raise DistributedError(f"server placement: resource name {name!r} must be a "
                                       "custom resource's name (CPU, GPU and memory have "
                                       "their own options)")
            if isinstance(amount, bool) or not isinstance(amount, (int, float)) \
                    or not (0 < amount < math.inf):
                raise DistributedError(f"server placement: resource {name!r} needs a positive "
                                       f"amount, got {amount!r}")
        if self.memory is not None and self.memory != "auto" and (
                isinstance(self.memory, bool) or not isinstance(self.memory, int)
                or self.memory <= 0):
            raise DistributedError(f"server placement: memory must be 'auto' or a positive "
                                   f"number of bytes, got {self.memory!r}")

    def memory_for(self, program: Program) -> int | None:
        if self.memory == "auto":
            return 2 * shard_bytes(program) + PROCESS_BYTES
        return self.memory

    def actor_options(self, program: Program) -> dict:
        options: dict = {"num_cpus": 0}
        if self.resources:
            options["resources"] = dict(self.resources)
        memory = self.memory_for(program)
        if memory:
            options["memory"] = memory
        if self.spread:
            options["scheduling_strategy"] = "SPREAD"
        return options


def check_feasible(endpoint: str, options: dict, nodes: list[dict]) -> None:
    """Refuse a server no alive node could take. `nodes` as ray.nodes() lists them."""
    alive = [n for n in nodes if n.get("Alive")]
    wanted = dict(options.get("resources", {}))
    if options.get("memory"):
        wanted["memory"] = options["memory"]
    for name, amount in wanted.items():
        if any(n.get("Resources", {}).get(name, 0) >= amount for n in alive):
            continue
        offered = sorted({r for n in alive for r in n.get("Resources", {})
                          if not r.startswith("node:")})
        if name == "memory":
            biggest = max((n.get("Resources", {}).get("memory", 0) for n in alive), default=0)
            raise DistributedError(
                f"server {endpoint!r} needs {amount / 2**30:.2f} GiB of memory for its shard, "
                f"but the largest node of the cluster offers {biggest / 2**30:.2f} GiB",
                hint="use more servers (--pservers), so that each shard is smaller, or "
                     "nodes with more memory")
        raise DistributedError(
            f"server {endpoint!r} asks for resource {name!r} x {amount:g}, which no node "
            f"of the cluster offers (they offer {', '.join(offered) or 'nothing'})",
            hint=f"start the serving nodes with `ray start ... --resources="
                 f"'{{\"{name}\": {amount:g}}}'`")
