"""Where a paddle-ir case spends its time, op by op (the Executor's own profile).

    python -m bench.breakdown B1.sgd            # per-op means of 1000 warm runs
    python -m bench.breakdown B1.sgd --cprofile # and the functions cProfile sees
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time

from bench.systems import pir


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("case", choices=sorted(pir.CASES))
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--cprofile", action="store_true")
    args = parser.parse_args(argv)
    case = pir.CASES[args.case]()
    for _ in range(20):
        case.step()
    start = time.perf_counter()
    for _ in range(args.runs):
        case.step()
    plain = (time.perf_counter() - start) / args.runs
    case.exe.profile = {}
    for _ in range(args.runs):
        case.step()
    profile, case.exe.profile = case.exe.profile, None
    total = sum(t for _, t in profile.values()) / args.runs
    print(f"{args.case}: {plain * 1e6:.1f} us per run; with the per-op clock on, ops take "
          f"{total * 1e6:.1f} us of it")
    for op_type, (calls, seconds) in sorted(profile.items(), key=lambda kv: -kv[1][1]):
        per_run = seconds / args.runs * 1e6
        print(f"  {op_type:40s} {calls // args.runs:3d} call(s)  {per_run:8.1f} us")
    if args.cprofile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.runs):
            case.step()
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
