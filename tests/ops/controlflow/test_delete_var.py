"""delete_var (ops/controlflow/delete_var.py): a local variable's value is dropped, a
persistable (held by the run's scope) is not, as Paddle's Scope::EraseVars does."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import PaddleIRError


def _program(read_after: bool):
    """y = 2x; z = 3y + w; delete_var(y, w) (w persistable); w again (Paddle finds it in
    the outer scope); then, if asked, y again."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [-1, 2])
        w = layers.create_parameter([2], "float32", name="w",
                                    default_initializer=pir.initializer.Constant(0.5))
        y = layers.scale(x, 2.0)
        z = layers.elementwise_add(layers.scale(y, 3.0), w)
        main.global_block().append_op(type="delete_var", inputs={"X": [y, w]})
        w_after = layers.scale(w, 4.0)
        after = layers.scale(y, 1.0) if read_after else None
    return main, startup, (z, w_after), after


def test_values_after_the_last_use_are_unchanged_and_the_persistable_survives():
    main, startup, fetch, _ = _program(read_after=False)
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    x = np.random.RandomState(1).uniform(-1, 1, (3, 2)).astype(np.float32)
    # check=True checks every run's kinds; a plain Executor's second run takes the cached path
    for exe in (e for e in (pir.Executor(check=True), pir.Executor()) for _ in range(2)):
        got, w_after = exe.run(main, feed={"x": x}, fetch_list=list(fetch), scope=scope)
        np.testing.assert_allclose(got, 6 * x + 0.5, rtol=1e-6)
        np.testing.assert_array_equal(w_after, [2.0, 2.0])
        np.testing.assert_array_equal(np.array(scope.find_var("w").get_tensor()), [0.5, 0.5])


def test_a_read_after_the_delete_is_an_error_naming_the_variable():
    main, startup, _, after = _program(read_after=True)
    scope, exe = pir.Scope(), pir.Executor()
    exe.run(startup, scope=scope)
    with pytest.raises(PaddleIRError, match="op #\\d+ scale .*\\n.*input X reads "
                                            "'scale_\\d+.tmp_0', which has no value"):
        exe.run(main, feed={"x": np.ones((1, 2), np.float32)}, fetch_list=[after], scope=scope)
