"""`python -m tools.mutation run [modules] [--sample N]` / `python -m tools.mutation report`."""

import sys

from tools.mutation import report, run

if __name__ == "__main__":
    command, rest = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "run":
        run.main(rest)
    elif command == "report":
        sys.exit(report.main(rest))
    else:
        sys.exit("usage: python -m tools.mutation run [MODULE ...] [--sample N] [--seed S] "
                 "[--fresh] | report [--diffs] [--equivalent]")
