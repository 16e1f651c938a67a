"""`paddle-ir run`: run a saved inference model, a .pb, or a training job.

What PATH names decides the job:

    DIR with model.pb     an inference model: model.pb + DIR/params
    DIR with main.pb      a training job: startup.pb runs first, then main.pb
    FILE.pb               that program; --params FILE loads parameters, --startup
                          FILE.pb runs an initializer first (a main.pb with a
                          startup.pb beside it is a training job)
    a Paddle model        FILE.pdmodel (+ FILE.pdiparams beside it), its prefix, or a
                          fluid 1.x DIR with __model__ (see --format)

Every job runs `--steps` times (default 1) in a fresh scope, cycling through
the batches of the feeds (`--batch-size` cuts them; without it every step gets
the whole feeds), and prints the fetched values of the last step.

Feeds may set only the program's feed targets (a program that names none: any
variable that is not persistable); --allow-any-feed lifts this, so that a feed
file can override a parameter on purpose.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from dataclasses import dataclass

import numpy as np

from paddle_ir.cli import feeds as feed_files
from paddle_ir.cli import paddle_input
from paddle_ir.cli.locate import saved_files
from paddle_ir.cli.values import describe_value, summarize_value
from paddle_ir.core import tensor_io
from paddle_ir.core.errors import (
    FeedError,
    FetchError,
    MissingVariableError,
    ResourceLimitError,
)
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.executor import Executor, Scope
from paddle_ir.framework import Program
from paddle_ir.io.checkpoint import load_persistables, save_persistables
from paddle_ir.model_files.params_file import (
    MAIN_FILENAME,
    STARTUP_FILENAME,
    load_vars_file,
    persistable_names,
    read_saved,
)
from paddle_ir.model_files.program_file import load_program


@dataclass
class Job:
    """What `paddle-ir run` runs: the program and where its parameters come from."""

    program: Program
    source: str
    startup: Program | None = None
    params: str | None = None  # a parameter file to load
    loaded: Scope | None = None  # parameters read with the program from a saved directory
    paddle: object | None = None  # a paddle_format.PaddleModel whose parameters to load


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


# An endless loop (or 60 nested two-step loops) otherwise runs until killed; a real
# program's loops take far fewer steps in one run.
DEFAULT_MAX_LOOP_ITERATIONS = 1_000_000


def _cap(text: str) -> int:
    """A cap: an integer >= 0, where 0 means none."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0 < value < 10**7:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text}")
    return value


