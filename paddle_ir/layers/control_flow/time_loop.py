"""A While over time steps whose count is known only when the program runs: the loop
that rnn(), StaticRNN and dynamic_decode lower to when they cannot unroll.

    loop = TimeLoop(steps)                 # steps: int64 [1], e.g. time_steps(x, 0)
    h = loop.carry(h0)                     # a copy of h0, rewritten by every step
    with loop.block() as t:                # t: int64 [1], 0, 1, ... steps - 1
        x_t = read_step(x, t)              # x[t] of a time-major x
        new_h = ...
        loop.update(h, new_h)
        loop.collect(new_h)                # written at t (or at an index of your own)
    out = loop.stacked()[0]                # [steps, ...], the collected values stacked

A loop whose end depends on what it computes (dynamic_decode) passes its first
condition instead of `steps`, and says in its block how to compute the next one:
loop.go_on(lambda t: ...), called after t has moved on (t = the steps run so far).

The loop is a plain `while` op (ops/controlflow/while_op.py), so append_backward
differentiates it with while_grad: a carried value is kept at the start of each
step, the collected values go through tensor arrays (array_write /
tensor_array_to_tensor and their gradients).
"""

from __future__ import annotations

import contextlib

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable, default_main_program
from paddle_ir.layers.control_flow.arrays import array_write, create_array, increment
from paddle_ir.layers.control_flow.compare import less_than
from paddle_ir.layers.control_flow.loops import While
from paddle_ir.layers.nn.indexing import gather
from paddle_ir.layers.nn.shapes import shape, slice, squeeze
from paddle_ir.layers.tensor import assign, cast, fill_constant, tensor_array_to_tensor

__all__ = ["TimeLoop", "read_step", "time_steps"]


def time_steps(x: Variable, axis: int) -> Variable:
    """int64 [1]: x.shape[axis] when the program runs."""
    return cast(slice(shape(x), [0], [axis], [axis + 1]), "int64")


def read_step(x: Variable, t: Variable) -> Variable:
    """x[t] of a time-major x ([T, ...] -> [...]), t an int [1] tensor."""
    return squeeze(gather(x, t), [0])


@contextlib.contextmanager
def _in_block(block):
    """Build into `block` (an enclosing block) for a moment, as Fluid's
    _create_array_out_of_while does: an array the loop fills must exist before it."""
    program = default_main_program()
    current = program.current_block_idx
    program.current_block_idx = block.idx
    try:
        yield
    finally:
        program.current_block_idx = current


class TimeLoop:
    """A While running its block once per step t = 0 .. steps - 1, or, given `cond` in
    place of `steps`, while the condition go_on() writes holds (see the module doc)."""

    def __init__(self, steps: Variable | None = None, cond: Variable | None = None,
                 is_test: bool = False, name: str | None = None):
        if (steps is None) == (cond is None):
            raise InvalidProgramError("TimeLoop needs either steps or a first condition")
        self.steps = steps
        self.t = fill_constant([1], "int64", 0)
        self.cond = less_than(self.t, steps) if cond is None else cond
        self._loop = While(self.cond, is_test=is_test, name=name)
        self._parent = default_main_program().current_block()
        self._arrays: list[Variable] = []
        self._inside = False
        self._go_on = None

    def carry(self, init: Variable) -> Variable:
        """A loop variable starting as a copy of `init` (built before the block)."""
        if self._inside:
            raise InvalidProgramError("TimeLoop.carry must be called before loop.block()")
        return assign(init)

    @contextlib.contextmanager
    def block(self):
        with self._loop.block():
            self._inside = True
            yield self.t
            increment(self.t, 1.0, in_place=True)
            if self.steps is not None:
                less_than(self.t, self.steps, cond=self.cond)
            elif self._go_on is None:
                raise InvalidProgramError("a TimeLoop built on a condition must say when to "
                                          "go on (loop.go_on) inside its block")
            else:
                assign(self._go_on(self.t), output=self.cond)
        self._inside = False

    def go_on(self, next_cond) -> None:
        """next_cond(t) -> a one-element bool: run another step while it holds; built at
        the end of the step, after t has moved on."""
        self._go_on = next_cond

    @staticmethod
    def update(carried: Variable, new: Variable) -> None:
        """carried = new at the end of this step."""
        if new.name != carried.name:
            assign(new, output=carried)

    def collect(self, value: Variable, index: Variable | None = None) -> None:
        """Keep value as element `index` (default: t) of an array stacked after the loop."""
        if not self._inside:
            raise InvalidProgramError("TimeLoop.collect must be called inside loop.block()")
        with _in_block(self._parent):
            array = create_array(value.dtype)
        self._arrays.append(array_write(value, self.t if index is None else index, array))

    def stacked(self) -> list[Variable]:
        """The collected values, each stacked along a new leading time dim."""
        return [tensor_array_to_tensor(a, axis=0, use_stack=True)[0] for a in self._arrays]
