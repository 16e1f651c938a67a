"""autoincreased_step_counter: the persistable step counter of Fluid 1.7's layers.nn,
which the learning-rate schedules (layers/learning_rate_scheduler.py) read.
"""

from __future__ import annotations

from paddle_ir.framework import Variable, default_main_program, default_startup_program

__all__ = ["autoincreased_step_counter"]


def autoincreased_step_counter(counter_name: str | None = None, begin: int = 1,
                               step: int = 1) -> Variable:
    """A persistable int64 [1] counter starting at begin - 1, plus `step` at each run's start.

    With step 1 the first run reads `begin` (Fluid's rule: the startup value is
    always begin - 1).
    The counter is made once per program: a second call with the same name
    returns the same variable and adds no second increment.
    """
    name = counter_name or "@STEP_COUNTER@"
    block = default_main_program().global_block()
    if block.has_var(name):
        return block.var(name)
    counter = block.create_var(name=name, shape=[1], dtype="int64", persistable=True,
                               stop_gradient=True)
    startup = default_startup_program().global_block()
    init = startup.create_var(name=name, shape=[1], dtype="int64", persistable=True)
    startup.append_op("fill_constant", outputs={"Out": init},
                      attrs={"shape": [1], "dtype": 3, "value": float(begin - 1)})
    block._prepend_op("increment", inputs={"X": counter}, outputs={"Out": counter},
                      attrs={"step": float(step)})
    return counter