def add_parser(subparsers, common) -> None:
    p = subparsers.add_parser(
        "run", parents=[common], help="run a saved model, program or training job",
        description=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", help="an inference-model or training-job directory, or a .pb file")
    p.add_argument("--feed", action="append", default=[], metavar="NAME=FILE.npy",
                   help="feed NAME from an .npy file (repeatable)")
    p.add_argument("--feeds", metavar="FILE.npz",
                   help="feed every array of an .npz (NAME, NAME.lod, NAME.rows/.value/.height)")
    p.add_argument("--lod", action="append", default=[], metavar="NAME=JSON",
                   help="recursive sequence lengths of feed NAME, e.g. ids='[[3,1,4]]'")
    p.add_argument("--fetch", action="append", default=[], metavar="NAME",
                   help="fetch NAME (repeatable; default: the program's fetch targets)")
    p.add_argument("--params", metavar="FILE", help="parameter file for a bare .pb")
    paddle_input.add_format_option(p)
    p.add_argument("--startup", metavar="FILE.pb", help="startup program to run first")
    p.add_argument("--out", metavar="FILE.npz",
                   help="save the fetched values under their names (a regular file; - writes "
                        "the .npz to stdout and the listing to stderr)")
    p.add_argument("--allow-any-feed", action="store_true",
                   help="let feeds set variables other than the program's feed targets, "
                        "parameters included")
    p.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                   help="stop the run with an error after SECONDS (checked between ops)")
    p.add_argument("--memory-budget", type=_positive, metavar="BYTES",
                   help="the most one tensor sized by a feed or attribute may take "
                        "(default: the machine's physical memory)")
    p.add_argument("--files-dir", metavar="DIR",
                   help="the directory the program's save and load ops may write and read "
                        "(default: the current directory; paths leading out are refused)")
    p.add_argument("--max-loop-iterations", "--max-while-iterations", type=_cap,
                   dest="max_while_iterations", default=DEFAULT_MAX_LOOP_ITERATIONS,
                   metavar="N",
                   help="stop with an error when the while loops of one run take more than "
                        f"N steps in all, nested loops counted (default "
                        f"{DEFAULT_MAX_LOOP_ITERATIONS:,}; 0: no cap; the Python API has "
                        f"none unless Executor(max_while_iterations=N))")
    p.add_argument("--steps", type=_positive, default=1, metavar="N",
                   help="run N steps (default 1), cycling through the feed batches")
    p.add_argument("--batch-size", type=_positive, metavar="B",
                   help="cut the feeds into batches of B rows (LoD feeds: B sequences)")
    p.add_argument("--log-every", type=_positive, metavar="K",
                   help="print the fetched values every K steps (default: about 10 lines)")
    p.add_argument("--load", metavar="DIR", help="load a checkpoint (save_persistables) first")
    p.add_argument("--save", metavar="DIR", help="checkpoint the persistables after the run")
    p.add_argument("--no-optimize", action="store_true",
                   help="run an inference program as saved, without the load-time passes "
                        "(batch_norm folding, dropout and identity removal)")
    p.add_argument("--threads", type=_positive, metavar="N",
                   help="BLAS / OpenMP threads for the matrix products (default: the "
                        "library's own, one per core); 1 is often fastest on a shared machine")
    checks = p.add_mutually_exclusive_group()
    checks.add_argument("--profile", action="store_true",
                        help="print time per op type (runs after the first, which compiles)")
    checks.add_argument("--check-nan-inf", action="store_true",
                        help="stop at the first op that writes NaN or Inf, naming it")
    p.set_defaults(handler=run_command)


def _saved_job(directory: str, path: str, params: str | None) -> Job:
    """The job in one committed save of a directory (see read_saved); `path` names it."""
    found = saved_files(directory)
    shown = os.path.join(path, os.path.basename(found.program))
    job = Job(load_program(found.program, directory), shown, params=params)
    if found.kind == "job":
        job.startup = load_program(found.startup, directory)
    elif params is None:
        job.loaded = Scope()
        load_vars_file(found.params, job.program, job.loaded, directory)
    return job


def resolve_job(path: str, params: str | None, startup: str | None,
                model_format: str = "auto") -> Job:
    """What PATH names (see the module docstring): the one place a path becomes a job."""
    paddle = paddle_input.paddle_model(path, model_format)
    if paddle is not None:
        from paddle_ir.paddle_format import load_paddle_program

        has_params = paddle.params_file is not None or paddle.params_dir is not None
        job = Job(load_paddle_program(paddle.program_file), paddle.program_file, params=params,
                  paddle=paddle if has_params and not params else None)
    elif os.path.isdir(path):
        job = read_saved(path, lambda directory: _saved_job(directory, path, params))
    else:
        job = Job(load_program(path), path, params=params)
        beside = os.path.join(os.path.dirname(path), STARTUP_FILENAME)
        if startup is None and os.path.basename(path) == MAIN_FILENAME and os.path.exists(
                beside):
            startup = beside
    if startup is not None:
        paddle_startup = paddle_input.paddle_model(startup, model_format)
        if paddle_startup is not None:
            from paddle_ir.paddle_format import load_paddle_program

            job.startup = load_paddle_program(paddle_startup.program_file)
        else:
            job.startup = load_program(startup)
    return job


