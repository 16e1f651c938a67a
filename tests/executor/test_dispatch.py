"""Kernel selection (executor/dispatch.py): the key an op's inputs ask for, and what the
error says when no kernel serves it."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.errors import KernelNotFoundError
from paddle_ir.ops import registry
from paddle_ir.ops.registry import In, Out, register_op
from paddle_ir.ops.storage import keep_selected_rows

SPARSE = {
    "selected_rows": (pir.VarType.SELECTED_ROWS,
                      lambda: pir.SelectedRows([1], np.ones((1, 2), np.float32), 3)),
    "csr": (pir.VarType.CSR, lambda: CSRTensor.from_dense(np.eye(3, 2, dtype=np.float32))),
}


@pytest.fixture
def probe(monkeypatch):
    """A probe op with two key inputs and only dense kernels (float32 and float64), in a
    copy of the registry; optional inputs as asked."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))

    def make(op_type, dispensable=(), dtype_from=None, dtypes=(np.float32, np.float64)):
        op = register_op(op_type, inputs=[In(s, dispensable=s in dispensable)
                                          for s in ("X", "Y", "Scale")],
                         outputs=[Out("Out")], key_inputs=["X", "Y"], dtype_from=dtype_from)

        @op.infer_shape
        def _(ctx):  # the output has the kernel's dtype: its source's, float32 without one
            source = dtype_from or "X"
            ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype(source)
                           if ctx.has_input(source) else np.dtype(np.float32))

        for dtype in dtypes:
            op.kernel(dtypes=(dtype,))(
                lambda attrs, x, y, scale, dtype=dtype: (x + y).astype(dtype) * (
                    1 if scale is None else scale))
        return op

    return make


def _program(op_type, types, inputs=("X", "Y", "Scale"), dtypes=None):
    program = pir.Program()
    block = program.global_block()
    for slot in inputs:
        block.create_var(name=slot.lower(), shape=[3, 2],
                         dtype=(dtypes or {}).get(slot, "float32"),
                         type=types.get(slot, pir.VarType.LOD_TENSOR))
    block.create_var(name="out", dtype="float32")
    block.append_op(op_type, inputs={s: [s.lower()] for s in inputs}, outputs={"Out": ["out"]})
    return program


@pytest.mark.parametrize("x_kind", sorted(SPARSE))
@pytest.mark.parametrize("y_kind", sorted(SPARSE) + ["dense"])
def test_sparse_key_inputs_without_a_kernel_hint_at_cast_storage(probe, x_kind, y_kind):
    """Whatever sparse storage the key inputs hold, all of them or some, the error for an
    op without a densify fallback says to cast them to dense."""
    probe("probe_dense_pair")
    types = {"X": SPARSE[x_kind][0]}
    feed = {"x": SPARSE[x_kind][1](), "scale": np.ones((3, 2), np.float32)}
    if y_kind == "dense":
        feed["y"] = np.ones((3, 2), np.float32)
    else:
        types["Y"] = SPARSE[y_kind][0]
        feed["y"] = SPARSE[y_kind][1]()
    with pytest.raises(KernelNotFoundError, match="no kernel of probe_dense_pair") as info:
        pir.Executor().run(_program("probe_dense_pair", types), feed=feed, fetch_list=["out"])
    assert "hint: probe_dense_pair has no densify fallback for sparse inputs; cast_storage " \
           "them to dense first" in str(info.value)


def test_a_dense_key_without_a_kernel_for_its_dtype_gives_no_storage_hint(probe):
    probe("probe_f64_only", dtypes=(np.float64,))
    program = _program("probe_f64_only", {})
    feed = {n: np.ones((3, 2), np.float32) for n in ("x", "y", "scale")}
    with pytest.raises(KernelNotFoundError, match="no kernel of probe_f64_only") as info:
        pir.Executor().run(program, feed=feed, fetch_list=["out"])
    assert "cast_storage" not in str(info.value)


