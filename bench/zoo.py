"""B7's built models before and after: kernels and load-time passes, alternating rounds.

    python -m bench.zoo [--baseline REV] [--rounds 7] [--reps 3] [--batch 1]
                        [--threads 1] [--profile] [--out bench/results/zoo.json]
                        [--paddle-models out/zoo --models shufflenet_v2_x0_5,...]

The models of bench/zoo_models.py (MobileNetV3-Small and ResNet-18 built with
paddle-ir's layers, saved as inference models by this tree) run in one worker
process per system, each kept alive for the whole run:

- `after`: this tree, `load_inference_model` as a user has it (load-time passes on);
- `after, no passes`: this tree with `optimize=False` (the kernels alone);
- `REV` (with --baseline): the tree at git revision REV, installed from a wheel
  into a temporary venv as bench/startup.py does (its loader has no passes).

Per model, every system loads the files and runs one untimed step (the plan),
then `--rounds` rounds of `--reps` timed steps each, the systems' order rotating
from round to round with a rest of 0.3 s before each batch; the table gives
medians of all timed steps (wall time, and the worker's CPU time, which a loaded
machine moves less) and the ratios to the baseline. The workers' logits
are compared (largest difference relative to the largest |logit|).
`--profile` adds `paddle-ir run --profile` of each model for each tree.
BLAS threads are set with --threads (OPENBLAS_NUM_THREADS / OMP_NUM_THREADS for
every worker) and recorded: on a machine shared with other jobs, two OpenBLAS
threads per process wait on each other for most of a step.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The worker: only paddle_ir and numpy, so that a baseline tree's install can run it.
_WORKER = r"""
import json, sys, time
import numpy as np
import paddle_ir as pir

import os
model_dir, optimize = sys.argv[1], sys.argv[2] == "1"
# a Paddle-saved model of bench/zoo_export.py: the files' prefix, its feeds beside them
files = os.path.join(model_dir, "model") if os.path.exists(
    os.path.join(model_dir, "model.pdmodel")) else model_dir
exe, scope = pir.Executor(), pir.Scope()
try:
    program, feeds, fetch = pir.io.load_inference_model(files, exe, scope=scope,
                                                        optimize=optimize)
except TypeError:  # a tree before the load-time passes
    program, feeds, fetch = pir.io.load_inference_model(files, exe, scope=scope)
with np.load(model_dir + "/feeds.npz") as data:
    feed = {feeds[0]: data[data.files[0]]}
fetch = fetch[:1]
ops = len(program.global_block().ops)
out = exe.run(program, feed=feed, fetch_list=fetch, scope=scope)[0]
np.save(sys.argv[3], np.asarray(out))
print(json.dumps({"ops": ops}), flush=True)
for line in sys.stdin:
    times = []
    for _ in range(int(line)):
        t0, c0 = time.perf_counter(), time.process_time()
        exe.run(program, feed=feed, fetch_list=fetch, scope=scope)
        times.append((time.perf_counter() - t0, time.process_time() - c0))
    print(json.dumps(times), flush=True)
