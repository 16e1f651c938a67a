"""Between one machine's variables and the servers' pieces, both ways.

`split_values` cuts single-machine values (a checkpoint, or a startup run)
into the pieces each server holds, so that a distributed job can start from,
or resume, a single-machine state. `merge_values` is its inverse: it joins
every server's pieces back into whole variables, so that a model trained on
many machines is served by `paddle-ir run` on one. `merge_checkpoint` does
that for the directories a distributed run saved (see launch.py's layout), and
refuses what would join pieces of different runs or steps: a missing server, a
stray copy of one, another run's directory, servers saved at different steps.
"""

from __future__ import annotations

import os

import numpy as np

from paddle_ir.core.atomic import atomic_write, read_regular
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.distributed.server import DistributedError
from paddle_ir.executor import Executor, Scope
from paddle_ir.framework import Program
from paddle_ir.io.checkpoint import (
    load_persistables,
    load_train_program,
    load_vars,
    save_persistables,
    save_train_program,
    save_vars,
    subset_program,
)
from paddle_ir.model_files.program_file import load_program, save_program
from paddle_ir.transpiler.distribute_transpiler import STEP_VAR
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


def _merge_error(message: str) -> DistributedError:
    return DistributedError(message, hint="merge the checkpoints of one run: every server-NAME/ "
                                          "the job wrote, saved at the same step")


