"""DistributeTranspiler: one training program -> a trainer program and parameter-server programs.

    t = DistributeTranspiler(DistributeTranspilerConfig(min_block_size=1024))
    t.transpile(trainer_id=0, program=main, pservers="ps0,ps1", trainers=2,
                startup_program=startup)
    trainer_main = t.get_trainer_program()
    trainer_startup = t.get_trainer_startup_program()
    ps0 = t.get_pserver_program("ps0")
    ps0_startup = t.get_startup_program("ps0", ps0)

As in Fluid 1.x, the update ops (op_role 2: regularization, per-parameter
learning rates, the optimizer) move to the servers, one `listen_and_serv`
sub-block per parameter piece (placement.py decides the pieces); the
trainer keeps forward and backward and gains, after the backward pass, the
ops that ship gradient pieces out and parameter pieces back (ops/distributed_ops/dist_comm.py,
ops/distributed_ops/dist_split.py). A table looked up with `is_distributed=True` never exists
on a trainer: its lookups become split_ids -> prefetch -> merge_ids and its
gradient a sparse_table_grad. Trainer startup programs pull the servers'
initial values, so every trainer starts from the same parameters.

Every result is an ordinary Program: `.pb` files hold them and `paddle-ir
dump` shows them.
"""

from __future__ import annotations

from paddle_ir.core.errors import ProgramError
from paddle_ir.framework import Program, default_main_program, default_startup_program
from paddle_ir.framework.variable import VarType
from paddle_ir.ops.registry import OP_ROLE_OPTIMIZE, get_op_def
from paddle_ir.transpiler.placement import (
    Dispatcher,
    DistributeTranspilerConfig,
    Piece,
    Placement,
    place_dense,
    place_sparse,
)

STEP_VAR = "@SERVER_STEP@"  # a server's persistable count of the rounds it has run
_LOOKUPS = ("lookup_table", "lookup_table_v2")
_OPTIMIZERS = ("sgd", "momentum", "adagrad", "adam")


def _role(op) -> int:
    return op.attr("op_role") if op.has_attr("op_role") else 0