"""


def _baseline_python(tmp: str, rev: str) -> str:
    from bench.startup import plain_install

    src = os.path.join(tmp, "baseline-tree")
    os.makedirs(src)
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev], check=True,
                             capture_output=True)
    subprocess.run(["tar", "-x", "-C", src], input=archive.stdout, check=True)
    return plain_install(os.path.join(tmp, "baseline"), src)


class _Worker:
    def __init__(self, name, python, model_dir, optimize, tmp, env):
        self.name = name
        self.logits_file = os.path.join(tmp, f"{abs(hash((name, model_dir)))}.npy")
        script = os.path.join(tmp, "zoo_worker.py")
        if not os.path.exists(script):
            with open(script, "w") as f:
                f.write(_WORKER)
        self.proc = subprocess.Popen([python, script, model_dir, "1" if optimize else "0",
                                      self.logits_file], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=tmp)
        self.info = json.loads(self.proc.stdout.readline())
        self.times: list[float] = []
        self.cpu_times: list[float] = []  # the process's CPU time: less moved by the load

    def batch(self, reps: int) -> None:
        self.proc.stdin.write(f"{reps}\n")
        self.proc.stdin.flush()
        for wall, cpu in json.loads(self.proc.stdout.readline()):
            self.times.append(wall)
            self.cpu_times.append(cpu)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def _profile(python: str, model_dir: str, env: dict, steps: int = 6) -> str:
    args = [python, "-m", "paddle_ir", "run", model_dir, "--feeds",
            os.path.join(model_dir, "feeds.npz"), "--profile", "--steps", str(steps)]
    done = subprocess.run(args, capture_output=True, text=True, env=env, cwd=model_dir)
    text = done.stdout + done.stderr
    return text[text.find("profile:"):] if "profile:" in text else text


def measure(args) -> dict:
    import numpy as np

    from bench import zoo_models

    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if args.threads:
        env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = str(args.threads)
    results = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "rounds": args.rounds,
               "reps": args.reps, "batch": args.batch, "threads": args.threads or "default",
               "baseline": args.baseline, "load_before": os.getloadavg()[0], "models": {}}
    with tempfile.TemporaryDirectory(prefix="bench-zoo-") as tmp:
        systems = [("after", sys.executable, True), ("after, no passes", sys.executable, False)]
        if args.baseline:
            systems.append((args.baseline, _baseline_python(tmp, args.baseline), False))
        for model in args.models:
            if args.paddle_models:  # bench/zoo_export.py's files, saved by Paddle
                model_dir = os.path.abspath(os.path.join(args.paddle_models, model))
            else:
                model_dir = zoo_models.build(model, os.path.join(tmp, model), args.batch)
            workers = [_Worker(name, python, model_dir, opt, tmp, env)
                       for name, python, opt in systems]
            for r in range(args.rounds):
                for k in range(len(workers)):
                    time.sleep(0.3)  # BLAS threads of the previous batch asleep
                    workers[(r + k) % len(workers)].batch(args.reps)
            reference = np.load(workers[-1].logits_file).astype(np.float64)
            entry = {}
            for w in workers:
                w.close()
                logits = np.load(w.logits_file).astype(np.float64)
                entry[w.name] = {
                    "median_ms": 1e3 * statistics.median(w.times),
                    "iqr_rel": _iqr(w.times) / statistics.median(w.times), "n": len(w.times),
                    "ops": w.info["ops"],
                    "max_diff_rel": float(np.abs(logits - reference).max()
                                          / np.abs(reference).max()),
                    "cpu_median_ms": 1e3 * statistics.median(w.cpu_times),
                    "cpu_iqr_rel": _iqr(w.cpu_times) / statistics.median(w.cpu_times),
                    "times": w.times, "cpu_times": w.cpu_times}
            results["models"][model] = entry
            if args.profile:
                entry["profiles"] = {name: _profile(python, model_dir, env)
                                     for name, python, _ in systems if name != "after, "
                                     "no passes"}
    results["load_after"] = os.getloadavg()[0]
    return results


def _iqr(values) -> float:
    q = statistics.quantiles(values, n=4)
    return q[2] - q[0]


def table(results: dict) -> str:
    base = results["baseline"]
    lines = ["| model | system | ops | median | ± | CPU median | ± | n | vs "
             + (base or "-") + " (wall, CPU) | logits vs " + (base or "no passes") + " |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for model, entry in results["models"].items():
        ref = entry.get(base, {}) if base else {}
        for name, e in entry.items():
            if name == "profiles":
                continue
            ratio = (f"{e['median_ms'] / ref['median_ms']:.2f}x, "
                     f"{e['cpu_median_ms'] / ref['cpu_median_ms']:.2f}x" if ref else "")
            lines.append(f"| {model} | {name} | {e['ops']} | {e['median_ms']:.1f} ms | "
                         f"{100 * e['iqr_rel']:.0f}% | {e['cpu_median_ms']:.1f} ms | "
                         f"{100 * e['cpu_iqr_rel']:.0f}% | {e['n']} | {ratio} | "
                         f"{e['max_diff_rel']:.1e} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(("mobilenet_v3_small", "resnet18")))
    parser.add_argument("--baseline", metavar="REV", help="also time the tree at git REV")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS threads per worker (0: the library's default)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--paddle-models", metavar="DIR",
                        help="time the Paddle-saved models of bench/zoo_export.py in DIR "
                             "(e.g. out/zoo after bench/zoo_peers.py) instead of building them")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "zoo.json"))
    args = parser.parse_args(argv)
    args.models = args.models.split(",")
    results = measure(args)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
    print(f"load average {results['load_before']:.1f} before, {results['load_after']:.1f} "
          f"after; BLAS threads {results['threads']}; batch {results['batch']}")
    print(table(results))
    for model, entry in results["models"].items():
        for name, text in entry.get("profiles", {}).items():
            print(f"\n{model}, {name}:\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
