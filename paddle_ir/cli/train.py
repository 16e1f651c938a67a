"""`paddle-ir train` and `paddle-ir merge-checkpoint`: parameter-server training of a saved job.

    paddle-ir train JOB --trainers 2 --pservers 2 --feeds data.npz --batch-size 64 \\
        --steps 100 --save out/dist
    paddle-ir merge-checkpoint out/dist out/merged --feed ids --fetch prob

JOB is a training-job directory (main.pb + startup.pb, `save_train_program`).
The feeds are cut into batches of B rows (B sequences for LoD feeds); at step s
trainer t takes batch s * trainers + t, so one step trains on trainers * B rows,
as a single machine would with batches of that size. Without --address, a
private local Ray cluster runs the servers and trainers (`--local`: threads in
this process, no Ray); --address joins a cluster you already trust
(docs/distributed.md). --save keeps each server's pieces in DIR (every
--save-every steps and at the end); merge-checkpoint joins them into one
single-machine checkpoint, and with --feed/--fetch an inference model beside it.

On several machines (docs/distributed.md, "Several machines"): --auth-token-file
joins a cluster in Ray's token mode; a cluster on another machine that takes calls
without a token is refused unless --insecure-cluster. --server-resource NAME=N,
--server-memory auto|BYTES and --spread-servers place the servers; every actor's
node is printed. --resume continues the run saved in --save DIR at the servers'
step, with the batches of that step (--steps counts from the job's start).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from paddle_ir.cli import feeds as feed_files
from paddle_ir.cli.run import _positive
from paddle_ir.executor import Executor, Scope
from paddle_ir.io.checkpoint import load_persistables, load_train_program
from paddle_ir.io.inference_model import save_inference_model


def add_parser(subparsers, common) -> None:
    doc = __doc__.split("\n", 2)[2]
    p = subparsers.add_parser("train", parents=[common], description=doc,
                              formatter_class=argparse.RawDescriptionHelpFormatter,
                              help="train a saved job on parameter servers (Ray)")
    p.add_argument("job", help="a training-job directory (main.pb, startup.pb)")
    p.add_argument("--trainers", type=_positive, default=2, metavar="N")
    p.add_argument("--pservers", type=_positive, default=2, metavar="M")
    p.add_argument("--address", help="join this Ray cluster instead of starting a local one")
    p.add_argument("--local", action="store_true", help="servers and trainers in this process")
    p.add_argument("--async", dest="sync_mode", action="store_false",
                   help="apply each push as it arrives (default: sync, a barrier per step)")
    p.add_argument("--feed", action="append", default=[], metavar="NAME=FILE.npy")
    p.add_argument("--feeds", metavar="FILE.npz")
    p.add_argument("--lod", action="append", default=[], metavar="NAME=JSON")
    p.add_argument("--batch-size", type=_positive, required=True, metavar="B",
                   help="rows (or sequences) per trainer per step")
    p.add_argument("--steps", type=_positive, default=1, metavar="S")
    p.add_argument("--min-block-size", type=_positive, default=8192, metavar="K",
                   help="smallest dense block, in elements (Fluid's min_block_size)")
    p.add_argument("--save", metavar="DIR", help="save the servers' pieces here")
    p.add_argument("--save-every", type=_positive, metavar="K", help="also every K steps")
    p.add_argument("--resume", action="store_true",
                   help="continue the run saved in --save at the servers' step")
    p.add_argument("--timeout", type=_positive, metavar="SECONDS",
                   help="deadline of every call between trainers and servers (default 60)")
    p.add_argument("--auth-token-file", metavar="PATH",
                   help="join --address in Ray's token mode with this token (mode 0600)")
    p.add_argument("--insecure-cluster", action="store_true",
                   help="join another machine's cluster although it takes calls without a "
                        "token (only on a private network you trust)")
    p.add_argument("--server-resource", action="append", default=[], metavar="NAME[=N]",
                   help="each server asks Ray for N (default 1) of this custom resource")
    p.add_argument("--server-memory", metavar="auto|BYTES",
                   help="each server reserves this much memory (auto: from its shard)")
    p.add_argument("--spread-servers", action="store_true",
                   help="put the servers on different nodes where Ray can")
    p.set_defaults(handler=train_command)

    m = subparsers.add_parser("merge-checkpoint", parents=[common],
                              help="join a distributed run's server checkpoints into one",
                              description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    m.add_argument("dist_dir", help="the --save directory of `paddle-ir train`")
    m.add_argument("out", help="where the single-machine job and checkpoint go")
    m.add_argument("--feed", action="append", default=[], metavar="NAME",
                   help="with --fetch: also write an inference model to OUT/inference")
    m.add_argument("--fetch", action="append", default=[], metavar="NAME")
    m.set_defaults(handler=merge_command)


def _readers(batches: list[dict], trainers: int, start: int, steps: int) -> list[list[dict]]:
    return [[batches[(s * trainers + t) % len(batches)] for s in range(start, steps)]
            for t in range(trainers)]


_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _bytes(text: str, option: str) -> int:
    number, suffix = text.rstrip("KMGTkmgt"), text[len(text.rstrip("KMGTkmgt")):].upper()
    if number.isdigit() and suffix in _SUFFIXES and int(number) > 0:
        return int(number) * _SUFFIXES[suffix]
    raise feed_files.UsageError(f"{option}: expected 'auto' or a positive number of bytes "
                                f"(K, M, G, T suffixes allowed), got {text!r}")


def _placement(args):
    from paddle_ir.distributed.server_placement import ServerPlacement

    resources = {}
    for item in args.server_resource:
        name, sep, amount = item.partition("=")
        try:
            value = float(amount) if sep else 1.0
        except ValueError:
            value = None
        if not name or value is None:
            raise feed_files.UsageError(f"--server-resource: expected NAME or NAME=N, got "
                                        f"{item!r}")
        resources[name] = value
    memory = args.server_memory
    if memory is not None and memory != "auto":
        memory = _bytes(memory, "--server-memory")
    return ServerPlacement(resources, memory, args.spread_servers)


def _start_step(args) -> int:
    if not args.resume:
        return 0
    if not args.save:
        raise feed_files.UsageError("--resume needs --save DIR: the directory of the run to "
                                    "continue")
    from paddle_ir.distributed.checkpoint import saved_step

    return saved_step(args.save)


def train_command(args) -> int:
    from paddle_ir.distributed import train  # the distributed runtime loads only here
    from paddle_ir.transpiler import DistributeTranspilerConfig

    if args.local and (args.address or args.auth_token_file or args.insecure_cluster):
        raise feed_files.UsageError("--local runs in this process: --address, "
                                    "--auth-token-file and --insecure-cluster need Ray")
    if (args.auth_token_file or args.insecure_cluster) and not args.address:
        raise feed_files.UsageError("--auth-token-file and --insecure-cluster go with "
                                    "--address (a cluster to join)")
    placement = _placement(args)
    start = _start_step(args)
    if start >= args.steps:
        print(f"{args.save}: the servers saved at step {start}, and --steps is {args.steps}: "
              "nothing left to train")
        return 0
    main, startup = load_train_program(args.job)
    files, lods = feed_files.parse_feed_options(args.feed, args.lod)
    feeds = feed_files.collect_feeds(files, args.feeds, lods)
    batches = feed_files.make_batches(feeds, args.batch_size)
    fetches = main.fetch_target_names[:1]
    config = DistributeTranspilerConfig(min_block_size=args.min_block_size)
    if args.timeout:
        config.rpc_timeout = args.timeout
    bar = _bar(args.steps - start)
    if start:
        print(f"resuming at step {start + 1}/{args.steps} from {args.save}")

    def progress(step, result):
        step += result.start_step
        loss = np.mean([float(np.asarray(f[step - start][0]).reshape(-1)[0])
                        for f in result.fetches])
        line = f"step {step + 1}/{args.steps}  {fetches[0]}={loss:.6g}" if fetches else ""
        if bar is not None:
            bar.set_postfix_str(line.split("  ", 1)[-1])
            bar.update()
        elif (step + 1) % max(1, args.steps // 10) == 0 or step + 1 == args.steps:
            print(line or f"step {step + 1}/{args.steps}")

    try:
        result = train(main, startup, _readers(batches, args.trainers, start, args.steps),
                       pservers=args.pservers, sync_mode=args.sync_mode, fetch_list=fetches,
                       config=config, job_dir=args.save, save_every=args.save_every or 0,
                       local=args.local, address=args.address, progress=progress,
                       auth_token_file=args.auth_token_file,
                       insecure_cluster=args.insecure_cluster, placement=placement,
                       start_step=start)
    finally:
        if bar is not None:
            bar.close()
    sent = sum(sum(t["sent"].values()) for t in result.traffic)
    got = sum(sum(t["received"].values()) for t in result.traffic)
    ran = args.steps - start
    print(f"{args.trainers} trainer(s) x {args.pservers} server(s) {result.cluster}, "
          f"{ran} step(s): "
          f"{sent / ran / 1024:.1f} KiB sent and {got / ran / 1024:.1f} KiB "
          "received per step")
    for actor, node in result.nodes.items():
        print(f"  {actor} on {node}")
    if args.save:
        print(f"saved the servers' pieces under {args.save}; join them with: paddle-ir "
              f"merge-checkpoint {args.save} OUT")
    return 0


def _bar(steps: int):
    if steps < 2 or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=steps, file=sys.stderr, unit="step", leave=False)


def merge_command(args) -> int:
    from paddle_ir.distributed import merge_checkpoint

    if bool(args.feed) != bool(args.fetch):
        raise feed_files.UsageError("--feed and --fetch go together (the inference model's "
                                    "inputs and outputs)")
    names = merge_checkpoint(args.dist_dir, args.out)
    print(f"{args.out}: {len(names)} persistable variable(s) joined from the servers")
    if args.feed:
        main, _ = load_train_program(args.out)
        exe, scope = Executor(), Scope()
        load_persistables(exe, args.out, main, scope)
        target = os.path.join(args.out, "inference")
        save_inference_model(target, args.feed, [main.global_block().var(n)
                                                     for n in args.fetch], exe, main, scope)
        print(f"{target}: inference model ({', '.join(args.feed)} -> {', '.join(args.fetch)})")
    return 0
