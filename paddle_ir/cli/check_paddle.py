"""`paddle-ir check` on a Paddle model: converting it is the first check, then the same
program checks as paddle-ir's own files, then its parameters when it has a file of them."""

from __future__ import annotations

from paddle_ir.analysis.checker import MISMATCH, Problem, check_program
from paddle_ir.cli.check import describe_program
from paddle_ir.core.atomic import open_regular
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.executor.scope import Scope
from paddle_ir.proto import framework_pb2 as pb


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
    from paddle_ir.framework import Program
    from paddle_ir.paddle_format import from_paddle, load_paddle_params, parse_paddle_program

    with open_regular(model.program_file) as f:
        data = f.read()
    notes: list[Problem] = []
    desc = None
    try:
        desc = from_paddle(parse_paddle_program(data, model.program_file), model.program_file)
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
    print(f"{model.program_file} (Paddle){checked}: OK ({describe_program(desc)})")
    return 0
