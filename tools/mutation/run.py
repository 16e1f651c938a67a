"""Run sampled cosmic-ray mutants of each module against the tests that execute it.

For each module: list every mutant (cosmic-ray's operators plus ours, operators.py), keep a
seeded random sample of `--sample` of them (the rest are recorded as skipped), pick each
mutant's tests from the coverage map (targets.py: the test files that execute its line,
likeliest killers first, cut at `--budget` seconds), run all the picked files once unmutated
(they must pass), then apply each sampled mutant in turn, run its tests with `pytest -x`,
and restore the file. Results go to one cosmic-ray
session per module, out/mutation/<module>.sqlite; a rerun continues where the last stopped
(`--fresh` starts over, `--survivors` re-runs only the survivors after new tests).
report.py reads the sessions.

The mutants are written into the working tree's files one at a time: do not edit or commit
the tree while a run is going on. The file is restored after each mutant, and on Ctrl-C or
SIGTERM (a run started in the background, where the shell ignores Ctrl-C, stops on either).
A run killed outright (SIGKILL) can leave a mutant written: out/mutation/mutant-written.json
says which file, and the next run refuses to start until that file is restored.

`--seed` defaults to today's date (YYYYMMDD), so each day samples anew and nobody tunes
tests to one sample; the seed of each session is kept beside it and the report prints it.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from cosmic_ray.commands.init import _all_work_items
from cosmic_ray.mutating import mutate_and_test
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

from tools.mutation import operators
from tools.mutation.records import (
    MUTANT_WRITTEN,
    OUT,
    check_no_mutant_written,
    digest,
    record_seed,
    seed_of,
    todays_seed,
)
from tools.mutation.targets import (
    BUDGET,
    DEFAULT_MODULES,
    MAP,
    ROOT,
    LineTests,
    expand,
    load_map,
    unmapped_test_files,
)

# Operators left out: the variable replacer/inserter need per-site arguments and make random
# rewrites; NoOp is cosmic-ray's own baseline.
EXCLUDED_OPERATORS = ("core/VariableReplacer", "core/VariableInserter", "core/NoOp")


def session_path(module: str) -> Path:
    return OUT / (module.replace("/", "__").removesuffix(".py") + ".sqlite")


def _stop_on_sigterm(signum, frame) -> None:
    # KeyboardInterrupt unwinds through cosmic-ray's mutation context, which restores the file
    raise KeyboardInterrupt(f"signal {signum}")


def test_command(files: list[str]) -> str:
    quoted = " ".join(shlex.quote(f) for f in files)
    return f"{shlex.quote(sys.executable)} -m pytest -x -q -p no:cacheprovider {quoted}"


# pytest imports every file it is given before the first test runs, so a mutant the first
# files catch would still pay for importing all the rest: they run in a second pytest, only
# when the first passes.
FIRST_STAGE = 3


def staged_command(files: list[str]) -> str:
    """One command for cosmic-ray (which splits it with shlex, no shell): the likeliest
    killers, then, if they pass, the rest."""
    if len(files) <= FIRST_STAGE:
        return test_command(files)
    chain = f"{test_command(files[:FIRST_STAGE])} && {test_command(files[FIRST_STAGE:])}"
    return f"sh -c {shlex.quote(chain)}"


def check_map(cmap: dict, modules: list[str]) -> None:
    """The map's line numbers hold only for the source it was taken on."""
    for module in (m for m in modules if m in cmap["modules"]):  # else LineTests says so
        recorded = cmap.get("sha256", {}).get(module)
        if recorded != digest(ROOT / module):  # None: a map without the modules' digests
            sys.exit(f"{module} changed since the coverage map was made ({cmap['made']}): its "
                     f"line numbers no longer hold; run `make mutation-map` again")
    unmapped = unmapped_test_files(cmap)
    if unmapped:
        print(f"note: {len(unmapped)} test file(s) are newer than the coverage map and run only "
              f"as a module's own tests: {unmapped[:6]}; `make mutation-map` maps them",
              flush=True)