def merge_values(pieces_by_server: dict[str, list[Piece]], values_by_server: dict[str, dict],
                 shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """Whole variables from the servers' pieces.

    Every row of a split variable must come from exactly one piece, each piece must
    have the shape its place in the variable gives it, and a 'whole' piece held by
    several servers (the learning rate, per-block Adam powers) must be the same on
    each; anything else is a DistributedError naming the variable and the servers.
    """
    out: dict[str, np.ndarray] = {}
    covered: dict[str, np.ndarray] = {}
    owners: dict[str, str] = {}
    for server, pieces in pieces_by_server.items():
        values = values_by_server[server]
        for piece in pieces:
            value = np.asarray(values[piece.name])
            shape = shapes.get(piece.origin)
            if shape is None:
                raise _merge_error(f"{server} holds a piece of {piece.origin!r}, which the "
                                   f"job's program does not declare persistable: the server "
                                   f"belongs to another job")
            if piece.kind == "whole":
                if piece.origin in out:
                    if not np.array_equal(out[piece.origin], value, equal_nan=True):
                        raise _merge_error(
                            f"{owners[piece.origin]} and {server} hold different values of "
                            f"{piece.origin!r}, which every server keeps whole: their "
                            f"checkpoints are from different steps or jobs")
                    continue
                if tuple(value.shape) != tuple(shape):
                    raise _merge_error(f"{server} holds {piece.origin!r} as {list(value.shape)}, "
                                       f"but the job declares {list(shape)}")
                out[piece.origin], owners[piece.origin] = value.copy(), server
                continue
            want = (piece.rows_of(shape[0]),) + tuple(shape[1:])
            if tuple(value.shape) != want:
                raise _merge_error(f"{server}'s piece {piece.name!r} of {piece.origin!r} is "
                                   f"{list(value.shape)}, but its place in the job's "
                                   f"{list(shape)} is {list(want)}: the server belongs to "
                                   f"another job")
            whole = out.get(piece.origin)
            if whole is None:
                whole = out[piece.origin] = np.zeros(shape, value.dtype)
                covered[piece.origin] = np.zeros(shape[0], bool)
            rows = (slice(piece.begin, piece.end) if piece.kind == "rows"
                    else slice(piece.begin, None, piece.end))
            if covered[piece.origin][rows].any():
                raise _merge_error(f"{server}'s piece {piece.name!r} holds rows of "
                                   f"{piece.origin!r} another server holds too: a copy of a "
                                   f"server's directory?")
            covered[piece.origin][rows] = True
            whole[rows] = value
    for name, mask in covered.items():
        if not mask.all():
            missing = np.flatnonzero(~mask)
            raise _merge_error(f"the servers' pieces of {name!r} cover {int(mask.sum())} of its "
                               f"{mask.size} rows (row {int(missing[0])} is missing): a "
                               f"server's checkpoint is missing")
    return out


def server_values(program: Program, dirname: str) -> tuple[dict[str, np.ndarray], int]:
    """(piece name -> value, the step the server saved at) of one server's checkpoint."""
    scope = Scope()
    load_persistables(Executor(), dirname, program, scope)
    values = {p.name: scope.find_var(p.name).get_tensor().numpy() for p in pieces_of(program)}
    step = scope.find_var(STEP_VAR)
    return values, int(step.get_tensor().numpy().reshape(-1)[0]) if step is not None else -1


# --- the job a distributed run wrote --------------------------------------------------------

JOB_FILE = "job.json"  # job_dir/job.json: {"format": 1, "job": ID, "servers": [...]}
SERVER_JOB_FILE = "job"  # server-NAME/job: the ID of the job that wrote the directory
_JOB_FILE_MAX_BYTES = 1 << 20


def write_job(job_dir: str, job_id: str, endpoints: list[str]) -> None:
    """Record which servers the run has and stamp each server's directory with its id, so
    that a merge can tell a missing server, a stray copy or another run's directory."""
    import json

    doc = json.dumps({"format": 1, "job": job_id, "servers": list(endpoints)}).encode()
    for endpoint in endpoints:
        atomic_write(os.path.join(job_dir, f"server-{endpoint}", SERVER_JOB_FILE),
                     lambda out: out.write(job_id.encode()))
    atomic_write(os.path.join(job_dir, JOB_FILE), lambda out: out.write(doc))


def _read_small(path: str, root: str) -> str:
    data = read_regular(path, _JOB_FILE_MAX_BYTES, "a job file", root)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise _merge_error(f"{path} is not text; it is not a file a run wrote") from None


def _read_job(job_dir: str) -> tuple[str, list[str]] | None:
    """(job id, server names) of job_dir/job.json; None for a job written before it."""
    import json

    path = os.path.join(job_dir, JOB_FILE)
    if not os.path.lexists(path):
        return None
    try:
        doc = json.loads(_read_small(path, job_dir))
    except ValueError:
        doc = None
    if not (isinstance(doc, dict) and doc.get("format") == 1 and isinstance(doc.get("job"), str)
            and isinstance(doc.get("servers"), list)
            and all(isinstance(e, str) for e in doc["servers"])):
        raise _merge_error(f"{path} is not a job file: it must hold {{\"format\": 1, \"job\": "
                           f"ID, \"servers\": [NAMES]}}, as a distributed run writes it")
    return doc["job"], doc["servers"]


def _serve_op(program: Program, where: str):
    serv = next((op for op in program.global_block().ops if op.type == "listen_and_serv"), None)
    if serv is None:
        raise _merge_error(f"{where} has no listen_and_serv op: it is not a server's program")
    return serv


def merge_checkpoint(job_dir: str, out_dir: str) -> list[str]:
    """Join a distributed run's saved server checkpoints into one single-machine checkpoint.

    `job_dir` holds `origin/` (the single-machine training job: main.pb, startup.pb),
    `job.json` (the run's id and servers) and one directory per server (`server-NAME/`:
    its pserver.pb, the run's id, its saved pieces). `out_dir` gets the training job and
    its persistables, loadable with `load_persistables`. Every server of the run must be
    there, from this run, saved at the same step, and together they must hold every
    persistable exactly once; otherwise nothing is written and the DistributedError says
    what is wrong.
    """
    job_dir = os.fspath(job_dir)
    main, startup = load_train_program(os.path.join(job_dir, "origin"))
    block = main.global_block()
    job = _read_job(job_dir)
    entries = sorted(e for e in os.listdir(job_dir) if e.startswith("server-"))
    if job is not None:
        expected = [f"server-{e}" for e in job[1]]
        missing = [e for e in expected if e not in entries]
        if missing:
            raise _merge_error(f"{job_dir} lacks {', '.join(missing)}: the run had servers "
                               f"{', '.join(job[1])}, and every one's checkpoint is needed")
        strays = [e for e in entries if e not in expected]
        if strays:
            raise _merge_error(f"{job_dir} holds {', '.join(strays)}, which the run did not "
                               f"have (its servers: {', '.join(job[1])}): a stray copy? "
                               f"move it out of the job directory")
    if not entries:
        raise _merge_error(f"{job_dir} holds no server-NAME/ directory to merge")
    pieces_by_server, values_by_server, steps = {}, {}, {}
    for entry in entries:
        path = os.path.join(job_dir, entry)
        program = load_program(os.path.join(path, "pserver.pb"), path)
        endpoint = _serve_op(program, os.path.join(path, "pserver.pb")).attr("endpoint")
        if entry != f"server-{endpoint}":
            raise _merge_error(f"{path} holds the program of server {endpoint!r}, which a run "
                               f"writes to server-{endpoint}/: a copy or a renamed directory? "
                               f"move it out of the job directory")
        if job is not None:
            stamp = os.path.join(path, SERVER_JOB_FILE)
            written_by = _read_small(stamp, path).strip() if os.path.lexists(stamp) else None
            if written_by != job[0]:
                raise _merge_error(f"{path} was written by another run (job "
                                   f"{written_by or 'unknown'}, not {job[0]}): its checkpoint "
                                   f"cannot be merged with this run's")
        checkpoint = os.path.join(path, "checkpoint")
        if not os.path.isdir(checkpoint):
            raise _merge_error(f"{path} has no checkpoint/: the server never saved")
        pieces_by_server[entry] = pieces_of(program)
        values_by_server[entry], steps[entry] = server_values(program, checkpoint)
    if len(set(steps.values())) > 1:
        at = ", ".join(f"{e} at step {s}" for e, s in steps.items())
        raise _merge_error(f"the servers saved at different steps ({at}); a merge joins one "
                           f"step's pieces")
    shapes = {v.name: tuple(v.shape) for v in block.vars.values() if v.persistable}
    merged = merge_values(pieces_by_server, values_by_server, shapes)
    held = {p.origin for pieces in pieces_by_server.values() for p in pieces}
    unheld = sorted(n for n in shapes if n not in held)
    if unheld:
        raise _merge_error(f"no server holds {unheld[:8]}: a server's checkpoint is missing")
    scope = Scope()
    Executor().run(startup, scope=scope)  # variables no server holds (none, normally)
    for name, value in merged.items():
        scope.var(name).get_tensor().set(value)
    save_train_program(out_dir, main, startup, main.feed_target_names,
                       main.fetch_target_names)
    return save_persistables(Executor(), out_dir, main, scope)


# --- what a server actor reads from the job directory ---------------------------------------

def write_server_files(job_dir: str, endpoint: str, program: Program, startup: Program,
                       initial: dict[str, np.ndarray] | None) -> None:
    """server-NAME/pserver.pb, startup.pb and (when given) initial/ + initial.json: all a
    server actor needs to start, so that Ray can restart it without the driver's objects."""
    import json

    where = os.path.join(job_dir, f"server-{endpoint}")
    os.makedirs(where, exist_ok=True)
    save_program(os.path.join(where, "pserver.pb"), program)
    save_program(os.path.join(where, "startup.pb"), startup)
    stale = os.path.join(where, "initial.json")
    if os.path.lexists(stale):
        os.remove(stale)
    if initial:
        # the pieces' starting values in paddle-ir's own tensor format (never a pickle)
        names = sorted(initial)
        scope = Scope()
        for name in names:
            scope.var(name).get_tensor().set(np.asarray(initial[name]))
        block = program.global_block()
        save_vars(Executor(), os.path.join(where, "initial"), program,
                  vars=[block.var(n) for n in names], filename="values", scope=scope)
        atomic_write(stale, lambda out: out.write(json.dumps(names).encode()))


def server_files(endpoint: str, job_dir: str, job_id: str, node: str):
    """(program, startup, initial values, checkpoint dir) for server `endpoint`, read on the
    server's own node; a DistributedError when that node does not see the driver's job_dir."""
    import json

    where = os.path.join(job_dir, f"server-{endpoint}")
    stamp = os.path.join(where, SERVER_JOB_FILE)
    try:
        seen = read_regular(stamp, _JOB_FILE_MAX_BYTES, "a job file", where).decode().strip()
    except (OSError, PaddleIRError, UnicodeDecodeError):
        seen = None
    if seen != job_id:
        got = "finds no such file" if seen is None else f"finds job {seen}"
        raise DistributedError(
            f"server {endpoint!r} on {node} cannot see the job directory {job_dir!r}: the "
            f"driver wrote run {job_id} to {stamp}, the server {got}",
            hint="the job directory (--save) must be shared storage that every server node "
                 "mounts at the same path (NFS or the like)")
    program = load_program(os.path.join(where, "pserver.pb"), where)
    startup = load_program(os.path.join(where, "startup.pb"), where)
    initial = None
    if os.path.lexists(os.path.join(where, "initial.json")):
        names = json.loads(_read_small(os.path.join(where, "initial.json"), where))
        scope, block = Scope(), program.global_block()
        load_vars(Executor(), os.path.join(where, "initial"), program,
                  vars=[block.var(n) for n in names], filename="values", scope=scope)
        initial = {n: scope.find_var(n).get_tensor().numpy() for n in names}
    return program, startup, initial, os.path.join(where, "checkpoint")


def saved_step(job_dir: str) -> int:
    """The step every server of the job in `job_dir` saved at: where a resumed run starts."""
    job_dir = os.fspath(job_dir)
    job = _read_job(job_dir) if os.path.isdir(job_dir) else None
    hint = "resume from the --save directory of an earlier run, or start without --resume"
    if job is None:
        raise DistributedError(f"{job_dir} holds no job.json: no run saved there, nothing to "
                               "resume", hint=hint)
    steps = {}
    for endpoint in job[1]:
        where = os.path.join(job_dir, f"server-{endpoint}")
        checkpoint = os.path.join(where, "checkpoint")
        if not os.path.isdir(checkpoint):
            raise DistributedError(f"server {endpoint!r} of the run in {job_dir} never saved "
                                   f"({checkpoint} is missing): nothing to resume", hint=hint)
        program = load_program(os.path.join(where, "pserver.pb"), where)
        scope = Scope()
        # only the step: a program declaring that one variable loads it from the combined file
        load_persistables(Executor(), checkpoint,
                          subset_program([program.global_block().var(STEP_VAR)]), scope)
        steps[endpoint] = int(scope.find_var(STEP_VAR).get_tensor().numpy().reshape(-1)[0])
    if len(set(steps.values())) != 1:
        at = ", ".join(f"{e} at step {s}" for e, s in steps.items())
        raise DistributedError(f"the servers of the run in {job_dir} saved at different steps "
                               f"({at}): their checkpoints come from different moments",
                               hint="restore the server-NAME/checkpoint directories of one save")
    return steps.popitem()[1]


def job_servers(job_dir: str) -> list[str] | None:
    """The servers job_dir/job.json names (None when there is none)."""
    job = _read_job(os.fspath(job_dir))
    return None if job is None else job[1]
