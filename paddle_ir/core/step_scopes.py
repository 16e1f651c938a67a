"""StepScopes: the scopes of a loop's steps (or of a branch that ran), in order.

`while` keeps one scope per step and `conditional_block` the scope of a run,
so that their grad ops can run the grad block next to the forward values
(ops/controlflow/control_common.py). The scopes are the executor's; this core value only
holds them, so that a variable of type STEP_SCOPES has a class of its own.
"""

from __future__ import annotations


class StepScopes(list):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"StepScopes({len(self)} steps)"
