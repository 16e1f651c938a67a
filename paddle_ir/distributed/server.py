"""ParameterServer: one server's pieces of the parameters, and the rounds that update them.

The server holds a Scope with its pieces (parameter blocks, table shards,
optimizer state) and runs its `listen_and_serv` program with an ordinary
Executor once per round: in sync mode a round is every trainer's push for
one step, merged in trainer-id order (a SelectedRows gradient's rows merged,
never densified) and scaled by 1/trainers, so that a job run twice gives the
same bits whatever order the pushes arrived in; in async mode each push is a round of its own.

Nothing here waits or talks to a network: the transports (local.py, ray.py)
do that, so the rules can be tested on their own. Every push is checked
before it touches the scope: the gradient name must be one this server
serves, a dense gradient must have its declared dtype and shape, and a
SelectedRows gradient's rows must lie in this server's shard of the table
(global ids with id % n == k, below the table's height) with its width and
dtype. Rows are turned from global ids into the shard's local rows (id // n).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.segments import merge_rows
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.executor import Executor, Scope
from paddle_ir.framework import Program
from paddle_ir.framework.variable import VarType
from paddle_ir.io.checkpoint import load_persistables, save_persistables
from paddle_ir.ops.distributed_ops.dist_comm import COMMUNICATOR
from paddle_ir.transpiler.distribute_transpiler import STEP_VAR
from paddle_ir.transpiler.placement import Piece


class DistributedError(PaddleIRError):
    """A push, pull or prefetch that a server refuses, or a peer that did not answer."""

    category = "DistributedError"


@dataclass(frozen=True)
class GradSpec:
    name: str
    sparse: bool
    dtype: np.dtype
    shape: tuple[int, ...]          # the piece's shape (dense) or [local rows, width]
    shard: Piece | None = None      # for a SelectedRows gradient: which rows of the table
    height: int = 0                 # the whole table's height


def encode(value) -> object:
    """A value as it crosses the wire: an ndarray, or a dict of a SelectedRows' parts."""
    if isinstance(value, SelectedRows):
        return {"rows": value.rows, "value": value.value, "height": int(value.height)}
    return np.asarray(value)


