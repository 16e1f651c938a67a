"""Where a zoo model's convolutions spend their time, by kind and by shape (issue 24).

    python -m bench.conv_profile MODEL [--zoo-dir out/zoo] [--runs 20] [--top 12]

Loads `ZOO_DIR/MODEL/model.pdmodel` and its `feeds.npz` (made by bench/zoo_peers.py)
with the load-time passes, runs it warm with one BLAS thread, and times (CPU time)
every call of a convolution op's kernel: the product, the bias and the activation of
`fused_conv2d`, or `conv2d` / `depthwise_conv2d` where the passes left one. Calls are
grouped by kind, `dw` (one filter per input channel), `pw` (1x1) or `kK` (a K x K
window), and by input shape (memory layout: `nhwc` when the input's memory is
channels-last), output channels, strides and activation. The run's total is timed
with the hooks in place.

The script imports nothing from `bench`, so another tree's interpreter can run it on
that tree (`cd OTHER && .venv/bin/python /path/to/bench/conv_profile.py MODEL`): the
before-and-after numbers of bench/README.md come from this script on both trees.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import os
import time

import numpy as np
import threadpoolctl

import paddle_ir as pir
from paddle_ir.ops.registry import get_op_def

_CONV_OPS = ("fused_conv2d", "conv2d", "depthwise_conv2d")


def _kind(x: np.ndarray, w: np.ndarray, groups: int) -> str:
    if w.shape[1] == 1 and groups == x.shape[1] > 1:
        return "dw"
    return "pw" if w.shape[2:] == (1, 1) else f"k{w.shape[2]}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--zoo-dir", default="out/zoo")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args(argv)
    threadpoolctl.threadpool_limits(1)
    folder = os.path.join(args.zoo_dir, args.model)
    with np.load(os.path.join(folder, "feeds.npz")) as data:
        feeds = dict(data)
    exe, scope = pir.Executor(), pir.Scope()
    program, _, fetches = pir.io.load_inference_model(os.path.join(folder, "model"), exe,
                                                      scope=scope)
    spent: dict[tuple, list] = collections.defaultdict(lambda: [0, 0.0])

    def timed(fn):
        def kernel(attrs, x, w, *rest):
            start = time.process_time()
            out = fn(attrs, x, w, *rest)
            layout = "nhwc" if not x.flags.c_contiguous and x.transpose(
                0, 2, 3, 1).flags.c_contiguous else "nchw"
            key = (_kind(x, w, attrs["groups"]), tuple(x.shape), layout, w.shape[0],
                   tuple(attrs["strides"]), attrs.get("fuse_activation", ""))
            spent[key][0] += 1
            spent[key][1] += time.process_time() - start
            return out
        return kernel

    for op_type in _CONV_OPS:
        op = get_op_def(op_type)
        for key, registered in list(op.kernels.items()):
            op.kernels[key] = dataclasses.replace(registered, fn=timed(registered.fn))

    def run():
        exe.run(program, feed=feeds, fetch_list=fetches[:1], scope=scope)

    for _ in range(3):
        run()
    spent.clear()
    start = time.process_time()
    for _ in range(args.runs):
        run()
    total = (time.process_time() - start) / args.runs * 1e3
    convs = sum(s for _, s in spent.values()) / args.runs * 1e3
    by_kind: dict[str, float] = collections.defaultdict(float)
    for key, (_, seconds) in spent.items():
        by_kind[key[0]] += seconds / args.runs * 1e3
    kinds = ", ".join(f"{k} {v:.2f}" for k, v in sorted(by_kind.items(), key=lambda kv: -kv[1]))
    print(f"{args.model}: {total:.2f} ms a run (CPU time), convolutions {convs:.2f} ms: "
          f"{kinds}")
    for key, (calls, seconds) in sorted(spent.items(), key=lambda kv: -kv[1][1])[:args.top]:
        kind, shape, layout, oc, strides, act = key
        print(f"  {seconds / args.runs * 1e3:7.3f} ms  x{calls // args.runs:<2d} {kind:3s} "
              f"{list(shape)} {layout} -> {oc}  strides {list(strides)}  {act or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
