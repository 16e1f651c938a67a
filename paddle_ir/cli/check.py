"""`paddle-ir check`: validate a program without running it (paddle_ir.checker), list every
problem, and exit 1 if there is any. For an inference-model directory the parameter file is
checked against the program's persistables too; a job directory checks main and startup."""

from __future__ import annotations

import os

from paddle_ir import io
from paddle_ir.checker import Problem, check_bytes
from paddle_ir.cli import paddle_input
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.executor.scope import Scope
from paddle_ir.proto import framework_pb2 as pb


def add_parser(subparsers, common) -> None:
    p = subparsers.add_parser(
        "check", parents=[common], help="validate a program without running it",
        description="Checks op types, variables, slots, attribute types, block references "
                    "and parents, then re-runs build-time inference over every op. Lists "
                    "every problem; exits 1 if there is any.")
    p.add_argument("path", help="a .pb file, or a model or job directory, or a Paddle model")
    paddle_input.add_format_option(p)
    p.set_defaults(handler=check_command)


def _targets(path: str) -> list[tuple[str, str | None]]:
    """(program file, its parameter file or None) to check."""
    if not os.path.isdir(path):
        return [(path, None)]
    model = os.path.join(path, io.MODEL_FILENAME)
    if os.path.exists(model):
        return [(model, os.path.join(path, io.PARAMS_FILENAME))]
    main = os.path.join(path, io.MAIN_FILENAME)
    if os.path.exists(main):
        return [(main, None), (os.path.join(path, io.STARTUP_FILENAME), None)]
    raise FileNotFoundError(f"{path} holds neither {io.MODEL_FILENAME} nor {io.MAIN_FILENAME}")


def _summary(data: bytes) -> str:
    desc = pb.ProgramDesc()
    desc.ParseFromString(data)
    return describe_program(desc)


def describe_program(desc: pb.ProgramDesc) -> str:
    ops = sum(len(b.ops) for b in desc.blocks)
    variables = sum(len(b.vars) for b in desc.blocks)
    return f"{len(desc.blocks)} block(s), {ops} op(s), {variables} variable(s)"


def check_command(args) -> int:
    paddle = paddle_input.paddle_model(args.path, args.model_format)
    if paddle is not None:
        from paddle_ir.cli.check_paddle import check_paddle

        return check_paddle(paddle)
    failed = False
    for program_path, params in _targets(args.path):
        with open(program_path, "rb") as f:
            data = f.read()
        problems = check_bytes(data)
        if params is not None and not problems:
            try:
                io.load_vars(params, io.load_program(program_path), Scope())
            except PaddleIRError as exc:
                problems.append(Problem(exc.category, exc.message))
        if problems:
            failed = True
            print(f"{program_path}: {len(problems)} problem(s)")
            for problem in problems:
                print(f"  {problem}")
        else:
            checked = " and its parameters" if params is not None else ""
            print(f"{program_path}{checked}: OK ({_summary(data)})")
    return 1 if failed else 0