def _check_names(program: Program, feeds: dict, fetch_names: list[str],
                 any_feed: bool = False) -> None:
    block = program.global_block()
    missing = [n for n in program.feed_target_names if n not in feeds]
    if missing:
        raise FeedError(f"missing feed {', '.join(map(repr, missing))}; the program's feed "
                        f"targets are {program.feed_target_names} (give each with --feed "
                        f"NAME=FILE.npy or in --feeds FILE.npz)")
    if not any_feed:
        targets = set(program.feed_target_names)
        for name in feeds:
            var = block.vars.get(name)
            if targets and name not in targets:
                raise FeedError(f"{name!r} is not one of the program's feed targets "
                                f"{program.feed_target_names}; a feed may not change the model",
                                hint="pass --allow-any-feed to set it anyway")
            if var is not None and var.persistable:
                raise FeedError(f"{name!r} is a persistable variable (a parameter or state) "
                                f"of the program; a feed may not change the model",
                                hint="pass --allow-any-feed to set it anyway")
    for name in program.feed_target_names:
        level = block.var(name).lod_level if block.has_var(name) else 0
        value = feeds[name]
        if level and not (isinstance(value, LoDTensor) and value.lod_level):
            example = "[[3, 1, 2]]" if level == 1 else "[[2, 1], [3, 1, 2]]"
            raise FeedError(
                f"feed {name!r} is a sequence input (lod_level={level}) but was given no LoD",
                hint=f"give its sequence lengths with --lod {name}='{example}' (lengths per "
                     f"level, the last summing to the rows of the array), or a {name}.lod "
                     f"entry in --feeds FILE.npz")
    for name in fetch_names:
        if not block.has_var(name):
            raise FetchError(f"cannot fetch {name!r}: it is not a variable of the program's "
                             f"global block")


def _progress(steps: int):
    """A tqdm bar on a terminal, else nothing (logs stay clean in files and CI)."""
    if steps < 2 or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=steps, file=sys.stderr, unit="step", leave=False)


def _writes_persistables(program: Program) -> bool:
    """Whether running the program changes state that outlives the run (a training step)."""
    persistable = {v.name for b in program.desc.blocks for v in b.vars if v.persistable}
    return any(name in persistable for b in program.desc.blocks for op in b.ops
               for v in op.outputs for name in v.arguments)


def _run_steps(exe: Executor, scope: Scope, program: Program, batches: list[dict],
               fetch_names: list[str], args) -> list:
    """Run args.steps steps, cycling through the batches; the last step's fetched values."""
    log_every = args.log_every or max(1, args.steps // 10)
    bar = _progress(args.steps)
    write = bar.write if bar is not None else print
    values = []
    # Under --check-nan-inf the executor names the op that made a NaN or Inf;
    # numpy's own warnings about it would only repeat that, less precisely.
    quiet = np.errstate(all="ignore") if args.check_nan_inf else contextlib.nullcontext()
    try:
        with quiet:
            for step in range(args.steps):
                values = exe.run(program, feed=batches[step % len(batches)],
                                 fetch_list=fetch_names, scope=scope, return_numpy=False)
                if bar is not None:
                    bar.update()
                done = step + 1
                if args.steps > 1 and fetch_names and (done % log_every == 0
                                                      or done == args.steps):
                    shown = "  ".join(f"{n}={summarize_value(v)}"
                                      for n, v in zip(fetch_names, values, strict=True))
                    write(f"step {done}/{args.steps}  {shown}")
    finally:
        if bar is not None:
            bar.close()
    return values


@contextlib.contextmanager
def _deadline(seconds: float | None):
    """Raise ResourceLimitError in the main thread after `seconds` (between Python steps)."""
    if not seconds:
        yield
        return
    import signal  # only for --timeout: the module's enums cost ~0.7 ms of every start-up

    if not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum, frame):
        raise ResourceLimitError(f"the run took longer than --timeout {seconds:g} s and was "
                                 f"stopped")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _optimized(program: Program, scope: Scope, keep: list[str]) -> Program:
    """The load-time passes on an inference program (others are returned as they are)."""
    from paddle_ir.passes.inference import optimize_inference

    return optimize_inference(program, scope, keep)


