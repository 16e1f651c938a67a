"""tensor_array_to_tensor (with its gradient through a loop) and load."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.tensor_io import serialize_lod_tensor

rng = np.random.RandomState(47)


@pytest.mark.parametrize("use_stack", [False, True])
def test_tensor_array_to_tensor_and_grad(use_stack):
    xs = [rng.uniform(-1, 1, (2, 3)).astype(np.float32) for _ in range(3)]
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        arr = layers.create_array("float32")
        vars_ = []
        for k in range(3):
            x = layers.data(f"x{k}", [-1, 3])
            x.stop_gradient = False
            vars_.append(x)
            layers.array_write(x * float(k + 1), layers.fill_constant([1], "int64", k), arr)
        out, index = layers.tensor_array_to_tensor(arr, axis=1, use_stack=use_stack)
        loss = layers.reduce_sum(out)
        pir.append_backward(loss)
    exe = pir.Executor()
    exe.run(startup)
    feed = {f"x{k}": xs[k] for k in range(3)}
    o, idx, *grads = exe.run(main, feed=feed, fetch_list=[out, index] + [f"x{k}@GRAD"
                                                                          for k in range(3)])
    scaled = [x * (k + 1) for k, x in enumerate(xs)]
    want = np.stack(scaled, 1) if use_stack else np.concatenate(scaled, 1)
    np.testing.assert_allclose(o, want, rtol=1e-6)
    np.testing.assert_array_equal(idx, [1, 1, 1] if use_stack else [3, 3, 3])
    for k, g in enumerate(grads):
        np.testing.assert_allclose(g, np.full((2, 3), k + 1.0))


def test_load_reads_a_tensor_file(tmp_path):
    t = LoDTensor(rng.uniform(-1, 1, (5, 2)).astype(np.float32))
    t.set_recursive_sequence_lengths([[2, 3]])
    path = tmp_path / "t.bin"
    path.write_bytes(serialize_lod_tensor(t))
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        out = main.global_block().create_var(name="loaded", dtype="float32")
        layers.load(out, str(path))
        half = main.global_block().create_var(name="half", dtype="float16")
        layers.load(half, str(path), load_as_fp16=True)
    (v, h) = pir.Executor().run(main, fetch_list=[out, half], return_numpy=False)
    np.testing.assert_array_equal(v.numpy(), t.numpy())
    assert v.recursive_sequence_lengths() == [[2, 3]] and h.numpy().dtype == np.float16
    with pir.program_guard(main2 := pir.Program(), pir.Program()):
        layers.load(main2.global_block().create_var(name="x", dtype="float32"),
                    str(tmp_path / "missing.bin"))
    with pytest.raises(PaddleIRError, match="load: no file"):
        pir.Executor().run(main2, fetch_list=["x"])
