"""Score and surviving mutants per module, from the sessions run.py wrote.

A mutant counts as caught when the tests failed (or timed out) on it. A mutant that broke the
import of the tests (a collection error: the package or a module failed to load) is caught
too, but says little about the tests: those are counted apart ("import"), and `--diffs`
lists each with the error that stopped the import. The seed each module was sampled with
is printed beside its score. Survivors listed in
equivalent.toml (mutants that cannot change behaviour, each with its reason) are set apart:
the score is caught / (run - equivalent), and only the other survivors, the real gaps, are
printed with their diff. An equivalent entry names the module, the operator, the source
line as it reads unmutated and the line as the mutant reads, so it survives edits elsewhere
in the file.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import tomllib
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome

from tools.mutation.records import OUT, import_failure, seed_of
from tools.mutation.targets import ROOT

EQUIVALENT_FILE = Path(__file__).with_name("equivalent.toml")


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


def load_equivalents(path: Path = EQUIVALENT_FILE) -> dict[tuple[str, str, str, str], str]:
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    out = {}
    for entry in data.get("equivalent", []):
        key = (entry["module"], entry["operator"], entry["line"].strip(), entry["mutant"].strip())
        if not entry.get("reason", "").strip():
            sys.exit(f"{path}: the entry for {key} gives no reason")
        out[key] = entry["reason"]
    return out


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
                        help="also list the survivors judged equivalent")
    args = parser.parse_args(argv)
    equivalents = load_equivalents()
    used: set = set()
    sessions = sorted(OUT.glob("*.sqlite"))
    if not sessions:
        print("no sessions in out/mutation; run `make mutation` first")
        return 1
    rows, gaps = [], 0
    for path in sessions:
        caught, survived, counts = read_session(path)
        real, equiv = [], []
        for m in survived:
            key = (m.module, m.operator, m.line, m.mutated)
            if key in equivalents:
                used.add(key)
                equiv.append((m, equivalents[key]))
            else:
                real.append(m)
        if not caught and not survived:
            continue
        module = (caught or survived)[0].module
        scored = len(caught) + len(real)
        score = 100.0 * len(caught) / scored if scored else 100.0
        rows.append((module, counts["sampled"], len(caught), len(equiv), len(real), score,
                     counts["timeout"], counts["import"], counts["error"], counts["pending"],
                     seed_of(module)))
        if args.diffs and counts["import_reasons"]:
            print(f"\n== {module}: {counts['import']} caught at import time")
            for m, reason in counts["import_reasons"]:
                print(f"  line {m.line_no:>4} {m.operator}: {reason}")
        gaps += len(real)
        if real or (args.equivalent and equiv):
            print(f"\n== {module}: {len(real)} real survivor(s)")
            for m in real:
                print(f"  line {m.line_no:>4} {m.operator}\n        - {m.line}\n        + "
                      f"{m.mutated}")
                if args.diffs:
                    print("\n".join("        " + ln for ln in m.diff.splitlines()))
            if args.equivalent:
                for m, reason in equiv:
                    print(f"  line {m.line_no:>4} {m.operator} (equivalent: {reason})\n"
                          f"        - {m.line}\n        + {m.mutated}")
    print(f"\n{'module':<34} {'run':>4} {'caught':>6} {'equiv':>5} {'gaps':>4} {'score':>6}"
          f" {'t/o':>4} {'import':>6} {'err':>4} {'pend':>4} {'seed':>9}")
    for module, run, caught, equiv, real, score, timeouts, imports, errors, pending, seed in rows:
        print(f"{module:<34} {run:>4} {caught:>6} {equiv:>5} {real:>4} {score:>5.1f}%"
              f" {timeouts:>4} {imports:>6} {errors:>4} {pending:>4} {seed if seed else '?':>9}")
    stale = [k for k in equivalents if k not in used]
    if stale:
        print(f"\n{len(stale)} equivalent entr(ies) matched no survivor in these sessions "
              f"(not sampled this time, or the code moved): {[k[:2] for k in stale][:5]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
