"""How the executor builds and dispatches steps (executor/steps.py, dispatch.py).

Mutation testing (docs/testing.md) left these unguarded: a fast step whose op reads
three values for the last time (only two are cleared by plain stores; the rest go
through `freeing`), and the creation site in the storage-fallback warning.
"""

import gc
import weakref

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.ops import registry
from paddle_ir.ops.registry import In, Out, register_op

SR = pir.VarType.SELECTED_ROWS


@pytest.fixture
def probes(monkeypatch):
    """register_op into a copy of the registry: the probe ops vanish after the test."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))

    def make(op_type, slots, kernel):
        op = register_op(op_type, inputs=[In(s) for s in slots], outputs=[Out("Out")])

        @op.infer_shape
        def _(ctx):
            ctx.set_output("Out", ctx.input_shape(slots[0]), ctx.input_dtype(slots[0]))

        op.kernel(dtypes=(np.float32,))(kernel)

    return make


@pytest.mark.parametrize("readers", [2, 3, 4])
def test_a_fast_step_frees_every_input_it_reads_for_the_last_time(probes, readers):
    """t_k = x * (k+1); total = sum of the t_k in one op; a later op sees them all gone."""
    slots = [f"X{k}" for k in range(readers)]
    refs = []
    seen_alive = []

    def total(attrs, *xs):
        refs[:] = [weakref.ref(v) for v in xs]
        return sum(xs)

    def watch(attrs, x):
        gc.collect()
        seen_alive.append(sum(r() is not None for r in refs))
        return x.copy()

    probes("probe_total", slots, total)
    probes("probe_watch", ["X0"], watch)
    main = pir.Program()
    block = main.global_block()
    block.create_var(name="x", shape=[-1, 3], dtype="float32")
    for n in [f"t{k}" for k in range(readers)] + ["total", "out"]:
        block.create_var(name=n, dtype="float32")
    for k in range(readers):
        block.append_op("scale", inputs={"X": ["x"]}, outputs={"Out": [f"t{k}"]},
                        attrs={"scale": float(k + 1)})
    block.append_op("probe_total", inputs={s: [f"t{k}"] for k, s in enumerate(slots)},
                    outputs={"Out": ["total"]})
    block.append_op("probe_watch", inputs={"X0": ["total"]}, outputs={"Out": ["out"]})
    x = np.ones((2, 3), np.float32)
    exe = pir.Executor()
    for _ in range(2):  # compiling run, then the cached plan
        (out,) = exe.run(main, feed={"x": x}, fetch_list=["out"])
        np.testing.assert_allclose(out, x * sum(range(1, readers + 1)))
    assert seen_alive == [0, 0]


def test_the_fallback_warning_names_where_the_op_was_created():
    main = pir.Program()
    block = main.global_block()
    block.create_var(name="x", shape=[5, 2], dtype="float32", type=SR)
    block.create_var(name="y", dtype="float32")
    block.append_op("sigmoid", inputs={"X": ["x"]}, outputs={"Out": ["y"]})
    x = pir.SelectedRows([1, 3], np.ones((2, 2), np.float32), 5)
    with pytest.warns(pir.StorageFallbackWarning) as caught:
        pir.Executor().run(main, feed={"x": x}, fetch_list=["y"])
    text = str(caught[0].message)
    assert "sigmoid has no kernel for the storage types of its inputs (X=x " in text
    assert "(op created at tests/executor/test_steps.py:" in text
    assert text.endswith(". Shown once per op type; Executor(storage_fallback='error') "
                         "makes it an error.")
    assert "converted back" not in text  # sigmoid's output is dense