def test_an_absent_dtype_source_input_selects_the_float32_kernel(probe):
    """dtype_from names an optional input the op is not given: the kernel's dtype is
    float32 (Paddle's default), whatever the other inputs hold."""
    probe("probe_scaled", dispensable=("Scale",), dtype_from="Scale")
    program = _program("probe_scaled", {}, inputs=("X", "Y"),
                       dtypes={"X": "float64", "Y": "float64"})
    exe = pir.Executor()
    (out,) = exe.run(program, feed={"x": np.ones((3, 2), np.float64),
                                    "y": np.ones((3, 2), np.float64)}, fetch_list=["out"])
    assert exe.last_plan.choices[0].key.dtype == np.dtype(np.float32)
    assert out.dtype == np.float32  # the float32 kernel ran
    np.testing.assert_array_equal(out, np.full((3, 2), 2, np.float32))
    # given, the source decides
    program = _program("probe_scaled", {}, dtypes={"Scale": "float64"})
    (out,) = exe.run(program, feed={"x": np.ones((3, 2), np.float32),
                                    "y": np.ones((3, 2), np.float32),
                                    "scale": np.full((3, 2), 3, np.float64)},
                     fetch_list=["out"])
    assert exe.last_plan.choices[0].key.dtype == np.dtype(np.float64)
    np.testing.assert_array_equal(out, np.full((3, 2), 6, np.float64))


def test_an_absent_optional_key_input_selects_as_dense(probe):
    """A key input the op may leave out (here `Mask`) holds no value to give a storage type:
    it selects the dense kernel, and a sparse X still selects X's own kernel."""
    op = register_op("probe_masked", inputs=[In("X"), In("Mask", dispensable=True)],
                     outputs=[Out("Out")], key_inputs=["X", "Mask"])
    op.infer_shape(lambda ctx: ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X")))
    op.infer_var_type(keep_selected_rows())
    op.kernel(dtypes=(np.float32,))(lambda attrs, x, mask: x * 2)
    op.kernel(dtypes=(np.float32,), storage=("selected_rows", "dense"))(
        lambda attrs, x, mask: pir.SelectedRows(x.rows, x.value * 3, x.height))
    for kind, feed, want in [
            (pir.VarType.LOD_TENSOR, np.ones((3, 2), np.float32), np.full((3, 2), 2.0)),
            (pir.VarType.SELECTED_ROWS, SPARSE["selected_rows"][1](),
             [[0, 0], [3, 3], [0, 0]])]:
        program = pir.Program()
        block = program.global_block()
        block.create_var(name="x", shape=[3, 2], dtype="float32", type=kind)
        block.create_var(name="out", dtype="float32")
        block.append_op("probe_masked", inputs={"X": ["x"]}, outputs={"Out": ["out"]})
        exe = pir.Executor()
        (out,) = exe.run(program, feed={"x": feed}, fetch_list=["out"])
        assert exe.last_plan.choices[0].key.storage == (
            "dense" if kind == pir.VarType.LOD_TENSOR else "selected_rows", "dense")
        np.testing.assert_array_equal(np.asarray(out), want)


@pytest.mark.parametrize("order", [("a", "c"), ("c", "a")])
def test_a_dtype_source_slot_of_mixed_dtypes_is_refused_whatever_the_order(order):
    """einsum takes its kernel's dtype from Operands: float32 and float64 operands are
    refused as Paddle refuses them, never computed in whichever dtype comes first."""
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="a", shape=[2, 2], dtype="float32")
    block.create_var(name="c", shape=[2, 2], dtype="float64")
    block.create_var(name="o", dtype="float32")
    block.append_op("einsum", inputs={"Operands": list(order)}, outputs={"Out": ["o"]},
                    attrs={"equation": "ij,ij->ij"})
    feed = {"a": np.ones((2, 2), np.float32), "c": np.ones((2, 2), np.float64)}
    held = {"a": "a float32", "c": "c float64"}
    with pytest.raises(KernelNotFoundError, match=(
            r"einsum: the variables of Operands, whose dtype selects the kernel, must share "
            rf"one dtype; got {held[order[0]]}, {held[order[1]]}")) as info:
        pir.Executor().run(program, feed=feed, fetch_list=["o"])
    assert "op #0 einsum" in str(info.value) and "cast them to one dtype" in str(info.value)


