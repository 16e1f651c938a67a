"""Score and surviving mutants per module, from the sessions run.py wrote.

A mutant counts as caught when the tests failed (or timed out) on it. A mutant that broke the
import of the tests (a collection error: the package or a module failed to load) is caught
too, but says little about the tests: those are counted apart ("import"), and `--diffs`
lists each with the error that stopped the import. The seed each module was sampled with
is printed beside its score. Survivors listed in
equivalent.toml (mutants that cannot change behaviour, each with its reason) are set apart:
the score is caught / (run - equivalent), and only the other survivors, the real gaps, are
printed with their diff. Tuning constants (equivalent.toml's [[tuning]]) are set apart the
same way, in their own column. An entry names the module, the operator, the source line as
it reads unmutated and the line as the mutant reads (compared token by token), so it
survives edits elsewhere in the file; an entry that matches no mutant of the current code
fails the report (exit status 1), and `--check-entries` checks each against the mutants
cosmic-ray itself lists. A survivor on a line no test executes (the coverage map) says so.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome

from tools.mutation.equivalents import Entry, load_entries, stale_entries, tokens
from tools.mutation.records import OUT, import_failure, seed_of
from tools.mutation.targets import MAP, ROOT, LineTests, load_map


@dataclass(frozen=True)
class Mutant:
    module: str
    operator: str
    line_no: int
    line: str      # the unmutated line, stripped
    mutated: str   # the line the mutant puts there, stripped ("" if the line was removed)
    diff: str


def _changed_lines(diff: str) -> tuple[str, str]:
    minus = [ln[1:].strip() for ln in diff.splitlines()
             if ln.startswith("-") and not ln.startswith("---") and ln[1:].strip()]
    plus = [ln[1:].strip() for ln in diff.splitlines()
            if ln.startswith("+") and not ln.startswith("+++") and ln[1:].strip()]
    return " / ".join(minus), " / ".join(plus)


def entry_key(module: str, operator: str, line: str, mutated: str) -> tuple:
    return (module, operator, tuple(tokens(line)), tuple(tokens(mutated)))


def unmatched_by_cosmic_ray(entries: list[Entry]) -> list[Entry]:
    """The entries that no mutant cosmic-ray lists for the current code turns into theirs."""
    import cosmic_ray.plugins
    from cosmic_ray.commands.init import _all_work_items
    from cosmic_ray.mutating import mutate_code

    from tools.mutation import operators

    operators.register()
    by_module: dict[str, list[Entry]] = defaultdict(list)
    for e in entries:
        by_module[e.module].append(e)
    found = set()
    for module, group in by_module.items():
        path = ROOT / module
        if not path.is_file():
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        wanted = {(e.operator, tuple(tokens(e.line.split(" / ")[0]))) for e in group}
        for item in _all_work_items([path], {}):
            m = item.mutations[0]
            if (m.operator_name, tuple(tokens(lines[m.start_pos[0] - 1]))) not in wanted:
                continue
            mutated = mutate_code(source, cosmic_ray.plugins.get_operator(m.operator_name)(),
                                  m.occurrence)
            if mutated is None:
                continue
            diff = "\n".join(difflib.unified_diff(lines, mutated.splitlines(), lineterm=""))
            key = entry_key(module, m.operator_name, *_changed_lines(diff))
            found |= {e.key for e in group if entry_key(*e.key) == key}
    return [e for e in entries if e.key not in found]


def read_session(path: Path):
    """(mutants caught, mutants survived, counts) for one module's session."""
    caught, survived = [], []
    counts = {"sampled": 0, "timeout": 0, "error": 0, "import": 0, "import_reasons": []}
    with use_db(str(path), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            counts["sampled"] += 1
            m = item.mutations[0]
            module = str(Path(m.module_path).resolve().relative_to(ROOT))
            line, mutated = _changed_lines(result.diff or "")
            mutant = Mutant(module, m.operator_name, m.start_pos[0], line, mutated,
                            result.diff or "")
            if result.worker_outcome != WorkerOutcome.NORMAL:
                counts["error"] += 1  # the mutant could not be applied or run: not a score
            elif result.test_outcome == TestOutcome.SURVIVED:
                survived.append(mutant)
            else:
                counts["timeout"] += result.output == "timeout"
                reason = import_failure(result.output)
                if reason is not None:
                    counts["import"] += 1
                    counts["import_reasons"].append((mutant, reason))
                caught.append(mutant)
        counts["pending"] = db.num_work_items - db.num_results
    return caught, survived, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--diffs", action="store_true", help="print each real survivor's diff")
    parser.add_argument("--equivalent", action="store_true",
                        help="also list the survivors judged equivalent or tuning constants")
    parser.add_argument("--check-entries", action="store_true",
                        help="check each equivalent.toml entry against cosmic-ray's mutants")
    args = parser.parse_args(argv)
    entries = load_entries()
    by_key = {entry_key(*e.key): e for e in entries}
    failed = False
    for e, why in stale_entries(entries):
        print(f"STALE equivalent.toml entry ({e.kind}, {e.module}): {why}")
        failed = True
    if args.check_entries:
        for e in unmatched_by_cosmic_ray(entries):
            print(f"STALE equivalent.toml entry ({e.kind}, {e.module}): no mutant cosmic-ray "
                  f"lists turns {e.line!r} into {e.mutant!r} with {e.operator}")
            failed = True
    tests = {}
    if MAP.exists():
        cmap = load_map()
        tests = {m: LineTests(m, cmap) for m in cmap["modules"]}
    used: set = set()
    sessions = sorted(OUT.glob("*.sqlite"))
    if not sessions:
        print("no sessions in out/mutation; run `make mutation` first")
        return 1
    rows = []
    for path in sessions:
        caught, survived, counts = read_session(path)
        real, apart = [], []
        for m in survived:
            entry = by_key.get(entry_key(m.module, m.operator, m.line, m.mutated))
            if entry is not None:
                used.add(entry.key)
                apart.append((m, entry))
            else:
                real.append(m)
        if not caught and not survived:
            continue
        module = (caught or survived)[0].module
        scored = len(caught) + len(real)
        score = 100.0 * len(caught) / scored if scored else 100.0
        equiv = sum(e.kind == "equivalent" for _, e in apart)
        rows.append((module, counts["sampled"], len(caught), equiv, len(apart) - equiv,
                     len(real), score, counts["timeout"], counts["import"], counts["error"],
                     counts["pending"], seed_of(module)))
        if args.diffs and counts["import_reasons"]:
            print(f"\n== {module}: {counts['import']} caught at import time")
            for m, reason in counts["import_reasons"]:
                print(f"  line {m.line_no:>4} {m.operator}: {reason}")
        if real or (args.equivalent and apart):
            print(f"\n== {module}: {len(real)} real survivor(s)")
            for m in real:
                unrun = ""
                if module in tests and not tests[module].executed(m.line_no):
                    unrun = (" (a module-body line, run at import)"
                             if tests[module].at_import(m.line_no)
                             else " (no test executes this line)")
                print(f"  line {m.line_no:>4} {m.operator}{unrun}\n        - {m.line}\n"
                      f"        + {m.mutated}")
                if args.diffs:
                    print("\n".join("        " + ln for ln in m.diff.splitlines()))
            if args.equivalent:
                for m, e in apart:
                    print(f"  line {m.line_no:>4} {m.operator} ({e.kind}: {e.reason})\n"
                          f"        - {m.line}\n        + {m.mutated}")
    print(f"\n{'module':<34} {'run':>4} {'caught':>6} {'equiv':>5} {'tune':>4} {'gaps':>4} "
          f"{'score':>6} {'t/o':>4} {'import':>6} {'err':>4} {'pend':>4} {'seed':>9}")
    for (module, run, caught, equiv, tuning, real, score, timeouts, imports, errors, pending,
         seed) in rows:
        print(f"{module:<34} {run:>4} {caught:>6} {equiv:>5} {tuning:>4} {real:>4} {score:>5.1f}%"
              f" {timeouts:>4} {imports:>6} {errors:>4} {pending:>4} {seed if seed else '?':>9}")
    if failed:
        print("\nequivalent.toml has stale entries (above): fix or remove them")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
