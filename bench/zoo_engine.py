"""One engine running one model of B7's zoo, in a process of its own (bench/zoo_peers.py).

    python bench/zoo_engine.py ENGINE MODEL_DIR OUT.npy [--runs 9] [--warmup 3] [--threads 1]

ENGINE is `paddle-ir`, `onnxruntime`, `paddle-inference` or `paddle-executor`;
MODEL_DIR holds bench/zoo_export.py's files (model.pdmodel / .pdiparams,
model.onnx, feeds.npz). The engine loads the model, runs it once (the first
result, timed apart: plans, graph optimisation), `--warmup` more times, then
`--runs` timed runs; it saves its first output to OUT.npy and prints one JSON line:
load and first-run seconds, every timed run's wall and CPU time (the process's
user + system time, which other jobs on a shared machine inflate less than the
wall time), and the process's peak resident
set (VmHWM: interpreter, libraries, model and every run, as `/usr/bin/time`
would report it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

ENGINES = ("paddle-ir", "onnxruntime", "paddle-inference", "paddle-executor")


def _peak_rss() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return -1


def _paddle_ir(model_dir: str, feed: dict, threads: int):
    import paddle_ir as pir

    exe, scope = pir.Executor(), pir.Scope()
    program, _, fetch = pir.io.load_inference_model(os.path.join(model_dir, "model"), exe,
                                                    scope=scope)
    return lambda: exe.run(program, feed=feed, fetch_list=fetch[:1], scope=scope)[0]


def _onnxruntime(model_dir: str, feed: dict, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    session = ort.InferenceSession(os.path.join(model_dir, "model.onnx"), options,
                                   providers=["CPUExecutionProvider"])
    name = session.get_outputs()[0].name
    return lambda: session.run([name], feed)[0]


def _paddle_inference(model_dir: str, feed: dict, threads: int):
    from paddle import inference

    prefix = os.path.join(model_dir, "model")
    config = inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.disable_gpu()
    config.enable_mkldnn()  # its default CPU configuration: oneDNN kernels
    if threads:
        config.set_cpu_math_library_num_threads(threads)
    config.disable_glog_info()
    predictor = inference.create_predictor(config)
    inputs = [(predictor.get_input_handle(n), feed[n]) for n in predictor.get_input_names()]
    output = predictor.get_output_handle(predictor.get_output_names()[0])

    def run():
        for handle, value in inputs:
            handle.copy_from_cpu(value)
        predictor.run()
        return output.copy_to_cpu()
    return run


def _paddle_executor(model_dir: str, feed: dict, threads: int):
    import paddle

    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        program, _, fetch = paddle.static.load_inference_model(
            os.path.join(model_dir, "model"), exe)

    def run():
        with paddle.static.scope_guard(scope):
            return exe.run(program, feed=feed, fetch_list=fetch[:1])[0]
    return run


LOADERS = {"paddle-ir": _paddle_ir, "onnxruntime": _onnxruntime,
           "paddle-inference": _paddle_inference, "paddle-executor": _paddle_executor}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("engine", choices=ENGINES)
    parser.add_argument("model_dir")
    parser.add_argument("output")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per engine (0: the engine's default)")
    args = parser.parse_args(argv)
    import numpy as np

    if args.engine == "paddle-ir" and args.threads:
        from paddle_ir.executor.threads import limit_threads

        limit_threads(args.threads)
    with np.load(os.path.join(args.model_dir, "feeds.npz")) as data:
        feed = {k: data[k] for k in data.files}
    t0 = time.perf_counter()
    run = LOADERS[args.engine](args.model_dir, feed, args.threads)
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = np.asarray(run())
    first_s = time.perf_counter() - t0
    np.save(args.output, out)
    for _ in range(args.warmup):
        run()
    times, cpu_times = [], []
    for _ in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        run()
        times.append(time.perf_counter() - t0)
        cpu_times.append(time.process_time() - c0)
    print(json.dumps({"engine": args.engine, "load_s": load_s, "first_s": first_s,
                      "times": times, "cpu_times": cpu_times, "peak_rss": _peak_rss()}),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
