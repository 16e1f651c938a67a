"""The op suite's coverage gate: every registered op runs on a cached plan, and every op
with a gradient has it checked against central differences, somewhere in the suite.

While the suite runs, `record_cached_runs` notes the op types of every plan a run
reuses (executor/runner.py's cached path), and tests/op_test.py's `check_grad` notes
the op types whose gradients it checked. When a whole-suite run ends green,
tests/conftest.py asks `gaps()` what is missing; an op the harness cannot reach is
listed in tests/ops/op_suite_exemptions.py with the reason and where it is tested.
A missing op, or an exemption that is stale (the op is reached after all, or is
no longer registered), fails the run.
"""

from __future__ import annotations

import re
from pathlib import Path

from paddle_ir.ops._index import MODULE_OPS
from paddle_ir.ops.grad import GradContext
from paddle_ir.ops.registry import get_op_def, load_all

EXEMPTIONS = Path(__file__).resolve().parent / "ops" / "op_suite_exemptions.py"

_GRAD_OP = re.compile(r"_grad\d*$")

# "cached": op types a reused plan ran; "grad": op types check_grad checked.
EXERCISED: dict[str, set[str]] = {"cached": set(), "grad": set()}


def record_cached_runs(monkeypatch_like) -> None:
    """Wrap the runner's cached-plan step loop so each completed run records its ops."""
    from paddle_ir.executor import runner

    run_steps = runner.run_steps

    def recording(plan, *args, **kwargs):
        result = run_steps(plan, *args, **kwargs)
        EXERCISED["cached"].update(plan.op_types)
        return result

    monkeypatch_like.setattr(runner, "run_steps", recording)


def has_gradient(op_type: str) -> bool:
    """Whether the op's grad maker makes grad ops when every input wants a gradient (a
    maker that makes none: integer outputs, stop_gradient ops; sub-block ops build their
    grad blocks in append_backward and count as having one)."""
    opdef = get_op_def(op_type)
    if opdef.grad_maker_fn is None:
        return False
    inputs = {s.name: [f"{op_type}.{s.name}"] for s in opdef.inputs}
    outputs = {s.name: [f"{op_type}.{s.name}.out"] for s in opdef.outputs}
    attrs = {a.name: a.default for a in opdef.attrs}
    try:
        made = opdef.grad_maker_fn(GradContext(op_type, inputs, outputs, attrs, lambda n: True))
    except ValueError:  # while / conditional_block: "built by append_backward"
        return True
    return bool(made)


def load_exemptions() -> dict[str, dict[str, str]]:
    from tests.ops import op_suite_exemptions as table
    return {"cached": dict(table.CACHED), "grad": dict(table.GRAD)}


def gaps(exercised: dict[str, set[str]], exemptions: dict[str, dict[str, str]]) -> list[str]:
    """Every problem, one line each: ops not reached, and stale exemptions."""
    load_all()
    # The op modules' ops (ops/_index.py), not ops tests register for themselves; grad ops
    # (Paddle names some cross_entropy_grad2) are reached through their forward op's.
    forward = sorted(t for ops in MODULE_OPS.values() for t in ops
                     if not _GRAD_OP.search(t))
    wanted = {"cached": forward, "grad": [t for t in forward if has_gradient(t)]}
    what = {"cached": "never ran on a cached plan",
            "grad": "has a gradient that check_grad never checked"}
    problems = []
    for kind, ops in wanted.items():
        exempt = exemptions[kind]
        for op_type in ops:
            if op_type not in exercised[kind] and op_type not in exempt:
                problems.append(f"{op_type} {what[kind]} (test it, or exempt it with the "
                                f"reason in {EXEMPTIONS.name} {kind.upper()})")
        for op_type in sorted(exempt):
            if op_type not in ops:
                kind_of_op = "registered op with a gradient" if kind == "grad" else "registered op"
                problems.append(f"{EXEMPTIONS.name} {kind.upper()} exempts {op_type}, which is "
                                f"not a {kind_of_op}")
            elif op_type in exercised[kind]:
                problems.append(f"{EXEMPTIONS.name} {kind.upper()} exempts {op_type}, which the "
                                f"suite reaches: remove the exemption")
    return problems
