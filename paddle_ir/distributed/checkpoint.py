"""Between one machine's variables and the servers' pieces, both ways.

`split_values` cuts single-machine values (a checkpoint, or a startup run)
into the pieces each server holds, so that a distributed job can start from,
or resume, a single-machine state. `merge_values` is its inverse: it joins
every server's pieces back into whole variables, so that a model trained on
many machines is served by `paddle-ir run` on one. `merge_checkpoint` does
that for the directories a distributed run saved (see launch.py's layout).
"""

from __future__ import annotations

import os

import numpy as np

from paddle_ir.executor import Executor, Scope
from paddle_ir.framework import Program
from paddle_ir.io.checkpoint import (
    load_persistables,
    load_train_program,
    save_persistables,
    save_train_program,
)
from paddle_ir.model_files.program_file import load_program
from paddle_ir.transpiler.placement import Piece


def pieces_of(pserver_program: Program) -> list[Piece]:
    serv = next(op for op in pserver_program.global_block().ops if op.type == "listen_and_serv")
    return [Piece.decode(s) for s in serv.attr("var_slices")]


def cut(piece: Piece, whole: np.ndarray) -> np.ndarray:
    if piece.kind == "rows":
        return whole[piece.begin:piece.end].copy()
    if piece.kind == "mod":
        return whole[piece.begin::piece.end].copy()
    return whole.copy()


def split_values(pieces: list[Piece], whole: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {p.name: cut(p, np.asarray(whole[p.origin])) for p in pieces if p.origin in whole}


def merge_values(pieces_by_server: dict[str, list[Piece]], values_by_server: dict[str, dict],
                 shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """Whole variables from the servers' pieces; 'whole' pieces held by several servers
    (the learning rate, per-block Adam powers) must agree, and are taken once."""
    out: dict[str, np.ndarray] = {}
    covered: dict[str, int] = {}
    for server, pieces in pieces_by_server.items():
        values = values_by_server[server]
        for piece in pieces:
            value = np.asarray(values[piece.name])
            if piece.kind == "whole":
                out.setdefault(piece.origin, value.copy())
                continue
            whole = out.get(piece.origin)
            if whole is None:
                whole = out[piece.origin] = np.empty(shapes[piece.origin], value.dtype)
            if piece.kind == "rows":
                whole[piece.begin:piece.end] = value
            else:
                whole[piece.begin::piece.end] = value
            covered[piece.origin] = covered.get(piece.origin, 0) + value.shape[0]
    for name, rows in covered.items():
        if rows != shapes[name][0]:
            raise ValueError(f"the servers' pieces of {name!r} cover {rows} of its "
                             f"{shapes[name][0]} rows: a server's checkpoint is missing")
    return out


def server_values(program: Program, dirname: str) -> dict[str, np.ndarray]:
    scope = Scope()
    load_persistables(Executor(), dirname, program, scope)
    return {p.name: scope.find_var(p.name).get_tensor().numpy() for p in pieces_of(program)}


def merge_checkpoint(job_dir: str, out_dir: str) -> list[str]:
    """Join a distributed run's saved server checkpoints into one single-machine checkpoint.

    `job_dir` holds `origin/` (the single-machine training job: main.pb, startup.pb) and
    one directory per server (`server-NAME/`, its pserver.pb and saved pieces). `out_dir`
    gets the training job and its persistables, loadable with `load_persistables`.
    """
    main, startup = load_train_program(os.path.join(job_dir, "origin"))
    block = main.global_block()
    pieces_by_server, values_by_server = {}, {}
    for entry in sorted(os.listdir(job_dir)):
        if not entry.startswith("server-"):
            continue
        path = os.path.join(job_dir, entry)
        program = load_program(os.path.join(path, "pserver.pb"))
        pieces_by_server[entry] = pieces_of(program)
        values_by_server[entry] = server_values(program, os.path.join(path, "checkpoint"))
    shapes = {v.name: tuple(v.shape) for v in block.vars.values() if v.persistable}
    merged = merge_values(pieces_by_server, values_by_server, shapes)
    scope = Scope()
    Executor().run(startup, scope=scope)  # variables no server holds (none, normally)
    for name, value in merged.items():
        scope.var(name).get_tensor().set(value)
    save_train_program(out_dir, main, startup, main.feed_target_names,
                          main.fetch_target_names)
    return save_persistables(Executor(), out_dir, main, scope)
