"""What a mutation run leaves beside its sessions, and how a caught mutant was caught.

Kept apart from run.py and report.py, which need cosmic-ray, so that the tests check it
without the `mutation` extra.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import sys
from pathlib import Path

from tools.mutation.targets import ROOT

OUT = ROOT / "out" / "mutation"
MUTANT_WRITTEN = OUT / "mutant-written.json"  # present while a mutant may be in a file
SEEDS = OUT / "seeds.json"  # module -> the seed its session's sample was drawn with


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_no_mutant_written() -> None:
    """Refuse to start over a file a killed run left mutated; forget a stale note."""
    if not MUTANT_WRITTEN.exists():
        return
    note = json.loads(MUTANT_WRITTEN.read_text())
    path = ROOT / note["module"]
    if path.exists() and digest(path) != note["sha256"]:
        sys.exit(f"{note['module']} still holds a mutant from a run that was killed "
                 f"(its content differs from before the mutant): restore it (git checkout -- "
                 f"{note['module']}), then run again")
    MUTANT_WRITTEN.unlink()


def record_seed(module: str, seed: int) -> None:
    seeds = json.loads(SEEDS.read_text()) if SEEDS.exists() else {}
    seeds[module] = seed
    SEEDS.write_text(json.dumps(seeds, indent=1, sort_keys=True))


def seed_of(module: str) -> int | None:
    return json.loads(SEEDS.read_text()).get(module) if SEEDS.exists() else None


def todays_seed() -> int:
    return int(datetime.date.today().strftime("%Y%m%d"))


# pytest's words for a test module that could not even be imported
_IMPORT_FAILURE = ("error during collection", "ERROR collecting", "ImportError while importing")


def import_failure(output: str | None) -> str | None:
    """The error that stopped the tests' import, if that is how the mutant was caught."""
    if not output or not any(words in output for words in _IMPORT_FAILURE):
        return None
    errors = [ln.strip() for ln in output.splitlines() if ln.strip().startswith("E ")]
    return (errors[-1] if errors else output.strip().splitlines()[-1])[:200]
