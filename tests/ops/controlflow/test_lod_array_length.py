"""lod_array_length (ops/controlflow/lod_array_length.py): Paddle's name for array_length.
Its count after a loop is tested in test_write_to_array.py."""

import numpy as np

import paddle_ir as pir
from paddle_ir import layers
from tests.ops.controlflow.paddle_array_programs import paddle_form


def test_counts_up_to_the_last_written_index():
    # Paddle 3.3.1 gave 3 for writes at 0 and 2: the gap counts, as in a vector resized.
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [-1, 2])
        arr = layers.create_array("float32")
        for k in (0, 2):
            layers.array_write(x, layers.fill_constant([1], "int64", k), arr)
        n = layers.array_length(arr)
    program = paddle_form(main)
    assert "lod_array_length" in {op.type for op in program.global_block().ops}
    assert program.global_block().var(n.name).dtype == np.int64
    # check=True checks every run's kinds; a plain Executor's second run takes the cached path
    for exe in (e for e in (pir.Executor(check=True), pir.Executor()) for _ in range(2)):
        (got,) = exe.run(program, feed={"x": np.ones((1, 2), np.float32)}, fetch_list=[n])
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, [3])
