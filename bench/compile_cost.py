"""What compiling a plan costs per op, beside its kernels (issue 24: <= 0.1 ms per op).

    python -m bench.compile_cost [--model mobilenet_v3_small] [--runs 7] [--threads 1]

Builds the model with paddle-ir's layers (bench/zoo_models.py, saved once into a
temporary directory), then in one process loads it afresh `--runs` times (a new
Executor and Scope each time, so every first run compiles) and reports, per op of
the loaded program (after the load-time passes):

- compile: the compiling run's time outside the kernels (Plan.compile_ms minus
  Plan.kernel_ms: inference, checks, kernel selection, building the steps);
- plan: that plus laying out the plan (liveness, slots), i.e. the first run's
  time beyond its kernels and a warm run's fixed cost;
- load: `load_inference_model` with its passes, for the whole model.

Times are the main thread's CPU time (`time.thread_time`): OpenBLAS's threads spin
after each GEMM, and a loaded machine's waiting is not the compiler's cost. BLAS
runs on `--threads` threads (default 1): with two, a warm run of a 6 ms model
measured 96-192 ms on a loaded machine, the pool's waiting. The
first load (imports, first calls) is not counted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from types import SimpleNamespace

import numpy as np

import paddle_ir as pir
from bench import zoo_models
from paddle_ir.executor import plan as plan_module
from paddle_ir.executor.threads import limit_threads


def measure(model_dir: str, runs: int) -> dict:
    # The plan reads its clock through its module's `time`: the main thread's CPU time.
    plan_module.time = SimpleNamespace(perf_counter=time.thread_time)
    feed = dict(np.load(os.path.join(model_dir, "feeds.npz")))
    compile_ms, first_ms, warm_ms, kernel_ms, load_ms, ops = [], [], [], [], [], 0
    for k in range(runs + 1):
        exe, scope = pir.Executor(), pir.Scope()
        t0 = time.thread_time()
        program, _, fetches = pir.io.load_inference_model(model_dir, exe, scope=scope)
        load = time.thread_time() - t0
        t0 = time.thread_time()
        exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        first = time.thread_time() - t0
        plan = exe.last_plan
        t0 = time.thread_time()
        exe.run(program, feed=feed, fetch_list=fetches, scope=scope)
        warm = time.thread_time() - t0
        if k:  # the first load pays the imports
            ops = len(program.desc.blocks[0].ops)
            compile_ms.append(plan.compile_ms - plan.kernel_ms)
            kernel_ms.append(plan.kernel_ms)
            first_ms.append(first * 1e3)
            warm_ms.append(warm * 1e3)
            load_ms.append(load * 1e3)
    med = statistics.median
    return {"ops": ops, "runs": runs, "compile_ms_per_op": med(compile_ms) / ops,
            "plan_ms_per_op": (med(first_ms) - med(kernel_ms)) / ops,
            "first_run_ms": med(first_ms), "warm_run_ms": med(warm_ms),
            "load_ms": med(load_ms), "load_average": os.getloadavg()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=zoo_models.MODELS, default="mobilenet_v3_small")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (the zoo's 1)")
    args = parser.parse_args(argv)
    limit_threads(args.threads)
    with tempfile.TemporaryDirectory(prefix="paddle-ir-compile-") as tmp:
        model_dir = zoo_models.build(args.model, os.path.join(tmp, args.model))
        r = measure(model_dir, args.runs)
    print(f"{args.model}: {r['ops']} ops after the load-time passes; medians of {r['runs']} "
          f"fresh loads, main-thread CPU; load average {r['load_average'][0]:.2f}")
    print(f"  compile outside the kernels  {r['compile_ms_per_op']:.3f} ms per op")
    print(f"  first run beyond its kernels {r['plan_ms_per_op']:.3f} ms per op")
    print(f"  first run {r['first_run_ms']:.1f} ms, warm run {r['warm_run_ms']:.1f} ms, "
          f"load with passes {r['load_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