def run_command(args) -> int:
    files, lods = feed_files.parse_feed_options(args.feed, args.lod)
    job = resolve_job(args.path, args.params, args.startup, args.model_format)
    feeds = feed_files.collect_feeds(files, args.feeds, lods)
    fetch_names = args.fetch or job.program.fetch_target_names
    _check_names(job.program, feeds, fetch_names, args.allow_any_feed)
    batches = feed_files.make_batches(feeds, args.batch_size)

    if (job.params is None and job.loaded is None and job.paddle is None and job.startup is None
            and not args.load):
        persistables = persistable_names(job.program)
        if persistables:
            shown = ", ".join(persistables[:5]) + (", ..." if len(persistables) > 5 else "")
            raise MissingVariableError(
                f"{job.source} declares {len(persistables)} persistable variable(s) ({shown}) "
                f"and nothing gives them values: pass --params FILE, --startup FILE.pb or "
                f"--load DIR")
    if args.threads:
        from paddle_ir.executor.threads import limit_threads

        limit_threads(args.threads)
    exe = Executor(check_nan_inf=args.check_nan_inf,
                   max_while_iterations=args.max_while_iterations or None,
                   memory_budget=args.memory_budget, files_dir=args.files_dir)
    scope = Scope()
    if job.startup is not None:
        exe.run(job.startup, scope=scope)
    if job.params is not None:
        load_vars_file(job.params, job.program, scope)
    if job.loaded is not None:
        for name in job.loaded.local_var_names():
            scope.var(name).value = job.loaded.find_var(name).value
    elif job.paddle is not None:
        from paddle_ir.paddle_format import load_paddle_params

        load_paddle_params(job.paddle, job.program, scope)
    if args.load:
        load_persistables(exe, args.load, job.program, scope)
    if not args.no_optimize and not args.save:
        job.program = _optimized(job.program, scope, list(feeds) + list(fetch_names))
    if args.profile:
        exe.profile = {}

    with _deadline(args.timeout):
        values = _run_steps(exe, scope, job.program, batches, fetch_names, args)
    timed = args.steps - 1
    if args.profile and timed == 0 and not _writes_persistables(job.program):
        # The first run compiles the plan and is not timed; a side-effect-free
        # program can run once more so that there is something to show.
        exe.run(job.program, feed=batches[0], fetch_list=fetch_names, scope=scope)
        timed = 1

    fetched = dict(zip(fetch_names, values, strict=True))
    if not fetch_names:
        print("nothing fetched: the program names no fetch targets; pass --fetch NAME",
              file=sys.stderr)
    listing = sys.stderr if args.out == "-" else sys.stdout  # stdout carries the .npz
    if args.out:
        data = feed_files.npz_bytes(fetched)  # refuses what cannot be read back, first
    for name, value in fetched.items():
        print(describe_value(name, value), file=listing)
    if args.out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    elif args.out:
        tensor_io.atomic_write(args.out, lambda out: out.write(data))
        print(f"saved {len(fetched)} value(s) to {args.out}", file=listing)
    if args.save:
        saved = save_persistables(exe, args.save, job.program, scope)
        print(f"saved {len(saved)} persistable variable(s) to {args.save}", file=listing)
    if args.profile:
        print(profile_table(exe, timed), file=listing)
    return 0


def profile_table(exe: Executor, timed_runs: int) -> str:
    """Calls, total and mean time, and share per op type, slowest first."""
    profile = exe.profile or {}
    plan = exe.last_plan
    compile_ms = plan.compile_ms if plan is not None else 0.0
    lines = [f"profile: {timed_runs} timed run(s); the first run compiles the plan "
             f"({compile_ms:.2f} ms) and is not included"]
    if not profile:
        lines.append("  nothing timed: run with --steps 2 or more")
        return "\n".join(lines)
    total = sum(seconds for _, seconds in profile.values()) or 1e-12
    width = max(len("op type"), *(len(t) for t in profile))
    lines.append(f"  {'op type':<{width}}  {'calls':>7}  {'total ms':>10}  {'mean us':>9}  "
                 f"{'share':>6}")
    for op_type, (calls, seconds) in sorted(profile.items(), key=lambda kv: -kv[1][1]):
        lines.append(f"  {op_type:<{width}}  {calls:>7}  {seconds * 1e3:>10.3f}  "
                     f"{seconds / calls * 1e6:>9.1f}  {seconds / total:>6.1%}")
    calls = sum(c for c, _ in profile.values())
    lines.append(f"  {'total':<{width}}  {calls:>7}  {total * 1e3:>10.3f}  {'':>9}  "
                 f"{1:>6.1%}")
    return "\n".join(lines)

