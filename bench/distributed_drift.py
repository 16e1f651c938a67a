"""How far sync parameter-server training drifts from one process as a run grows longer.

N trainers on batches of B rows equal one process on the joined batches of N x B rows
in exact arithmetic; in float32 the server sums the trainers' gradients and the one
process sums the joined batch's rows in another order, and the last bits differ.
Optimizers amplify such differences step after step (Adam divides by the square root
of a small second moment). This prints the largest absolute difference of any
parameter from one process after 10, 30 and 70 steps, for 2 trainers x 2 servers in
this process (`--ray`: on a local Ray cluster too), the model of the tests
(tests/distributed/models.py). Not a test: the numbers go to docs/distributed.md.

    .venv/bin/python -m bench.distributed_drift [--ray] [--steps 10 30 70]
"""

from __future__ import annotations

import argparse

import numpy as np

import paddle_ir as pir
from paddle_ir.distributed import train
from paddle_ir.transpiler import DistributeTranspilerConfig
from tests.distributed.models import batches, ctr_model, initial_and_trained, split_batches

OPTIMIZERS = {"lazy_adam": lambda: pir.optimizer.Adam(0.05, lazy_mode=True),
              "adam": lambda: pir.optimizer.Adam(0.05),
              "sgd": lambda: pir.optimizer.SGD(0.2)}
GLOBAL_BATCH = 32  # rows per step, 16 per trainer


def drift(opt: str, steps: int, local: bool) -> float:
    main, startup, loss, _ = ctr_model(True, OPTIMIZERS[opt])
    global_batches = batches(steps, GLOBAL_BATCH)
    initial, trained, _ = initial_and_trained(main, startup, loss, global_batches)
    result = train(main, startup, split_batches(global_batches, 2), pservers=2,
                   init_from=initial, local=local,
                   config=DistributeTranspilerConfig(min_block_size=16, rpc_timeout=60))
    return max(float(np.max(np.abs(result.params[n] - v))) for n, v in trained.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ray", action="store_true", help="also on a local Ray cluster")
    parser.add_argument("--steps", type=int, nargs="+", default=[10, 20, 30, 70, 150])
    args = parser.parse_args()
    places = [("in-process", True)] + ([("ray", False)] if args.ray else [])
    print(f"{'optimizer':<10} {'where':<11} " + " ".join(f"{s:>9}" for s in args.steps))
    for opt in OPTIMIZERS:
        for where, local in places:
            cells = [drift(opt, s, local) for s in args.steps]
            print(f"{opt:<10} {where:<11} " + " ".join(f"{c:9.2e}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
