"""layers.rnn over a known time dim (unrolled at build time) next to the same rnn over an
unknown one (a while op, its backward a while_grad): build time, program size and a
training step (forward, backward, SGD), median of several runs after a warm-up.

    python -m bench.rnn_loop [--steps 8,32] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import paddle_ir as pir
from paddle_ir import layers

BATCH, DIM, HIDDEN = 16, 32, 64


def build(steps: int, known: bool):
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 1
    with pir.program_guard(main, startup):
        x = layers.data("x", [-1, steps if known else -1, DIM], append_batch_size=False)
        lens = layers.data("len", [-1], dtype="int64", append_batch_size=False)
        out, _ = layers.rnn(layers.LSTMCell(HIDDEN), x, sequence_length=lens)
        loss = layers.mean(out)
        pir.optimizer.SGD(0.1).minimize(loss)
    return main, startup, loss


def measure(steps: int, known: bool, rounds: int) -> dict:
    t0 = time.perf_counter()
    main, startup, loss = build(steps, known)
    built = time.perf_counter() - t0
    rng = np.random.RandomState(0)
    feed = {"x": rng.uniform(-1, 1, (BATCH, steps, DIM)).astype(np.float32),
            "len": rng.randint(1, steps + 1, BATCH).astype(np.int64)}
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)  # warm-up: plans are cached
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
        times.append(time.perf_counter() - t0)
    return {"ops": sum(len(b.ops) for b in main.blocks), "build_s": built,
            "step_ms": 1e3 * statistics.median(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="8,32")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print("| T | build | ops | build s | train step ms (median) | loop / unrolled |")
    print("|---|---|---|---|---|---|")
    for steps in (int(s) for s in args.steps.split(",")):
        unrolled = measure(steps, True, args.rounds)
        looped = measure(steps, False, args.rounds)
        for name, r in (("unrolled", unrolled), ("while", looped)):
            ratio = r["step_ms"] / unrolled["step_ms"]
            print(f"| {steps} | {name} | {r['ops']} | {r['build_s']:.2f} | "
                  f"{r['step_ms']:.1f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
