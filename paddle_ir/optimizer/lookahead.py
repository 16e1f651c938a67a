"""Fluid 1.x's `fluid.optimizer.LookaheadOptimizer` (Zhang et al., "Lookahead Optimizer:
k steps forward, 1 step back").

    opt = fluid.optimizer.LookaheadOptimizer(fluid.optimizer.SGD(0.1), alpha=0.5, k=5)
    opt.minimize(loss)

The inner optimizer updates the (fast) parameters every step. Each parameter has a
persistable slow copy `{param}@SLOW`. With the step counter t = 1, 2, ... (Fluid's
`@lookahead_step`), after the inner update:

    t == 1:        slow = fast
    t % k == 0:    slow = fast = alpha * fast + (1 - alpha) * slow
    otherwise:     nothing

built as Fluid builds it, with a `Switch` over the counter.
"""

from __future__ import annotations

from paddle_ir import layers
from paddle_ir.framework import default_startup_program, program_guard

__all__ = ["LookaheadOptimizer"]


class LookaheadOptimizer:
    def __init__(self, inner_optimizer, alpha: float = 0.5, k: int = 5):
        if inner_optimizer is None:
            raise ValueError("LookaheadOptimizer: inner_optimizer must be an optimizer")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"LookaheadOptimizer: alpha must be in [0, 1], got {alpha}")
        if not isinstance(k, int) or isinstance(k, bool) or k <= 0:
            raise ValueError(f"LookaheadOptimizer: k must be a positive integer, got {k!r}")
        self.inner_optimizer = inner_optimizer
        self.alpha, self.k = float(alpha), k
        self.type = "lookahead"

    def minimize(self, loss, startup_program=None):
        """The inner optimizer's minimize, then the slow-weight ops; returns its result."""
        startup = startup_program or default_startup_program()
        result = self.inner_optimizer.minimize(loss, startup_program=startup)
        main = loss.block.program
        params = [p for p in main.global_block().all_parameters() if p.trainable]
        with program_guard(main, startup):
            slow = {p.name: self._slow_copy(main, startup, p) for p in params}
            step = layers.autoincreased_step_counter(counter_name="@lookahead_step", begin=1)
            k = layers.fill_constant([1], "int64", self.k)
            one = layers.fill_constant([1], "int64", 1)
            zero = layers.fill_constant([1], "int64", 0)
            mod = layers.elementwise_mod(step, k)
            with layers.Switch() as switch:
                with switch.case(layers.equal(step, one)):
                    for p in params:
                        layers.assign(p, output=slow[p.name])
                with switch.case(layers.equal(mod, zero)):
                    for p in params:
                        mixed = p * self.alpha + slow[p.name] * (1.0 - self.alpha)
                        layers.assign(mixed, output=slow[p.name])
                        layers.assign(mixed, output=p)
        return result

    @staticmethod
    def _slow_copy(main, startup, param):
        """`{param}@SLOW`, persistable, set to the parameter's initial value at startup."""
        name = f"{param.name}@SLOW"
        var = main.global_block().create_var(name=name, shape=list(param.shape),
                                             dtype=param.dtype, persistable=True,
                                             stop_gradient=True)
        block = startup.global_block()
        init = block.create_var(name=name, shape=list(param.shape), dtype=param.dtype,
                                persistable=True)
        block.append_op("assign", inputs={"X": block.var(param.name)}, outputs={"Out": init})
        return var
