"""What control-flow kernels see: the running frame as a scope, and a way to run blocks.

Ops such as `while` and `conditional_block` run sub-blocks. A sub-block reads
and writes its parent block's variables by name, exactly as Paddle's step
scopes do, so the parent's running frame (an array of values, see plan.py and steps.py) is
shown to it as a `FrameScope`: a Scope whose variables are views of the
frame's slots. A sub-block's own variables live in the scope it is run with
(a step scope the control kernel creates), which is what a grad op later
reads back.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.executor.scope import Scope, ScopeVariable

# The steps every while loop of one Executor.run has taken, all nesting levels together:
# a cap on one loop's steps would not stop 60 nested two-step loops (2**60 body runs).
_LOOP_STEPS: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "paddle_ir_loop_steps", default=None)


def start_loop_count() -> contextvars.Token:
    """Count the loop steps of one run (Executor.run) from zero; give the token back to
    `end_loop_count` when the run ends. (Plain calls: a generator-based context manager
    cost B2's fixed per-run time about a microsecond.)"""
    return _LOOP_STEPS.set([0])


def end_loop_count(token: contextvars.Token) -> None:
    _LOOP_STEPS.reset(token)


@dataclass
class RunContext:
    """Held in frame slot RUN_CONTEXT while a block runs: its scope and the block runner."""

    scope: Scope
    run_block: Callable  # run_block(block_idx, scope, keep_locals=False)
    options: object = None  # the Executor's ExecutionOptions (limits such as loop caps)


class FrameVariable(ScopeVariable):
    """A scope variable that is a view of one slot of a running frame."""

    __slots__ = ("_env", "_lods", "_slot")

    def __init__(self, name: str, env: list, lods: list, slot: int):
        self.name = name
        self._env, self._lods, self._slot = env, lods, slot

    @property
    def value(self):
        v = self._env[self._slot]
        if v.__class__ is np.ndarray:
            return LoDTensor.unchecked(v, self._lods[self._slot])
        return v

    @value.setter
    def value(self, v) -> None:
        if v.__class__ is LoDTensor:
            self._env[self._slot], self._lods[self._slot] = v._array, v._offsets
        else:
            self._env[self._slot], self._lods[self._slot] = v, ()


class FrameScope(Scope):
    """The running frame of a block, seen as a scope (its parent: the run's scope)."""

    def __init__(self, env: list, lods: list, index: dict[str, int], parent: Scope):
        super().__init__(parent)
        self._env, self._lods, self._index = env, lods, index

    def var(self, name: str) -> ScopeVariable:
        slot = self._index.get(name)
        if slot is not None:
            return FrameVariable(name, self._env, self._lods, slot)
        return super().var(name)

    def find_var(self, name: str) -> ScopeVariable | None:
        # A slot that holds a value wins; then variables made here, then the run's scope.
        # A name of this frame that holds nothing yet resolves to its (empty) slot, so
        # that a sub-block writing it writes the frame, not the run's scope.
        slot = self._index.get(name)
        if slot is not None and self._env[slot] is not None:
            return FrameVariable(name, self._env, self._lods, slot)
        found = self._vars.get(name)
        if found is None and self.parent is not None:
            found = self.parent.find_var(name)
        if found is None and slot is not None:
            return FrameVariable(name, self._env, self._lods, slot)
        return found


class ControlContext:
    """Passed to control-flow kernels (registered with `control=True`)."""

    def __init__(self, env: list, lods: list, index: dict[str, int], run: RunContext,
                 inputs: dict[str, list[str]], outputs: dict[str, list[str]]):
        self.scope = FrameScope(env, lods, index, run.scope)
        self._run = run
        self._inputs, self._outputs = inputs, outputs

    @property
    def max_while_iterations(self) -> int | None:
        """The Executor's cap on the steps of one `while` run (None: no cap)."""
        return getattr(self._run.options, "max_while_iterations", None)

    def count_loop_step(self) -> int:
        """Count one step of a loop; the steps all loops of this run have taken so far."""
        counter = _LOOP_STEPS.get()
        if counter is None:  # a kernel run outside Executor.run (a test): count from here
            counter = [0]
            _LOOP_STEPS.set(counter)
        counter[0] += 1
        return counter[0]

    def input_names(self, slot: str) -> list[str]:
        return self._inputs.get(slot, [])

    def output_names(self, slot: str) -> list[str]:
        return self._outputs.get(slot, [])

    def run_block(self, block_idx: int, scope: Scope, keep_locals: bool = False) -> None:
        """Run sub-block `block_idx` in `scope` (a child of `self.scope`).

        Variables the sub-block declares itself are created in `scope` when
        `keep_locals` is set (a step scope kept for the backward pass); values of
        variables its ancestors declare are written back where they live.
        """
        self._run.run_block(block_idx, scope, keep_locals)

    def new_scope(self, parent: Scope | None = None) -> Scope:
        """A scope for one run of a sub-block, under `parent` (default: this frame).

        Unlike `parent.new_scope()` it is not recorded among the parent's kids, so
        it is freed as soon as the kernel lets go of it.
        """
        return Scope(self.scope if parent is None else parent)

    def value(self, name: str):
        """The value of `name` as the sub-block would see it (LoDTensor for dense)."""
        holder = self.scope.find_var(name)
        return None if holder is None else holder.value
