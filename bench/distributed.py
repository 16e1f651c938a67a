"""B8: parameter-server training of a CTR-style model on this machine (`make bench-distributed`).

26 sparse slots look up one 1,000,000 x 16 table (`embedding(is_sparse=True,
is_distributed=True)`), an MLP (416 -> 256 -> 128 -> 1) sits on top, lazy
Adam trains it. For 1 and 2 trainers x 1 and 2 servers on Ray (each trainer
takes a batch of 512 samples per step), and for one process with no servers,
it reports the median step time, steps per second, samples per second and
the bytes each trainer sends and receives per step, against the bytes a
dense table would move (the whole table's gradient out and the table back).

Not a unit test and not in CI: it starts Ray clusters and takes about two
minutes. The machine has 2 cores, so every added process shares them: see
bench/README.md for what the numbers can and cannot show.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

import paddle_ir as pir
from paddle_ir.distributed import train
from paddle_ir.transpiler import DistributeTranspilerConfig

VOCAB, DIM, SLOTS, BATCH = 1_000_000, 16, 26, 512


def build():
    main, startup = pir.Program(), pir.Program()
    startup.random_seed = 1
    with pir.program_guard(main, startup):
        ids = pir.layers.data("ids", [-1, SLOTS], dtype="int64")
        label = pir.layers.data("label", [-1, 1])
        emb = pir.layers.embedding(ids, [VOCAB, DIM], is_sparse=True, is_distributed=True)
        hidden = pir.layers.reshape(emb, [-1, SLOTS * DIM])
        for width in (256, 128):
            hidden = pir.layers.fc(hidden, width, act="relu")
        logit = pir.layers.fc(hidden, 1)
        loss = pir.layers.mean(pir.layers.sigmoid_cross_entropy_with_logits(logit, label))
        pir.optimizer.Adam(0.001, lazy_mode=True).minimize(loss)
    return main, startup, loss


def feeds(steps: int, seed: int) -> list[dict]:
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(steps):
        ids = ((rng.zipf(1.3, (BATCH, SLOTS)) - 1) * 7919 % VOCAB).astype(np.int64)
        label = (ids[:, :1] % 3 == 0).astype(np.float32)
        out.append({"ids": ids, "label": label})
    return out


def one_process(steps: int) -> dict:
    main, startup, loss = build()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    times = []
    for feed in feeds(steps, 0):
        t = time.perf_counter()
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
        times.append(time.perf_counter() - t)
    return {"trainers": 1, "servers": 0, "step_s": float(np.median(times[3:]))}


def distributed(trainers: int, servers: int, steps: int) -> dict:
    main, startup, loss = build()
    stamps = []
    result = train(main, startup, [feeds(steps, t) for t in range(trainers)], pservers=servers,
                   fetch_list=[loss], config=DistributeTranspilerConfig(min_block_size=8192),
                   progress=lambda step, result: stamps.append(time.perf_counter()))
    step_times = np.diff(stamps)[3:]
    sent = np.mean([sum(t["sent"].values()) for t in result.traffic]) / steps
    received = np.mean([sum(t["received"].values()) for t in result.traffic]) / steps
    table = np.mean([sum(v for k, v in t["sent"].items() if k.startswith("embedding"))
                     + sum(v for k, v in t["received"].items() if k.startswith("embedding"))
                     for t in result.traffic]) / steps
    return {"trainers": trainers, "servers": servers, "step_s": float(np.median(step_times)),
            "sent_bytes": float(sent), "received_bytes": float(received),
            "table_bytes": float(table)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--out", default="bench/results/distributed.json")
    args = parser.parse_args()
    rows = [one_process(args.steps)]
    for trainers in (1, 2):
        for servers in (1, 2):
            rows.append(distributed(trainers, servers, args.steps))
            print(rows[-1], flush=True)
    dense_bytes = 2 * VOCAB * DIM * 4
    print("| trainers x servers | step (median) | steps/s | samples/s | sent / step "
          "(per trainer) | received / step | table bytes / step | vs dense table |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        samples = r["trainers"] * BATCH / r["step_s"]
        if r["servers"] == 0:
            print(f"| 1 process, no servers | {r['step_s'] * 1e3:.1f} ms | {1 / r['step_s']:.1f}"
                  f" | {samples:,.0f} | - | - | - | - |")
            continue
        print(f"| {r['trainers']} x {r['servers']} | {r['step_s'] * 1e3:.1f} ms | "
              f"{1 / r['step_s']:.1f} | {samples:,.0f} | {r['sent_bytes'] / 1024:.0f} KiB | "
              f"{r['received_bytes'] / 1024:.0f} KiB | {r['table_bytes'] / 1024:.0f} KiB | "
              f"{dense_bytes / r['table_bytes']:.0f}x fewer |")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"rows": rows, "dense_table_bytes": dense_bytes}, f, indent=1)


if __name__ == "__main__":
    main()