def _annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where the module's annotations are. Every module here has `from __future__ import
    annotations`, so an annotation is never evaluated: a mutant inside one is equivalent by
    construction (`int | None` -> `int - None`) and is not worth a test run."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        notes = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            notes.append(node.returns)
            args = node.args
            notes += [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs,
                                             args.vararg, args.kwarg) if a is not None]
        elif isinstance(node, ast.AnnAssign):
            notes.append(node.annotation)
        spans += [((n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset))
                  for n in notes if n is not None]
    return spans


def _in_annotation(spans, pos: tuple[int, int]) -> bool:
    return any(start <= tuple(pos) < end for start, end in spans)


def _init(module: str, db: WorkDB, sample: int, seed: int) -> int:
    spans = _annotation_spans((ROOT / module).read_text(encoding="utf-8"))
    items = [w for w in _all_work_items([ROOT / module], {})
             if w.mutations[0].operator_name not in EXCLUDED_OPERATORS
             and not _in_annotation(spans, w.mutations[0].start_pos)]
    db.clear()
    db.add_work_items(items)
    # The sample is drawn in a fixed order (operator, occurrence) so a seed names one sample.
    order = sorted(items, key=lambda w: (w.mutations[0].operator_name, w.mutations[0].occurrence))
    keep = {w.job_id for w in random.Random(f"{seed}:{module}").sample(order, min(sample,
                                                                                  len(order)))}
    skipped = [w.job_id for w in items if w.job_id not in keep]
    db.set_multiple_results(skipped, WorkResult(output="not in the sample",
                                                worker_outcome=WorkerOutcome.SKIPPED))
    return len(items)


def _baseline(command: str) -> float:
    start = time.monotonic()
    proc = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True)
    took = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"the unmutated tests fail; fix them first:\n{command}\n{proc.stdout[-3000:]}")
    return took


def _timeout(files: list[str], seconds: dict[str, float]) -> float:
    """Generous: the map's times were taken under coverage, a loaded machine varies."""
    return 60.0 + 5 * sum(seconds.get(f, 1.0) for f in files)


def _survivors(db: WorkDB) -> list:
    return [item for item, result in db.completed_work_items
            if result.worker_outcome == WorkerOutcome.NORMAL
            and result.test_outcome == TestOutcome.SURVIVED]


def run_module(module: str, tests: LineTests, sample: int, seed: int, fresh: bool,
               survivors: bool, budget: float) -> None:
    path = session_path(module)
    path.parent.mkdir(parents=True, exist_ok=True)
    with use_db(str(path), WorkDB.Mode.create) as db:
        if fresh or db.num_work_items == 0:
            total = _init(module, db, sample, seed)
            record_seed(module, seed)
            print(f"{module}: {total} mutants, sampling {min(sample, total)} with seed {seed}",
                  flush=True)
        else:
            print(f"{module}: continuing the session sampled with seed {seed_of(module)}",
                  flush=True)
        pending = _survivors(db) if survivors else list(db.pending_work_items)
        if not pending:
            print(f"{module}: nothing pending (use --fresh to start over)", flush=True)
            return
        picked = [tests.tests_for(item.mutations[0].start_pos[0], budget) for item in pending]
        # The map's own run is the baseline of the files it timed (those that failed then are
        # never picked); the module's own tests and files edited since run here, unmutated.
        made = MAP.stat().st_mtime
        union = list(dict.fromkeys(f for files in picked for f in files))
        check = [f for f in union if f in tests.own or (ROOT / f).stat().st_mtime > made]
        took = _baseline(test_command(check)) if check else 0.0
        print(f"{module}: {len(pending)} to run over {len(union)} test files ({len(check)} "
              f"checked unmutated, {took:.0f}s)", flush=True)
        start = time.monotonic()
        original = {"module": module, "sha256": digest(ROOT / module)}
        for k, (item, files) in enumerate(zip(pending, picked, strict=True), 1):
            MUTANT_WRITTEN.write_text(json.dumps(original))
            result = mutate_and_test(item.mutations, staged_command(files),
                                     _timeout(files, tests.seconds))
            MUTANT_WRITTEN.unlink()  # restored: cosmic-ray writes the original back
            db.set_result(item.job_id, result)
            m = item.mutations[0]
            outcome = result.test_outcome.value if result.test_outcome else result.worker_outcome
            print(f"  [{k}/{len(pending)}] {outcome:<11} {m.operator_name} line "
                  f"{m.start_pos[0]} ({len(files)} test files)", flush=True)
        print(f"{module}: done in {time.monotonic() - start:.0f}s", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="module paths or globs (default: the core)")
    parser.add_argument("--sample", type=int, default=25, help="mutants per module (default 25)")
    parser.add_argument("--seed", type=int, default=todays_seed(),
                        help="the sample's seed (default: today's date, YYYYMMDD)")
    parser.add_argument("--fresh", action="store_true", help="discard earlier results")
    parser.add_argument("--survivors", action="store_true",
                        help="run only the mutants that survived last time (after adding tests)")
    parser.add_argument("--budget", type=float, default=BUDGET,
                        help=f"recorded test seconds one mutant runs at most (default {BUDGET:g})")
    args = parser.parse_args(argv)
    os.chdir(ROOT)  # cosmic-ray runs the test command in the current directory
    OUT.mkdir(parents=True, exist_ok=True)
    check_no_mutant_written()
    # A background job starts with SIGINT ignored: give it Ctrl-C back, and make SIGTERM
    # unwind the same way, so the mutated file is restored on either.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    operators.register()
    modules = expand(args.modules or list(DEFAULT_MODULES))
    cmap = load_map()
    check_map(cmap, modules)
    for module in modules:
        run_module(module, LineTests(module, cmap), args.sample, args.seed, args.fresh,
                   args.survivors, args.budget)


if __name__ == "__main__":
    main()