class DistributeTranspiler:
    def __init__(self, config: DistributeTranspilerConfig | None = None):
        self.config = config or DistributeTranspilerConfig()
        self._origin: Program | None = None

    # -- the entry point -----------------------------------------------------------------------
    def transpile(self, trainer_id: int, program: Program | None = None,
                  pservers: str = "127.0.0.1:6174", trainers: int = 1, sync_mode: bool = True,
                  startup_program: Program | None = None, current_endpoint: str = "") -> None:
        self._origin = program or default_main_program()
        self._origin_startup = startup_program or default_startup_program()
        self.trainer_id, self.trainers, self.sync_mode = int(trainer_id), int(trainers), sync_mode
        self.endpoints = [e.strip() for e in pservers.split(",") if e.strip()]
        if not self.endpoints or len(set(self.endpoints)) != len(self.endpoints):
            raise ValueError(f"pservers must name distinct servers, got {pservers!r}")
        if self.trainers < 1 or not 0 <= self.trainer_id < self.trainers:
            raise ValueError(f"trainer_id {trainer_id} must be in [0, trainers={trainers})")
        block = self._origin.global_block()
        self._updates = [op for op in block.ops
                         if op.type in _OPTIMIZERS and _role(op) == OP_ROLE_OPTIMIZE]
        if not self._updates:
            raise ProgramError("the program has no optimizer ops to distribute",
                               hint="call optimizer.minimize(loss) before transpiling")
        self._distributed = self._distributed_tables(block)
        dispatcher = Dispatcher(self.endpoints, self.config.split_method)
        self.placements: dict[str, Placement] = {}
        self._chains: dict[str, list] = {}
        self._grad_sent: dict[str, str] = {}
        for op in self._updates:
            param = op.input("Param")[0]
            chain, grad = self._update_chain(block, op)
            self._chains[param], self._grad_sent[param] = chain, grad
            sparse = block.var(grad).type == VarType.SELECTED_ROWS
            self.placements[param] = (place_sparse(param, self.endpoints) if sparse
                                      else place_dense(param, tuple(block.var(param).shape),
                                                       self.config, dispatcher))
        self._schedule = self._schedule_ops(block)
        missing = set(self._distributed) - {p for p, pl in self.placements.items() if pl.sparse}
        if missing:
            raise ProgramError(f"is_distributed tables {sorted(missing)} need is_sparse=True "
                               "and an optimizer", hint="embedding(..., is_sparse=True, "
                               "is_distributed=True)")

    # -- what the program holds ----------------------------------------------------------------
    @staticmethod
    def _distributed_tables(block) -> dict[str, dict]:
        tables = {}
        for op in block.ops:
            if op.type in _LOOKUPS and op.has_attr("is_distributed") and op.attr("is_distributed"):
                w = op.input("W")[0]
                tables[w] = {"height": block.var(w).shape[0], "width": block.var(w).shape[1],
                             "dtype": block.var(w).desc.lod_desc.tensor.data_type}
        return tables

    def _update_chain(self, block, update) -> tuple[list, str]:
        """The optimize-role ops that feed `update` (decay, rate scaling), in program order,
        and the backward gradient the chain starts from (what the trainer sends)."""
        producers = {}
        for op in block.ops:
            if _role(op) == OP_ROLE_OPTIMIZE and op.type not in _OPTIMIZERS:
                for name in op.output_arg_names:
                    producers[name] = op
        chain, todo = [update], list(update.input_arg_names)
        while todo:
            op = producers.get(todo.pop())
            if op is not None and op not in chain:
                chain.append(op)
                todo.extend(op.input_arg_names)
        chain.sort(key=lambda op: op.idx)
        grad = update.input("Grad")[0]
        while grad in producers and producers[grad] in chain:
            grad = next(n for n in producers[grad].input("Grad"))  # decay ops take Grad
        return chain, grad

    def _schedule_ops(self, block) -> list:
        """The forward ops that compute a learning rate an update reads (a schedule, e.g.
        exponential_decay: `increment` of the step counter, then arithmetic on it), in
        program order. They move to every server's lr_decay block, which runs once per
        round before the updates, as Fluid's pserver ran its lr_decay_block.

        A schedule may read only persistable state (the counter) and what it computes
        itself: a learning rate fed or computed from the batch cannot run on a server.
        """
        producers = {}
        for op in block.ops:
            if _role(op) != OP_ROLE_OPTIMIZE:
                for name in op.output_arg_names:
                    producers.setdefault(name, []).append(op)
        moved = {op.idx for chain in self._chains.values() for op in chain}
        wanted, todo = {}, []
        for param, chain in self._chains.items():
            # what the updates read from outside their chain, the gradient aside: the rate
            written = {n for op in chain for n in op.output_arg_names}
            todo += [n for op in chain for n in op.input_arg_names
                     if n not in written and n != self._grad_sent[param]]
        while todo:
            name = todo.pop()
            for op in producers.get(name, ()):
                if op.idx in wanted or op.idx in moved:
                    continue
                opdef = get_op_def(op.type)
                if opdef is None or any(a.kind in ("block", "blocks") for a in opdef.attrs):
                    raise ProgramError(
                        f"the learning rate is computed with control flow ({op.type!r} writes "
                        f"{name!r}): a schedule moved to the parameter servers must be plain ops",
                        hint="build it from fluid.layers' schedules (exponential_decay, "
                             "piecewise_decay, ...) or pass a constant learning rate")
                wanted[op.idx] = op
                todo += op.input_arg_names
        ops = [wanted[i] for i in sorted(wanted)]
        made = {n for op in ops for n in op.output_arg_names}
        for op in ops:
            for name in op.input_arg_names:
                var = block._find_var_recursive(name)
                if name not in made and not (var is not None and var.persistable):
                    raise ProgramError(
                        f"the learning rate depends on {name!r} (read by {op.type!r}), which "
                        "is neither persistable nor computed by the schedule: a learning rate "
                        "fed or computed from the batch cannot run on the parameter servers",
                        hint="compute the schedule from the step counter "
                             "(fluid.layers.exponential_decay, ...) or use a constant")
        return ops

    # -- names ---------------------------------------------------------------------------------
    @staticmethod
    def _suffix(piece: Piece) -> str:
        return piece.name[len(piece.origin):]

    def _grad_piece(self, param: str, piece: Piece) -> str:
        return self._grad_sent[param] + self._suffix(piece)

    # -- the trainer ---------------------------------------------------------------------------
    def get_trainer_program(self) -> Program:
        program = self._origin.clone()
        block = program.global_block()
        moved = {op.idx for chain in self._chains.values() for op in chain}
        moved |= self._schedule_only(self._origin.global_block(), moved)
        for idx in sorted(moved, reverse=True):
            block._remove_op(idx)
        self._replace_distributed_lookups(block)
        sent = []
        for param, placement in self.placements.items():
            sent.append(self._append_send(block, param, placement))
        if self.sync_mode:
            block.append_op("send_barrier", attrs={"endpoints": self.endpoints})
        self._append_recv(block, [p for p in self.placements.values()
                                  if p.param not in self._distributed])
        self._drop_unused_vars(program)
        return program

    def _schedule_only(self, block, moved: set[int]) -> set[int]:
        """The schedule ops whose results nothing kept on the trainer reads (a schedule
        op a forward op also reads, e.g. a fetched learning rate, stays on both)."""
        schedule = {op.idx for op in self._schedule}
        kept_reads = {n for op in block.ops if op.idx not in moved | schedule
                      for n in op.input_arg_names}
        kept_reads |= set(self._origin.fetch_target_names)
        dropped = set(schedule)
        changed = True
        while changed:  # an op stays if a kept op, or a kept schedule op, reads its output
            changed = False
            for op in self._schedule:
                if op.idx in dropped and set(op.output_arg_names) & kept_reads:
                    dropped.discard(op.idx)
                    kept_reads |= set(op.input_arg_names)
                    changed = True
        return dropped

    def _replace_distributed_lookups(self, block) -> None:
        for idx in range(len(block.ops) - 1, -1, -1):
            op = block.ops[idx]
            w = op.input("W")[0] if "W" in op.input_names else None
            if w not in self._distributed:
                continue
            table, n = self._distributed[w], len(self.endpoints)
            ids, padding = op.input("Ids")[0], op.attr("padding_idx")
            if op.type in _LOOKUPS:
                out = op.output("Out")[0]
                block._remove_op(idx)
                shards = [block.create_var(f"{out}.ids{k}", [-1, 1], "int64").name
                          for k in range(n)]
                rows = [block.create_var(f"{out}.rows{k}", [-1, table["width"]],
                                         block.var(out).dtype).name for k in range(n)]
                self._insert(block, idx, "split_ids", {"Ids": [ids]}, {"Out": shards},
                             {"num_shards": n})
                self._insert(block, idx + 1, "prefetch", {"X": shards}, {"Out": rows},
                             {"epmap": self.endpoints, "width": table["width"],
                              "table_names": [f"{w}.shard{k}" for k in range(n)],
                              "dtype": table["dtype"]})
                self._insert(block, idx + 2, "merge_ids",
                             {"Ids": [ids], "Rows": shards, "X": rows}, {"Out": [out]},
                             {"padding_idx": padding, "trailing_one": op.type == "lookup_table"})
            elif op.type in tuple(t + "_grad" for t in _LOOKUPS):
                dout, dw = op.input("Out@GRAD")[0], op.output("W@GRAD")[0]
                block._remove_op(idx)
                self._insert(block, idx, "sparse_table_grad", {"Ids": [ids], "Out@GRAD": [dout]},
                             {"W@GRAD": [dw]}, {"height": table["height"], "padding_idx": padding})

    @staticmethod
    def _insert(block, idx, op_type, inputs, outputs, attrs):
        return block._insert_op(idx, op_type, inputs, outputs, attrs)

    def _append_send(self, block, param: str, placement: Placement) -> list[str]:
        grad = self._grad_sent[param]
        names = [self._grad_piece(param, p) for p in placement.pieces]
        gvar = block.var(grad)
        if placement.sparse:
            for name in names:
                block.create_var(name, gvar.shape, gvar.dtype, type=VarType.SELECTED_ROWS)
            block.append_op("split_ids", inputs={"Ids": [grad]}, outputs={"Out": names},
                            attrs={"num_shards": len(names)})
        elif len(names) > 1:
            for piece, name in zip(placement.pieces, names, strict=True):
                block.create_var(name, [piece.end - piece.begin] + list(gvar.shape[1:]),
                                 gvar.dtype)
            block.append_op("split_byref", inputs={"X": [grad]}, outputs={"Out": names},
                            attrs={"sections": [p.end - p.begin for p in placement.pieces]})
        block.append_op("send", inputs={"X": names},
                        attrs={"epmap": placement.servers, "send_varnames": names,
                               "sync_mode": self.sync_mode})
        return names

    def _append_recv(self, block, placements: list[Placement]) -> None:
        """recv every piece, fetch_barrier, then join pieces into their parameters."""
        joins = []
        names, servers = [], []
        for placement in placements:
            pvar = block.var(placement.param)
            pieces = [p.name for p in placement.pieces]
            if pieces != [placement.param]:
                for piece in placement.pieces:
                    block.create_var(piece.name, [piece.rows_of(pvar.shape[0])]
                                     + list(pvar.shape[1:]), pvar.dtype)
                joins.append((placement, pieces))
            names += pieces
            servers += placement.servers
        block.append_op("recv", outputs={"Out": names},
                        attrs={"epmap": servers, "varnames": names})
        if self.sync_mode:
            block.append_op("fetch_barrier", attrs={"endpoints": self.endpoints})
        for placement, pieces in joins:
            op_type = "interleave_rows" if placement.sparse else "concat"
            attrs = {} if placement.sparse else {"axis": 0}
            block.append_op(op_type, inputs={"X": pieces}, outputs={"Out": [placement.param]},
                            attrs=attrs)

    def _drop_unused_vars(self, program: Program) -> None:
        """Remove the declarations no op of the trainer reads or writes (server-only state)."""
        used = {n for b in program.blocks for op in b.ops
                for n in op.input_arg_names + op.output_arg_names}
        used |= set(program.feed_target_names) | set(program.fetch_target_names)
        block = program.global_block()
        for i in range(len(block.desc.vars) - 1, -1, -1):
            name = block.desc.vars[i].name
            if name not in used:
                del block.desc.vars[i]
                block.vars.pop(name, None)
        program._bump()

    def get_trainer_startup_program(self) -> Program:
        """The original startup without server-side state, then a pull of the servers' values."""
        startup = self._origin_startup.clone()
        block = startup.global_block()
        server_only = self._server_only_vars()
        for idx in range(len(block.ops) - 1, -1, -1):
            if set(block.ops[idx].output_arg_names) & server_only:
                block._remove_op(idx)
        for placement in self.placements.values():
            if placement.param in self._distributed:
                continue
            src = self._origin.global_block().var(placement.param)
            if not block.has_var(placement.param):
                block.create_var(placement.param, src.shape, src.dtype, persistable=True)
        self._append_recv(block, [p for p in self.placements.values()
                                  if p.param not in self._distributed])
        self._drop_unused_vars(startup)
        return startup

    def _server_only_vars(self) -> set[str]:
        names = set()
        for param, chain in self._chains.items():
            names.add(param)
            for op in chain:
                names.update(op.input_arg_names + op.output_arg_names)
        kept = self._origin.global_block().ops
        dropped = self._schedule_only(self._origin.global_block(),
                                      {op.idx for c in self._chains.values() for op in c})
        still_read = {n for op in kept if op.idx not in dropped
                      and op not in (o for c in self._chains.values() for o in c)
                      for n in op.input_arg_names + op.output_arg_names}
        for op in self._schedule:
            if op.idx in dropped:
                names.update(n for n in op.input_arg_names + op.output_arg_names
                             if n not in still_read)
        return names - set(self._grad_sent.values())

    # -- the servers ---------------------------------------------------------------------------
    def get_pserver_program(self, endpoint: str) -> Program:
        if endpoint not in self.endpoints:
            raise ValueError(f"{endpoint!r} is not one of the servers {self.endpoints}")
        origin = self._origin.global_block()
        program = Program()
        program.random_seed = self._origin.random_seed
        block = program.global_block()
        optimize_blocks, grad_to_block, slices = [], [], []
        for param, placement in self.placements.items():
            for piece, server in zip(placement.pieces, placement.servers, strict=True):
                if server != endpoint:
                    continue
                sub = program._create_block(0)
                rename = self._piece_names(param, piece)
                height = origin.var(param).shape[0]
                pshape = tuple(origin.var(param).shape)
                for old, new in rename.items():
                    var = origin.var(old)
                    shaped = tuple(var.shape) == pshape
                    self._declare(block, var, new, piece, height, shaped)
                    if var.persistable:
                        slices.append((Piece(new, old, piece.kind, piece.begin, piece.end)
                                       if shaped else Piece(new, old, "whole")).encode())
                for op in self._chains[param]:
                    sub.append_op(op.type,
                                  inputs={s: [rename.get(n, n) for n in op.input(s)]
                                          for s in op.input_names},
                                  outputs={s: [rename.get(n, n) for n in op.output(s)]
                                           for s in op.output_names},
                                  attrs=dict(op.attrs))
                program._rollback()
                optimize_blocks.append(sub.idx)
                grad_to_block.append(f"{rename[self._grad_sent[param]]}:{sub.idx}")
        lr_block = self._append_schedule(program, slices)
        block.create_var(STEP_VAR, [1], "int64", persistable=True)
        block.append_op("listen_and_serv",
                        attrs={"endpoint": endpoint, "Fanin": self.trainers,
                               "sync_mode": self.sync_mode, "optimize_blocks": optimize_blocks,
                               "grad_to_block_id": grad_to_block,
                               "var_slices": sorted(set(slices)), "lr_decay_blocks": lr_block})
        return program

    def _append_schedule(self, program: Program, slices: list[str]) -> list[int]:
        """The learning-rate schedule as the server's lr_decay block ([] if none). Its
        variables live in the global block, so the updates' blocks read the rate it
        writes; its persistable state (the step counter) is a whole piece of the server."""
        if not self._schedule:
            return []
        origin, block = self._origin.global_block(), program.global_block()
        for name in sorted({n for op in self._schedule
                            for n in op.input_arg_names + op.output_arg_names}):
            var = origin.var(name)
            if not block.has_var(name):
                block.create_var(name, list(var.shape), var.dtype, type=var.type,
                                 persistable=var.persistable)
            if var.persistable:
                slices.append(Piece(name, name, "whole").encode())
        sub = program._create_block(0)
        for op in self._schedule:
            sub.append_op(op.type, inputs={s: op.input(s) for s in op.input_names},
                          outputs={s: op.output(s) for s in op.output_names},
                          attrs=dict(op.attrs))
        program._rollback()
        return [sub.idx]

    def _piece_names(self, param: str, piece: Piece) -> dict[str, str]:
        """Old -> new names of the chain's variables on this piece's server: everything the
        chain writes or that has the parameter's shape gets the piece's suffix; read-only
        inputs (the global learning rate) keep their names."""
        suffix = self._suffix(piece)
        origin = self._origin.global_block()
        written = {n for op in self._chains[param] for n in op.output_arg_names}
        names = {n for op in self._chains[param] for n in op.input_arg_names + op.output_arg_names}
        pshape = tuple(origin.var(param).shape)
        return {n: (n + suffix if n in written or tuple(origin.var(n).shape) == pshape
                    or n == self._grad_sent[param] else n) for n in sorted(names)}

    def _declare(self, block, var, name: str, piece: Piece, height: int, shaped: bool) -> None:
        shape = list(var.shape)
        if shaped and shape:
            shape[0] = piece.rows_of(height)
        block.create_var(name, shape, var.dtype, type=var.type, persistable=var.persistable)

    def get_startup_program(self, endpoint: str, pserver_program: Program | None = None) -> Program:
        """Initialize what `endpoint` holds: each piece by its origin's startup op, reshaped."""
        pserver_program = pserver_program or self.get_pserver_program(endpoint)
        serv = pserver_program.global_block().ops[0]
        pieces = [Piece.decode(s) for s in serv.attr("var_slices")]
        startup = Program()
        startup.random_seed = self._origin_startup.random_seed
        block = startup.global_block()
        block.create_var(STEP_VAR, [1], "int64", persistable=True)
        block.append_op("fill_constant", outputs={"Out": [STEP_VAR]},
                        attrs={"shape": [1], "dtype": 3, "value": 0.0})
        init_ops = {n: op for op in self._origin_startup.global_block().ops
                    for n in op.output_arg_names}
        for piece in pieces:
            var = pserver_program.global_block().var(piece.name)
            block.create_var(piece.name, var.shape, var.dtype, persistable=True)
            op = init_ops.get(piece.origin)
            if op is None:
                raise ProgramError(f"the startup program does not initialize {piece.origin!r}, "
                                   f"which server {endpoint!r} holds")
            attrs = dict(op.attrs)
            if "shape" in attrs:
                attrs["shape"] = list(var.shape)
            block.append_op(op.type, inputs={s: op.input(s) for s in op.input_names},
                            outputs={s: [piece.name] for s in op.output_names}, attrs=attrs)
        return startup


__all__ = ["DistributeTranspiler", "DistributeTranspilerConfig"]
