"""read_from_array (ops/controlflow/read_from_array.py): Paddle's name for array_read.
Its run inside a loop and its gradient are tested in test_write_to_array.py."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import PaddleIRError
from tests.ops.controlflow.paddle_array_programs import paddle_form


def _read(written, index):
    """Write x * (k + 1) at each index k in `written`, then read `index`."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [-1, 2], dtype="float64")
        arr = layers.create_array("float64")
        for k in written:
            layers.array_write(x * float(k + 1), layers.fill_constant([1], "int64", k), arr)
        out = layers.array_read(arr, layers.fill_constant([1], "int32", index))
    return paddle_form(main), out.name


def test_reads_the_element_at_the_index():
    program, out = _read([0, 3], 3)
    assert "read_from_array" in {op.type for op in program.global_block().ops}
    x = np.random.RandomState(2).uniform(-1, 1, (3, 2))
    # check=True checks every run's kinds; a plain Executor's second run takes the cached path
    for exe in (e for e in (pir.Executor(check=True), pir.Executor()) for _ in range(2)):
        (got,) = exe.run(program, feed={"x": x}, fetch_list=[out])
        np.testing.assert_array_equal(got, x * 4.0)


@pytest.mark.parametrize("index, held", [(1, 4), (5, 4)])
def test_an_element_never_written_is_an_error(index, held):
    # Paddle leaves Out as it was here (a stale or empty value); paddle-ir says so instead.
    program, out = _read([0, 3], index)
    with pytest.raises(PaddleIRError, match=f"read_from_array: element {index} of the array "
                                            f"has not been written \\(the array holds {held}"):
        pir.Executor().run(program, feed={"x": np.ones((1, 2))}, fetch_list=[out])
