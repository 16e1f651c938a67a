"""Where the executor finds the builder's default main program, for `Executor.run()`.

The executor and the builder (`paddle_ir.framework`) are independent siblings
above the operators: neither imports the other. `Executor.run(program=None)`
still runs Fluid's default main program, so the builder registers how to get
it here when it loads, and the executor asks here. The slot holds a function,
not a program, because `program_guard` switches the default program.
"""

from __future__ import annotations

from collections.abc import Callable

from paddle_ir.core.errors import PaddleIRError

_source: Callable[[], object] | None = None


def set_default_main_program_source(source: Callable[[], object]) -> None:
    """Called once by paddle_ir.framework: `source()` returns the current default program."""
    global _source
    _source = source


def default_main_program() -> object:
    """The builder's current default main program."""
    if _source is None:  # only when the executor is used without the builder loaded
        raise PaddleIRError("Executor.run() without a program needs paddle_ir.framework's "
                            "default main program; import paddle_ir, or pass program=")
    return _source()
