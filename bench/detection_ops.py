"""The detection ops at a detector's sizes: paddle-ir next to Paddle 3.3.1 (old IR), one op
per program, the same numpy inputs (fixed seeds) in both.

    .venv/bin/python -m bench.detection_ops [--paddle-python /work/venv-paddle/bin/python]

Each op runs `--rounds` times after one warm-up run; the median wall time is reported.
Paddle's side runs in its own process (`--worker paddle`), as bench/run.py's workers do.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np


def cases():
    """{name: (op type, inputs {slot: array or (array, lengths)}, attrs, outputs)}."""
    rng = np.random.default_rng(0)
    n, a, h, w = 1, 15, 50, 68  # Faster R-CNN's RPN on an 800x1088 image, stride 16
    anchors = np.concatenate([rng.uniform(0, 900, (h, w, a, 2)),
                              rng.uniform(0, 900, (h, w, a, 2))], -1).astype("float32")
    anchors[..., 2:] = anchors[..., :2] + rng.uniform(16, 400, (h, w, a, 2))
    low = rng.uniform(0, 700, (512, 2))
    rois = np.hstack([low, low + rng.uniform(16, 300, (512, 2))]).astype("float32")
    yolo_box = np.concatenate([rng.uniform(0.05, 0.95, (8, 50, 2)),
                               rng.uniform(0.02, 0.5, (8, 50, 2))], -1).astype("float32")
    return {
        "generate_proposals_v2": (
            "generate_proposals_v2",
            {"Scores": rng.standard_normal((n, a, h, w)).astype("float32"),
             "BboxDeltas": (rng.standard_normal((n, 4 * a, h, w)) * 0.3).astype("float32"),
             "ImShape": np.array([[800, 1088]], "float32"), "Anchors": anchors,
             "Variances": np.ones_like(anchors)},
            {"pre_nms_topN": 6000, "post_nms_topN": 1000, "nms_thresh": 0.7,
             "min_size": 0.0, "eta": 1.0, "pixel_offset": True},
            {"RpnRois": "float32", "RpnRoiProbs": "float32", "RpnRoisNum": "int32"}),
        "roi_pool": (
            "roi_pool",
            {"X": rng.standard_normal((1, 256, 50, 68)).astype("float32"), "ROIs": rois,
             "RoisNum": np.array([512], "int32")},
            {"pooled_height": 7, "pooled_width": 7, "spatial_scale": 1 / 16},
            {"Out": "float32", "Argmax": "int64"}),
        "psroi_pool": (
            "psroi_pool",
            {"X": rng.standard_normal((1, 10 * 49, 50, 68)).astype("float32"), "ROIs": rois,
             "RoisNum": np.array([512], "int32")},
            {"pooled_height": 7, "pooled_width": 7, "output_channels": 10,
             "spatial_scale": 1 / 16}, {"Out": "float32"}),
        "yolov3_loss": (
            "yolov3_loss",
            {"X": rng.standard_normal((8, 3 * 85, 19, 19)).astype("float32"),
             "GTBox": yolo_box, "GTLabel": rng.integers(0, 80, (8, 50)).astype("int32")},
            {"anchors": [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119, 116, 90, 156, 198,
                         373, 326], "anchor_mask": [6, 7, 8], "class_num": 80,
             "ignore_thresh": 0.7, "downsample_ratio": 32, "use_label_smooth": True,
             "scale_x_y": 1.0},
            {"Loss": "float32", "ObjectnessMask": "float32", "GTMatchMask": "int32"}),
        "deformable_conv": (
            "deformable_conv",
            {"Input": rng.standard_normal((1, 64, 56, 56)).astype("float32"),
             "Offset": (rng.standard_normal((1, 18, 56, 56)) * 2).astype("float32"),
             "Mask": rng.uniform(0, 1, (1, 9, 56, 56)).astype("float32"),
             "Filter": (rng.standard_normal((64, 64, 3, 3)) * 0.05).astype("float32")},
            {"strides": [1, 1], "paddings": [1, 1], "dilations": [1, 1], "groups": 1,
             "deformable_groups": 1, "im2col_step": 1}, {"Output": "float32"}),
        "fake_quantize_abs_max": (
            "fake_quantize_abs_max",
            {"X": rng.standard_normal((64, 256, 28, 28)).astype("float32")},
            {"bit_length": 8, "round_type": 1}, {"Out": "float32", "OutScale": "float32"}),
    }


def _time(run, rounds):
    run()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def paddle_ir_times(rounds):
    import paddle_ir as pir
    out = {}
    for name, (op_type, inputs, attrs, outputs) in cases().items():
        prog = pir.Program()
        block = prog.global_block()
        ins = {s: block.create_var(name=s, shape=v.shape, dtype=str(v.dtype))
               for s, v in inputs.items()}
        outs = {s: block.create_var(name=f"out.{s}", dtype=d) for s, d in outputs.items()}
        block.append_op(op_type, inputs=ins, outputs=outs, attrs=attrs)
        exe, scope = pir.Executor(), pir.Scope()
        fetch = [f"out.{s}" for s in outputs]
        out[name] = _time(functools.partial(exe.run, prog, feed=inputs, fetch_list=fetch,
                                            scope=scope), rounds)
    return out


def paddle_times(rounds):
    os.environ["FLAGS_enable_pir_api"] = "0"
    import paddle
    paddle.enable_static()
    out = {}
    for name, (op_type, inputs, attrs, outputs) in cases().items():
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            block = main.global_block()
            ins = {s: [paddle.static.data(s, list(v.shape), str(v.dtype))]
                   for s, v in inputs.items()}
            outs = {s: [block.create_var(name=f"out.{s}", dtype=d)] for s, d in outputs.items()}
            block.append_op(type=op_type, inputs=ins, outputs=outs, attrs=attrs)
        exe = paddle.static.Executor(paddle.CPUPlace())
        fetch = [f"out.{s}" for s in outputs]
        out[name] = _time(functools.partial(exe.run, main, feed=inputs, fetch_list=fetch,
                                            return_numpy=False), rounds)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--paddle-python", default=None)
    parser.add_argument("--worker", choices=["paddle-ir", "paddle"], default=None)
    args = parser.parse_args(argv)
    if args.worker:
        times = paddle_ir_times(args.rounds) if args.worker == "paddle-ir" else \
            paddle_times(args.rounds)
        print(json.dumps(times))
        return
    ours = paddle_ir_times(args.rounds)
    theirs = {}
    if args.paddle_python:
        here = os.path.dirname(os.path.abspath(__file__))
        done = subprocess.run([args.paddle_python, os.path.join(here, "detection_ops.py"),
                               "--worker", "paddle", "--rounds", str(args.rounds)],
                              capture_output=True, text=True, check=True)
        theirs = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{'op':26} {'paddle-ir ms':>13} {'Paddle ms':>10} {'ratio':>7}")
    for name, ms in ours.items():
        other = theirs.get(name)
        ratio = f"{ms / other:7.1f}" if other else ""
        print(f"{name:26} {ms:13.1f} {other if other is not None else float('nan'):10.1f} "
              f"{ratio}")


if __name__ == "__main__":
    main(sys.argv[1:])