def test_a_dtype_source_slot_of_one_dtype_selects_that_dtype():
    program = pir.Program()
    block = program.global_block()
    for n in ("a", "c"):
        block.create_var(name=n, shape=[2, 2], dtype="float64")
    block.create_var(name="o", dtype="float64")
    block.append_op("einsum", inputs={"Operands": ["a", "c"]}, outputs={"Out": ["o"]},
                    attrs={"equation": "ij,ij->ij"})
    exe = pir.Executor()
    (out,) = exe.run(program, feed={"a": np.full((2, 2), 2.0), "c": np.full((2, 2), 3.0)},
                     fetch_list=["o"])
    assert exe.last_plan.choices[0].key.dtype == np.dtype(np.float64)
    np.testing.assert_array_equal(out, np.full((2, 2), 6.0))


@pytest.mark.parametrize("kind", sorted(SPARSE))
def test_a_sparse_input_of_a_dtype_no_kernel_serves_gets_no_cast_storage_hint(probe, kind):
    """Casting to dense would not help when no dense kernel takes the dtype either: the
    error lists the kernels and gives no hint."""
    probe("probe_f64_pair", dtypes=(np.float64,))
    types = {"X": SPARSE[kind][0]}
    feed = {"x": SPARSE[kind][1](), "y": np.ones((3, 2), np.float32),
            "scale": np.ones((3, 2), np.float32)}
    with pytest.raises(KernelNotFoundError, match="no kernel of probe_f64_pair") as info:
        pir.Executor().run(_program("probe_f64_pair", types), feed=feed, fetch_list=["out"])
    assert "float64" in str(info.value) and "cast_storage" not in str(info.value)


def test_a_duplicable_slot_of_mixed_storage_selects_the_dense_kernel_on_any_hash_seed():
    """sum over [dense, SelectedRows, CSR]: the slot's storage is dense whatever order a
    set of the storage names iterates in, which the hash seed decides: checked in fresh
    interpreters under several seeds, as well as the dense result of the sum."""
    import os
    import subprocess
    import sys

    code = ("import numpy as np\n"
            "import paddle_ir as pir\n"
            "from paddle_ir.core.csr import CSRTensor\n"
            "from paddle_ir.executor.dispatch import slot_storage\n"
            "d = np.ones((3, 2), np.float32)\n"
            "sr = pir.SelectedRows([1], np.ones((1, 2), np.float32), 3)\n"
            "csr = CSRTensor.from_dense(np.eye(3, 2, dtype=np.float32))\n"
            "print(slot_storage([d, sr]), slot_storage([sr, csr]), slot_storage([sr, d, csr]),"
            " slot_storage([sr, sr]), slot_storage([]))\n")
    for seed in range(4):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env=env)
        assert proc.stdout.split() == ["dense"] * 3 + ["selected_rows", "dense"], seed
    main = pir.Program()
    block = main.global_block()
    block.create_var(name="a", shape=[3, 2], dtype="float32")
    block.create_var(name="b", shape=[3, 2], dtype="float32", type=pir.VarType.SELECTED_ROWS)
    block.create_var(name="out", dtype="float32")
    block.append_op("sum", inputs={"X": ["a", "b"]}, outputs={"Out": ["out"]})
    exe = pir.Executor()
    (out,) = exe.run(main, feed={"a": np.ones((3, 2), np.float32),
                                 "b": pir.SelectedRows([1, 1], np.ones((2, 2), np.float32), 3)},
                     fetch_list=["out"])
    assert exe.last_plan.choices[0].key.storage == ("dense",)
    np.testing.assert_array_equal(out, [[1, 1], [3, 3], [1, 1]])