class ParameterServer:
    def __init__(self, endpoint: str, program: Program, startup: Program, origin_shapes: dict,
                 checkpoint_dir: str | None = None):
        self.endpoint, self.program = endpoint, program
        serv = next((op for op in program.global_block().ops if op.type == "listen_and_serv"),
                    None)
        if serv is None:
            raise DistributedError(f"server {endpoint!r}: the program has no listen_and_serv op")
        self.trainers, self.sync_mode = serv.attr("Fanin"), serv.attr("sync_mode")
        self.pieces = {p.name: p for p in map(Piece.decode, serv.attr("var_slices"))}
        self.grads = self._grad_specs(serv, origin_shapes)
        self.tables = {p.name: (p, origin_shapes[p.origin][0]) for p in self.pieces.values()
                       if p.kind == "mod" and p.origin in origin_shapes
                       and any(g.shard is not None and g.shard.name == p.name
                               for g in self.grads.values())}
        self.scope, self.exe = Scope(), Executor()
        self.scope.var(COMMUNICATOR).value = self
        self.checkpoint_dir = checkpoint_dir
        self._pending: dict[int, dict] = {}
        self._round: list[str] = []
        # Why a round failed, once one has: its updates may have run in part, so the
        # server stops answering (pushes, pulls, prefetches, saves) rather than serve or
        # save torn parameters; the job restarts from the last checkpoint.
        self.failure: str | None = None
        self.exe.run(startup, scope=self.scope)
        if checkpoint_dir and os.path.isdir(checkpoint_dir) and os.listdir(checkpoint_dir):
            self.restore(checkpoint_dir)

    @property
    def version(self) -> int:
        return int(self.scope.find_var(STEP_VAR).get_tensor().numpy().reshape(-1)[0])

    @version.setter
    def version(self, value: int) -> None:
        self.scope.find_var(STEP_VAR).get_tensor().numpy().reshape(-1)[0] = value

    def _grad_specs(self, serv, origin_shapes) -> dict[str, GradSpec]:
        block = self.program.global_block()
        specs = {}
        for entry in serv.attr("grad_to_block_id"):
            name = entry.rpartition(":")[0]
            var = block.var(name)
            sparse = var.type == VarType.SELECTED_ROWS
            shard = height = None
            if sparse:
                # the piece is the Param of the block's update op (its last op reading one)
                sub = self.program.block(int(entry.rpartition(":")[2]))
                param = [op.input("Param")[0] for op in sub.ops if "Param" in op.input_names][-1]
                shard = self.pieces[param]
                height = origin_shapes[shard.origin][0]
            specs[name] = GradSpec(name, sparse, np.dtype(var.dtype), tuple(var.shape), shard,
                                   height or 0)
        return specs

    # -- what listen_and_serv asks ---------------------------------------------------------------
    def round_grads(self) -> list[str]:
        return list(self._round)

    # -- pushes ----------------------------------------------------------------------------------
    def check_alive(self) -> None:
        if self.failure is not None:
            raise DistributedError(self.failure)

    def push(self, trainer_id: int, step: int | None, grads: dict) -> bool:
        """Take one trainer's gradients; return True when they completed a round (and ran it)."""
        self.check_alive()
        if not (isinstance(trainer_id, int) and 0 <= trainer_id < self.trainers):
            raise DistributedError(f"server {self.endpoint!r}: trainer id {trainer_id!r} is not "
                                   f"in [0, {self.trainers})")
        checked = {name: self._check(trainer_id, name, value) for name, value in grads.items()}
        if not self.sync_mode:
            self._apply(checked)
            return True
        if step != self.version:
            raise DistributedError(
                f"server {self.endpoint!r} is at step {self.version} but trainer {trainer_id} "
                f"pushed step {step}" + (" (the server restarted from its checkpoint)"
                                         if step is not None and step > self.version else ""))
        if trainer_id in self._pending:
            raise DistributedError(f"server {self.endpoint!r}: trainer {trainer_id} pushed step "
                                   f"{step} twice")
        self._pending[trainer_id] = checked
        if len(self._pending) < self.trainers:
            return False
        # In trainer-id order, never arrival order: float32 sums depend on their order, and
        # two runs of one job must give the same bits whichever trainer was faster.
        pushes = [self._pending[t] for t in sorted(self._pending)]
        self._pending = {}
        self._apply(self._merge(pushes))
        return True

    def waiting_for(self) -> list[int]:
        """Sync mode: the trainers whose push for the current step has not arrived."""
        return sorted(set(range(self.trainers)) - set(self._pending))

    def _check(self, trainer_id: int, name: str, value):
        spec = self.grads.get(name)
        where = f"server {self.endpoint!r}, push from trainer {trainer_id}"
        if spec is None:
            raise DistributedError(f"{where}: unknown gradient {name!r}; this server takes "
                                   f"{sorted(self.grads)}")
        if spec.sparse:
            return self._check_rows(where, spec, value)
        if not isinstance(value, np.ndarray) or value.dtype != spec.dtype \
                or value.shape != spec.shape:
            got = (f"{value.dtype} {list(value.shape)}" if isinstance(value, np.ndarray)
                   else type(value).__name__)
            raise DistributedError(f"{where}: gradient {name!r} must be {spec.dtype} "
                                   f"{list(spec.shape)}, got {got}")
        return value

    def _check_rows(self, where: str, spec: GradSpec, value) -> SelectedRows:
        if not (isinstance(value, dict) and set(value) == {"rows", "value", "height"}):
            raise DistributedError(f"{where}: gradient {spec.name!r} must be a SelectedRows")
        rows, vals, height = value["rows"], value["value"], value["height"]
        k, n = spec.shard.begin, spec.shard.end
        if not (isinstance(rows, np.ndarray) and rows.ndim == 1 and rows.dtype == np.int64):
            raise DistributedError(f"{where}: gradient {spec.name!r}: rows must be 1-D int64")
        if not (isinstance(vals, np.ndarray) and vals.dtype == spec.dtype and vals.ndim == 2
                and vals.shape == (rows.size, spec.shape[1])):
            got = f"{vals.dtype} {list(vals.shape)}" if isinstance(vals, np.ndarray) else "?"
            raise DistributedError(f"{where}: gradient {spec.name!r}: value must be "
                                   f"{spec.dtype} [{rows.size}, {spec.shape[1]}], got {got}")
        if height != spec.height:
            raise DistributedError(f"{where}: gradient {spec.name!r}: height must be the "
                                   f"table's {spec.height}, got {height}")
        bad = (rows < 0) | (rows >= spec.height) | (rows % n != k)
        if bad.any():
            raise DistributedError(
                f"{where}: table {spec.shard.origin!r}: row {int(rows[bad][0])} is outside "
                f"shard {k} of {n} (rows r < {spec.height} with r % {n} == {k})")
        return SelectedRows(rows // n, vals, spec.shape[0])

    def _merge(self, pushes: list[dict]) -> dict:
        """Sync mode: the trainers' gradients summed and scaled by 1/trainers."""
        merged = {}
        scale = 1.0 / self.trainers
        for name, spec in self.grads.items():
            parts = [p[name] for p in pushes if name in p]
            if not parts:
                continue
            if spec.sparse:
                rows, values = merge_rows(np.concatenate([p.rows for p in parts]),
                                          np.concatenate([p.value for p in parts]))
                values *= values.dtype.type(scale)
                merged[name] = SelectedRows(rows, values, spec.shape[0])
            else:
                total = parts[0].copy()
                for part in parts[1:]:
                    total += part
                total *= total.dtype.type(scale)
                merged[name] = total
        return merged

    def _apply(self, grads: dict) -> None:
        for name, value in grads.items():
            self.scope.var(name).value = value
        self._round = list(grads)
        try:
            self.exe.run(self.program, scope=self.scope)
        except Exception as e:
            self.failure = (f"server {self.endpoint!r} failed running step {self.version} and "
                            f"stopped (its parameters may be partly updated): {e}")
            raise DistributedError(self.failure,
                                   hint="fix the cause, then restart the job from the servers' "
                                        "last checkpoint") from e
        finally:
            self._round = []
        self.version += 1

    # -- pulls -----------------------------------------------------------------------------------
    def pull(self, names: list[str]) -> list[np.ndarray]:
        self.check_alive()
        out = []
        for name in names:
            if name not in self.pieces:
                raise DistributedError(f"server {self.endpoint!r}: no variable {name!r} to "
                                       f"pull; it holds {sorted(self.pieces)}")
            out.append(np.array(self.scope.find_var(name).get_tensor().numpy()))
        return out

    def prefetch(self, table: str, ids) -> np.ndarray:
        self.check_alive()
        if table not in self.tables:
            raise DistributedError(f"server {self.endpoint!r}: no table shard {table!r}; it "
                                   f"holds {sorted(self.tables)}")
        piece, height = self.tables[table]
        if not (isinstance(ids, np.ndarray) and ids.dtype.kind in "iu"):
            raise DistributedError(f"server {self.endpoint!r}: prefetch of {table!r} needs "
                                   "integer ids")
        flat = ids.reshape(-1).astype(np.int64)
        k, n = piece.begin, piece.end
        bad = (flat < 0) | (flat >= height) | (flat % n != k)
        if bad.any():
            raise DistributedError(f"server {self.endpoint!r}: table {piece.origin!r}: id "
                                   f"{int(flat[bad][0])} is outside shard {k} of {n}")
        return self.scope.find_var(table).get_tensor().numpy().take(flat // n, axis=0)

    # -- checkpoints -----------------------------------------------------------------------------
    def save(self, dirname: str) -> None:
        """Save every piece and the step count together, as one staged (atomic) save."""
        self.check_alive()  # never over a good checkpoint with a torn round's pieces
        save_persistables(self.exe, dirname, self.program, self.scope)

    def restore(self, dirname: str) -> None:
        load_persistables(self.exe, dirname, self.program, self.scope)
