"""`python -m tools.mutation run|report|map ...`: see docs/testing.md."""

import sys

from tools.mutation import coverage_map

if __name__ == "__main__":
    command, rest = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "run":
        from tools.mutation import run

        run.main(rest)
    elif command == "report":
        from tools.mutation import report

        sys.exit(report.main(rest))
    elif command == "map":
        sys.exit(coverage_map.main(rest))
    else:
        sys.exit("usage: python -m tools.mutation run [MODULE ...] [--sample N] [--seed S] "
                 "[--fresh] [--survivors] | report [--diffs] [--equivalent] "
                 "| map [MODULE ...] [-- PYTEST_ARGS]")
