"""`paddle-ir check`: validate a program without running it (paddle_ir.analysis.checker), list every
problem, and exit 1 if there is any. For an inference-model directory the parameter file is
checked against the program's persistables too; a job directory checks main and startup.
A Paddle model is converted first (converting it is the first check), then checked the
same way, its parameters too when it has a file of them."""

from __future__ import annotations

import os

from paddle_ir.cli import paddle_input
from paddle_ir.cli.locate import saved_files
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.executor.scope import Scope
from paddle_ir.framework import Program
from paddle_ir.model_files.params_file import load_vars_file, read_saved
from paddle_ir.model_files.program_file import read_program_bytes, version_warning
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


def _targets(directory: str) -> list[tuple[str, bytes, str | None]]:
    """(program file, its bytes, its parameter file or None) to check, read at once."""
    def read(path: str) -> bytes:
        return read_program_bytes(path, directory if os.path.isdir(directory) else None)

    if not os.path.isdir(directory):
        return [(directory, read(directory), None)]
    found = saved_files(directory)
    if found.kind == "model":
        return [(found.program, read(found.program), found.params)]
    return [(found.program, read(found.program), None),
            (found.startup, read(found.startup), None)]


_NESTED_LOOPS_WARNED = 3  # loops inside loops: block runs multiply by each trip count


def _sub_blocks(op: pb.OpDesc) -> list[int]:
    refs = []
    for attr in op.attrs:
        if attr.type == pb.BLOCK:
            refs.append(attr.block_idx)
        elif attr.type == pb.BLOCKS:
            refs.extend(attr.blocks_idx)
    return refs


def loop_warnings(desc: pb.ProgramDesc) -> list[str]:
    """Loops that may never end (no op of the body writes the condition), and loops nested
    so deep that their block runs multiply. Linear in the program's size."""
    if not any(op.type == "while" for block in desc.blocks for op in block.ops):
        return []  # the common case: no loop, no walk over every op's outputs
    count = len(desc.blocks)
    writes: list[set[str]] = [set() for _ in range(count)]  # a block's writes, sub-blocks in
    children: list[list[int]] = [[] for _ in range(count)]
    for b, block in enumerate(desc.blocks):
        for op in block.ops:
            writes[b].update(n for v in op.outputs for n in v.arguments)
            children[b] += [r for r in _sub_blocks(op) if 0 < r < count and r > b]
    for b in reversed(range(count)):  # children come after their parents
        for child in children[b]:
            writes[b] |= writes[child]
    warnings, depth = [], [0] * count
    for b, block in enumerate(desc.blocks):
        for i, op in enumerate(block.ops):
            if op.type != "while":
                continue
            cond = next((v.arguments[0] for v in op.inputs
                         if v.parameter == "Condition" and v.arguments), None)
            for body in _sub_blocks(op):
                if not 0 < body < count or body <= b:
                    continue
                depth[body] = depth[b] + 1
                if cond is not None and cond not in writes[body]:
                    warnings.append(f"block {b}, op #{i} while: no op of its body (block "
                                    f"{body}) writes its condition {cond!r}, so once it holds "
                                    f"the loop never ends")
                if depth[body] == _NESTED_LOOPS_WARNED:
                    warnings.append(f"block {b}, op #{i} while: loops nest {depth[body]} deep "
                                    f"here; the innermost body runs the product of their "
                                    f"trip counts")
        for child in children[b]:  # a conditional block inside a loop body is inside it too
            depth[child] = max(depth[child], depth[b])
    return warnings


def _summary(data: bytes) -> str:
    desc = pb.ProgramDesc()
    desc.ParseFromString(data)
    return describe_program(desc)


def describe_program(desc: pb.ProgramDesc) -> str:
    ops = sum(len(b.ops) for b in desc.blocks)
    variables = sum(len(b.vars) for b in desc.blocks)
    return f"{len(desc.blocks)} block(s), {ops} op(s), {variables} variable(s)"


def _checked(directory: str) -> list[tuple[str, bytes, list, bool]]:
    """(program file, bytes, problems, params checked?) of each program of one save."""
    from paddle_ir.analysis.checker import Problem, check_bytes  # only `check` runs the checker

    results = []
    for program_path, data, params in _targets(directory):
        problems = check_bytes(data)
        if params is not None and not problems:
            try:  # the checker found the text UTF-8: no second walk over it
                program = Program.from_desc(pb.ProgramDesc.FromString(data), text_checked=True)
                load_vars_file(params, program, Scope(), directory)
            except PaddleIRError as exc:
                problems.append(Problem(exc.category, exc.message))
        results.append((program_path, data, problems, params is not None))
    return results


def _read_names(desc: pb.ProgramDesc) -> set[str]:
    """Variables some op reads, and the fetch targets: what a run's results depend on."""
    read = {n for b in desc.blocks for op in b.ops for v in op.inputs for n in v.arguments}
    return read | set(desc.fetch_target_names)


def check_paddle(model) -> int:
    """A Paddle model: converting it is the first check, then the same checks as ours.

    Paddle's Python front end declares some auxiliary outputs loosely (batch_norm's
    saved statistics with no shape, sequence_pool's MaxIndex as float32): a declaration
    that differs from paddle-ir's inference only for a variable nothing reads is a note.
    """
    from paddle_ir.analysis.checker import MISMATCH, Problem, check_program
    from paddle_ir.paddle_format import load_paddle_params, read_program_desc

    data = model.read_program()
    notes: list[Problem] = []
    desc = None
    try:
        desc = read_program_desc(model.program_file, data)
        problems = check_program(desc)
        read = _read_names(desc)
        notes = [p for p in problems if p.category == MISMATCH and p.message.split("'")[1]
                 not in read]
        problems = [p for p in problems if p not in notes]
        if not problems and (model.params_file or model.params_dir):
            load_paddle_params(model, Program.from_desc(desc), Scope())
    except PaddleIRError as exc:
        problems = [Problem(exc.category, exc.message)]
    for note in notes:
        print(f"note: {note} (nothing reads it)")
    if problems:
        print(f"{model.program_file}: {len(problems)} problem(s)")
        for problem in problems:
            print(f"  {problem}")
        return 1
    checked = (" and its parameters" if model.params_file or model.params_dir
               else " (no parameter file beside it: the program alone)")
    kind = "Paddle 3 PIR" if model.is_pir else "Paddle"
    print(f"{model.program_file} ({kind}){checked}: OK ({describe_program(desc)})")
    return 0


def check_command(args) -> int:
    paddle = paddle_input.paddle_model(args.path, args.model_format)
    if paddle is not None:
        return check_paddle(paddle)
    failed = False
    for program_path, data, problems, params in read_saved(args.path, _checked):
        if os.path.isdir(args.path):  # name the file the user knows, not the generation's
            program_path = os.path.join(args.path, os.path.basename(program_path))
        if not problems:
            desc = pb.ProgramDesc.FromString(data)
            version = version_warning(desc)  # the loaders' warning, as a line of the report
            for warning in ([version] if version else []) + loop_warnings(desc):
                print(f"{program_path}: warning: {warning}")
        if problems:
            failed = True
            print(f"{program_path}: {len(problems)} problem(s)")
            for problem in problems:
                print(f"  {problem}")
        else:
            checked = " and its parameters" if params else ""
            print(f"{program_path}{checked}: OK ({_summary(data)})")
    return 1 if failed else 0
