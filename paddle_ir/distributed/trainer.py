"""Trainer: one trainer's scope, communicator and program, whatever carries its traffic."""

from __future__ import annotations

from paddle_ir.distributed.communicator import TrainerCommunicator
from paddle_ir.executor import Executor, Scope
from paddle_ir.framework import Program
from paddle_ir.ops.distributed_ops.dist_comm import COMMUNICATOR


class Trainer:
    """One trainer: its scope, its communicator, the trainer program."""

    def __init__(self, trainer_id: int, main: Program, startup: Program, transport,
                 sync_mode: bool, timeout: float):
        self.scope, self.exe, self.main = Scope(), Executor(), main
        self.comm = TrainerCommunicator(trainer_id, transport, sync_mode, timeout)
        self.scope.var(COMMUNICATOR).value = self.comm
        if sync_mode:
            self.comm.join(transport_endpoints(startup, main))
        self.exe.run(startup, scope=self.scope)

    def run_step(self, feed: dict, fetch_names: list[str]) -> list:
        return self.exe.run(self.main, feed=feed, fetch_list=fetch_names, scope=self.scope)

    def scope_names(self) -> list[str]:
        return self.scope.local_var_names()

    def traffic(self) -> dict:
        return {"sent": dict(self.comm.bytes_sent), "received": dict(self.comm.bytes_received),
                "steps": self.comm.step}


def transport_endpoints(*programs: Program) -> list[str]:
    """Every server the programs' communication ops name."""
    found = []
    for program in programs:
        for op in program.global_block().ops:
            for attr in ("epmap", "endpoints"):
                if op.has_attr(attr):
                    found += [e for e in op.attr(attr) if e not in found]
    return found
