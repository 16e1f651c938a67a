"""write_to_array (ops/controlflow/write_to_array.py): Paddle's form, binding X and I only
and writing into the array Out already holds."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import PaddleIRError
from tests.ops.controlflow.paddle_array_programs import doubling_loop, paddle_form

rng = np.random.RandomState(5)


def _reference_loop(x, steps):
    arr = [x]
    for _ in range(steps):
        arr.append(arr[-1] * 2 + 1)
    return arr


@pytest.mark.parametrize("steps", [0, 1, 3])
def test_a_loop_in_paddles_form_runs_on_a_cached_plan(steps):
    main, n, last = doubling_loop(steps)
    program = paddle_form(main)
    types = {op.type for b in program.blocks for op in b.ops}
    assert {"write_to_array", "read_from_array", "lod_array_length"} <= types
    assert not types & {"array_write", "array_read", "array_length", "create_array"}
    x = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    want = _reference_loop(x, steps)
    # check=True checks every run's kinds; a plain Executor's second run takes the cached path
    for exe in (e for e in (pir.Executor(check=True), pir.Executor()) for _ in range(2)):
        got_n, got_last = exe.run(program, feed={"x": x}, fetch_list=[n, last],
                                  scope=pir.Scope())
        np.testing.assert_array_equal(got_n, [len(want)])
        np.testing.assert_allclose(got_last, want[-1], rtol=1e-6)


def test_paddles_values_for_its_own_loop():
    # PaddlePaddle 3.3.1 (legacy static mode) ran the same loop on arange(6): these values.
    main, n, last = doubling_loop(3)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    got_n, got_last = pir.Executor().run(paddle_form(main), feed={"x": x},
                                         fetch_list=[n, last])
    np.testing.assert_array_equal(got_n, [4])
    np.testing.assert_array_equal(got_last, [[7, 15, 23], [31, 39, 47]])


def _write_then_read(x_dtype="float32", lod_level=0):
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [-1, 2], dtype=x_dtype, lod_level=lod_level)
        x.stop_gradient = False
        arr = layers.create_array("float32")
        layers.array_write(x, layers.fill_constant([1], "int64", 0), arr)
        layers.array_write(x * 3.0, layers.fill_constant([1], "int64", 2), arr)
        out = layers.array_read(arr, layers.fill_constant([1], "int64", 2))
        loss = layers.reduce_sum(out * out)
    return main, out.name, loss.name


def test_the_element_keeps_its_lod():
    main, out, _ = _write_then_read(lod_level=1)
    x = pir.LoDTensor(rng.uniform(-1, 1, (5, 2)).astype(np.float32), [[0, 2, 5]])
    got = pir.Executor().run(paddle_form(main), feed={"x": x}, fetch_list=[out],
                             return_numpy=False)[0]
    assert got.lod() == [[0, 2, 5]]
    np.testing.assert_allclose(np.array(got), np.array(x) * 3, rtol=1e-6)


def test_the_gradient_matches_central_differences():
    main, _, loss = _write_then_read()
    program, forward = paddle_form(main), paddle_form(main)  # forward: the loss only
    pir.append_backward(program.global_block().var(loss))
    x = rng.uniform(-1, 1, (3, 2))
    x32 = x.astype(np.float32)
    exe = pir.Executor()
    eps = 1e-3
    numeric = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[k] += eps
        down[k] -= eps
        f_up, = exe.run(forward, feed={"x": up.astype(np.float32)}, fetch_list=[loss])
        f_down, = exe.run(forward, feed={"x": down.astype(np.float32)}, fetch_list=[loss])
        numeric[k] = (np.asarray(f_up).sum() - np.asarray(f_down).sum()) / (2 * eps)
    for _ in range(2):  # the second run reuses the plan the first cached
        (dx,) = exe.run(program, feed={"x": x32}, fetch_list=["x@GRAD"])
        np.testing.assert_allclose(dx, numeric, rtol=1e-2, atol=1e-3)
        np.testing.assert_allclose(dx, 18 * x, rtol=1e-5)  # d/dx sum((3x)^2)


def _two_writes():
    """Two writes into one array in Paddle's form, and the second write's OpDesc."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [-1, 2], dtype="float32")
        layers.data("y", [-1, 2], dtype="float64")
        arr = layers.create_array("float32")
        layers.array_write(x, layers.fill_constant([1], "int64", 0), arr)
        layers.array_write(x, layers.fill_constant([1], "int64", 1), arr)
        n = layers.array_length(arr)
    program = paddle_form(main)
    second = [op for op in program.desc.blocks[0].ops if op.type == "write_to_array"][1]
    return program, second, n.name


def _bind(op, slot, name):
    next(v for v in op.inputs if v.parameter == slot).arguments[:] = [name]


def test_an_element_of_another_dtype_is_refused():
    program, second, n = _two_writes()
    _bind(second, "X", "y")  # float64 into the float32 array
    feed = {"x": np.ones((1, 2), np.float32), "y": np.ones((1, 2))}
    with pytest.raises(PaddleIRError, match="write_to_array: X \\('y'\\) has dtype float64, "
                                            "but the array .* holds float32"):
        pir.Executor().run(pir.Program.from_desc(program.desc), feed=feed, fetch_list=[n])


def test_an_out_holding_a_tensor_is_refused():
    program, second, n = _two_writes()
    for op in program.desc.blocks[0].ops:  # every write targets y, a tensor, not an array
        if op.type == "write_to_array":
            next(v for v in op.outputs if v.parameter == "Out").arguments[:] = ["y"]
    feed = {"x": np.ones((1, 2), np.float32), "y": np.ones((1, 2))}
    # y is declared a LOD_TENSOR: the array written into it is refused, naming both
    with pytest.raises(PaddleIRError, match="write_to_array .*\\n.*the kernel of write_to_array "
                                            "wrote 'y' as LOD_TENSOR_ARRAY, but the program "
                                            "declares it LOD_TENSOR"):
        pir.Executor().run(pir.Program.from_desc(program.desc), feed=feed, fetch_list=["y"])
