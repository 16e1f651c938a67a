"""B10: start-up, the wall time of a cold process (make bench-startup).

    python -m bench.startup [--runs 15] [--name startup]

Measures, in fresh interpreter processes run in turn (round-robin, so drift
in the machine reaches every command alike), the median wall time of:

- `python -c pass` and `python -c "import numpy"`: the floors;
- `python -c "import paddle_ir"`;
- `paddle-ir run MODEL --feed x=x.npy`: a small saved model (an fc network,
  built once into a temporary directory), run from the command line.

The targets (issue 13): `import paddle_ir` and that `paddle-ir run` in at most
0.2 s. Python may write bytecode caches here even if PYTHONDONTWRITEBYTECODE is
set (as a plain `pip install` compiles them): a cold start is a process
start, not a compilation. Results go to bench/results/<name>.json.
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
TARGET_S = 0.2

_BUILD = """
import sys
import numpy as np
import paddle_ir as pir
out = sys.argv[1]
main, startup = pir.Program(), pir.Program()
with pir.program_guard(main, startup):
    x = pir.layers.data("x", [-1, 16])
    h = pir.layers.fc(x, 32, act="relu")
    y = pir.layers.fc(h, 4, act="softmax")
exe = pir.Executor()
exe.run(startup)
pir.save_inference_model(out, ["x"], [y], exe, main_program=main)
np.save(out + "/x.npy", np.ones((8, 16), np.float32))
"""


def _commands(python: str, model: str) -> dict[str, list[str]]:
    cli = os.path.join(os.path.dirname(python), "paddle-ir")
    run = [cli] if os.path.exists(cli) else [python, "-m", "paddle_ir"]
    return {
        "python -c pass": [python, "-c", "pass"],
        "import numpy": [python, "-c", "import numpy"],
        "import paddle_ir": [python, "-c", "import paddle_ir"],
        "paddle-ir run (small model)": run + ["run", model, "--feed", f"x={model}/x.npy"],
    }


def measure(runs: int, python: str = sys.executable) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="paddle-ir-startup-") as tmp:
        model = os.path.join(tmp, "model")
        subprocess.run([python, "-c", _BUILD, model], check=True, cwd=tmp, env=env)
        commands = _commands(python, model)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for argv in commands.values():  # one untimed run each: the .pyc files exist
            subprocess.run(argv, check=True, cwd=tmp, stdout=subprocess.DEVNULL, env=env)
        for _ in range(runs):
            for name, argv in commands.items():
                started = time.perf_counter()
                subprocess.run(argv, check=True, cwd=tmp, stdout=subprocess.DEVNULL, env=env)
                times[name].append(time.perf_counter() - started)
    return {"runs": runs, "load_average": os.getloadavg(),
            "median_s": {n: statistics.median(t) for n, t in times.items()},
            "times_s": times}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--name", default="startup",
                        help="results file name (bench/results/NAME.json)")
    args = parser.parse_args(argv)
    result = measure(args.runs)
    print(f"load average {result['load_average'][0]:.2f}; median of {args.runs} cold runs")
    for name, seconds in result["median_s"].items():
        target = f"   (target <= {TARGET_S} s)" if "paddle" in name else ""
        print(f"  {name:30s} {seconds * 1e3:7.1f} ms{target}")
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    path = os.path.join(ROOT, "bench", "results", args.name + ".json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    print(f"wrote {os.path.relpath(path, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
