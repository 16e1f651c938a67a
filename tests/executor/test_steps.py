"""How the executor builds and dispatches steps (executor/steps.py, dispatch.py).

Mutation testing (docs/testing.md) left these unguarded: a fast step whose op reads
three values for the last time (only two are cleared by plain stores; the rest go
through `freeing`), and the creation site in the storage-fallback warning.
"""

import gc
import tracemalloc
import warnings
import weakref

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError
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


def _program_reading(slots, outputs=("out",), shape=(-1, 2)):
    """Variables x_k for the slots of a probe op, and `outputs`; the ops are the test's."""
    main = pir.Program()
    block = main.global_block()
    for k in range(len(slots)):
        block.create_var(name=f"x{k}", shape=list(shape), dtype="float32")
    for n in outputs:
        block.create_var(name=n, dtype="float32")
    return main, block


@pytest.mark.parametrize("arity", [1, 2, 3, 4])
def test_a_fast_step_of_any_arity_checks_its_kernel_s_result(probes, arity):
    """Whatever number of inputs the fast step spells out, a numpy scalar becomes a 0-D
    array and any other class is the kernel's error, on the compiling run and on a cached
    one (one cached step per arity)."""
    slots = [f"X{k}" for k in range(arity)]
    probes("probe_scalar", slots, lambda attrs, *xs: np.float32(sum(x.sum() for x in xs)))
    probes("probe_listing", slots, lambda attrs, *xs: [x.item() for x in xs])
    for op_type in ("probe_scalar", "probe_listing"):
        main, block = _program_reading(slots, shape=())
        block.append_op(op_type, inputs={s: [f"x{k}"] for k, s in enumerate(slots)},
                        outputs={"Out": ["out"]})
        feed = {f"x{k}": np.array(k + 1, np.float32) for k in range(arity)}
        exe = pir.Executor()
        for _ in range(2):
            if op_type == "probe_listing":
                with pytest.raises(KernelError, match=r"the kernel of probe_listing returned "
                                                          r"a list for 'out', but var-type "
                                                          r"inference declared ndarray"):
                    exe.run(main, feed=feed, fetch_list=["out"])
            else:
                (out,) = exe.run(main, feed=feed, fetch_list=["out"])
                assert isinstance(out, np.ndarray) and out.shape == ()
                assert out == sum(range(1, arity + 1))


@pytest.mark.parametrize("dtype", [np.float32, np.complex128, np.clongdouble, "U8", "V24",
                                   object])
def test_a_shape_only_stand_in_keeps_shape_and_dtype_and_holds_no_data(dtype):
    """What a no_need_buffer reader gets once the data is released: for every dtype,
    also those wider than the shared zero buffer (long double complex, strings, raw
    bytes) and object arrays, whose items must not be made from raw bytes."""
    from paddle_ir.executor.steps import shape_only

    value = np.zeros((3, 4), dtype=dtype)
    stand_in = shape_only(value)
    assert stand_in.__class__ is np.ndarray
    assert stand_in.shape == (3, 4) and stand_in.dtype == np.dtype(dtype)
    assert stand_in.strides == (0, 0) and not stand_in.flags.writeable
    assert np.shares_memory(stand_in, value) is False
    assert stand_in.tolist() == value.tolist()  # zeros (0, '', b'', 0j), never garbage


def test_a_general_step_passes_none_for_an_absent_dispensable_input(monkeypatch):
    """An op taking the general step (two outputs) with its optional Bias left out: the
    kernel gets None in Bias's place and the inputs after it where they belong."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    op = register_op("probe_affine", inputs=[In("X"), In("Bias", dispensable=True), In("Y")],
                     outputs=[Out("Out"), Out("Twice")])

    @op.infer_shape
    def _(ctx):
        for slot in ("Out", "Twice"):
            ctx.set_output(slot, ctx.input_shape("X"), ctx.input_dtype("X"))

    def affine(attrs, x, bias, y):
        out = x * y if bias is None else x * y + bias
        return out, 2 * out

    op.kernel(dtypes=(np.float32,))(affine)
    main, block = _program_reading(["X", "Y"], outputs=("out", "twice"))
    block.append_op("probe_affine", inputs={"X": ["x0"], "Y": ["x1"]},
                    outputs={"Out": ["out"], "Twice": ["twice"]})
    x, y = np.array([[1, 2]], np.float32), np.array([[3, 4]], np.float32)
    exe = pir.Executor()
    for _ in range(2):
        out, twice = exe.run(main, feed={"x0": x, "x1": y}, fetch_list=["out", "twice"])
        np.testing.assert_array_equal(out, [[3, 8]])
        np.testing.assert_array_equal(twice, [[6, 16]])


@pytest.mark.parametrize("outputs", [1, 2])
def test_an_op_whose_outputs_are_all_unbound_still_runs_its_kernel(monkeypatch, outputs):
    """Every output slot optional and none bound (an op kept for its effect): the kernel
    runs on each run and its values are dropped."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    slots = [f"Out{k}" for k in range(outputs)]
    op = register_op("probe_effect", inputs=[In("X")],
                     outputs=[Out(s, dispensable=True) for s in slots])

    @op.infer_shape
    def _(ctx):
        pass

    seen = []

    def effect(attrs, x):
        seen.append(float(x.sum()))
        return x if outputs == 1 else (x, x)

    op.kernel(dtypes=(np.float32,))(effect)
    main, block = _program_reading(["X"], outputs=("y",))
    block.append_op("probe_effect", inputs={"X": ["x0"]}, outputs={})
    block.append_op("scale", inputs={"X": ["x0"]}, outputs={"Out": ["y"]}, attrs={"scale": 3.0})
    exe = pir.Executor()
    for _ in range(2):
        (y,) = exe.run(main, feed={"x0": np.ones((2, 2), np.float32)}, fetch_list=["y"])
        np.testing.assert_array_equal(y, np.full((2, 2), 3, np.float32))
    assert seen == [4.0, 4.0]


def _chain_program(dtype, ops):
    """x -> op -> op ... fed x [2, 3] and y (shape by op), fetching every result."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        h = pir.layers.data("x", [2, 3], dtype=dtype, append_batch_size=False)
        outs = []
        for kind, arg in ops:
            if kind == "scale":
                h = pir.layers.scale(h, arg[0], bias=arg[1])
            else:
                y = pir.layers.data(f"y{len(outs)}", arg[1], dtype=dtype,
                                    append_batch_size=False)
                h = getattr(pir.layers, kind)(h, y, axis=arg[0])
            outs.append(h)
    return main, outs


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_direct_steps_compute_what_the_kernels_compute(dtype):
    """scale without bias (float X) and elementwise ops with axis -1 (not division) run as
    numpy calls straight from the step; the others through their kernels. Each result
    equals the numpy arithmetic of the op's formula, on the first (compiling) run and on
    the cached plan's runs."""
    ops = [("scale", (1.5, 0.0)), ("elementwise_add", (-1, [3])),
           ("scale", (2.0, 0.25)), ("elementwise_mul", (-1, [2, 3])),
           ("elementwise_sub", (0, [2])), ("elementwise_div", (-1, [3]))]
    main, outs = _chain_program(dtype, ops)
    rng = np.random.default_rng(3)
    feeds = {"x": (rng.random((2, 3)) * 4 + 1).astype(dtype)}
    for k, (kind, arg) in enumerate(ops):
        if kind != "scale":
            feeds[f"y{k}"] = (rng.random(arg[1]) * 3 + 1).astype(dtype)
    want, h = [], feeds["x"]
    for k, (kind, arg) in enumerate(ops):
        if kind == "scale":
            s, b = arg
            if np.dtype(dtype).kind == "i":  # Paddle's integer kernel casts scale and bias to T
                s, b = int(s), int(b)
            h = (h * s if b == 0 else h * s + b).astype(dtype)
        else:
            y = feeds[f"y{k}"]
            y = y.reshape(2, 1) if arg[0] == 0 else y
            if kind == "elementwise_div" and np.dtype(dtype).kind == "i":
                q = np.abs(h) // np.abs(y)  # truncating integer division
                h = (np.sign(h) * np.sign(y) * q).astype(dtype)
            else:
                h = {"elementwise_add": np.add, "elementwise_mul": np.multiply,
                     "elementwise_sub": np.subtract, "elementwise_div": np.divide}[kind](h, y)
        want.append(h)
    exe = pir.Executor()
    for _ in range(3):
        got = exe.run(main, feed=feeds, fetch_list=outs)
        for g, w in zip(got, want, strict=True):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
    direct = ["direct_step" in step.__qualname__ for step in exe.last_plan.steps]
    float_x = np.dtype(dtype).kind == "f"
    assert direct == [float_x, True, False, True, False, False]


def test_a_direct_step_calls_the_kernel_when_its_input_changes_dtype():
    from paddle_ir.executor.steps import direct_step

    calls = []

    def kernel(attrs, x):
        calls.append(x.dtype)
        return (x * attrs["scale"]).astype(np.int64)

    step = direct_step(kernel, {"scale": 2.0}, (np.multiply, (2.0,), np.dtype(np.float32)),
                       [2], 3, np.ndarray, "scale", "out")
    env = [None, None, np.ones(2, np.float32), None]
    step(env, None)
    assert calls == [] and env[3].dtype == np.float32
    env[2] = np.ones(2, np.int32)
    step(env, None)
    assert calls == [np.int32] and env[3].dtype == np.int64
def test_a_chain_of_one_input_ops_keeps_two_intermediates_alive_at_most():
    """Each step of a one-input op frees the value it read for the last time: along
    x -> a -> b -> c -> d only the value read and the value written are alive (8 MB of
    4 MB arrays), not every intermediate (16 MB)."""
    main = pir.Program()
    block = main.global_block()
    names = ["x", "a", "b", "c", "d"]
    for n in names:
        block.create_var(name=n, shape=[-1, 1000], dtype="float32")
    for src, dst in zip(names, names[1:], strict=False):
        block.append_op("relu", inputs={"X": [src]}, outputs={"Out": [dst]})
    x = np.ones((1000, 1000), np.float32)
    exe = pir.Executor()
    exe.run(main, feed={"x": x}, fetch_list=["d"])  # compile; measure a cached run
    tracemalloc.start()  # numpy reports its data allocations to tracemalloc
    try:
        base = tracemalloc.get_traced_memory()[0]
        (d,) = exe.run(main, feed={"x": x}, fetch_list=["d"])
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert np.asarray(d).shape == (1000, 1000) and float(np.asarray(d).max()) == 1.0
    assert peak < 2.5 * x.nbytes, f"peak {peak / x.nbytes:.2f} x 4 MB"


# -- each step kind frees what it reads last, and last_reads says what that is (issue 30) ----
@pytest.mark.parametrize("arity", [1, 2, 3, 4])
def test_a_fast_step_frees_exactly_the_inputs_it_was_given_as_dead(arity):
    """Every arity (each spells its call out) with none, one, two or all of its inputs read
    for the last time: those slots are cleared after the kernel ran, the others keep their
    values, and slot 0 (ABSENT, where unused dead stores go) stays None."""
    from paddle_ir.executor.steps import ABSENT, fast_step

    ins = list(range(2, 2 + arity))
    out = 2 + arity
    for count in sorted({0, 1, min(2, arity), arity}):
        env = [None, None] + [np.full(2, k + 1.0, np.float32) for k in range(arity)] + [None]
        dead = tuple(ins[arity - count:])
        step = fast_step(lambda attrs, *xs: sum(xs), {}, ins, out, np.ndarray, "probe", "out",
                         dead)
        step(env, None)
        np.testing.assert_array_equal(env[out], np.full(2, arity * (arity + 1) / 2))
        assert [env[i] is None for i in ins] == [i in dead for i in ins], (arity, count)
        assert env[ABSENT] is None


@pytest.mark.parametrize("consts", [(), (3.0,)])
def test_a_direct_step_frees_the_inputs_it_was_given_as_dead(consts):
    from paddle_ir.executor.steps import direct_step

    ins = [2, 3] if not consts else [2]
    for dead in ((), tuple(ins[:1]), tuple(ins)):
        env = [None, None, np.full(2, 2.0), np.full(2, 5.0), None]
        step = direct_step(lambda attrs, *xs: None, {}, (np.multiply, consts, None), ins, 4,
                           np.ndarray, "probe", "out", dead)
        step(env, None)
        np.testing.assert_array_equal(env[4], [10.0, 10.0] if not consts else [6.0, 6.0])
        assert [env[i] is None for i in ins] == [i in dead for i in ins]


def test_freeing_clears_the_dead_and_hollows_out_what_later_ops_read_the_shape_of():
    from paddle_ir.executor.steps import freeing

    def step(env, lods):
        env[4] = env[2] + env[3]

    assert freeing(step, ()) is step  # nothing to free: the step itself
    env = [None, None, np.ones((2, 3), np.float32), np.ones((2, 3), np.float32), None]
    freeing(step, (2,), (3,))(env, None)
    assert env[2] is None and env[4].sum() == 12
    hollow = env[3]
    assert hollow.shape == (2, 3) and hollow.dtype == np.float32 and hollow.strides == (0, 0)


def _block(*ops):
    """A BlockDesc of (type, inputs, outputs[, attrs]) ops, slots given as {slot: [names]}."""
    from paddle_ir.proto import framework_pb2 as pb

    block = pb.BlockDesc(idx=0, parent_idx=-1)
    for op in ops:
        desc = block.ops.add(type=op[0])
        for field, slots in ((desc.inputs, op[1]), (desc.outputs, op[2])):
            for slot, names in slots.items():
                field.add(parameter=slot, arguments=names)
        for attr in op[3] if len(op) > 3 else ():
            desc.attrs.add(**attr)
    return block


def test_last_reads_frees_each_value_after_its_last_reader_unless_it_is_kept():
    from paddle_ir.executor.steps import last_reads

    block = _block(("scale", {"X": ["x"]}, {"Out": ["a"]}),
                   ("elementwise_add", {"X": ["a"], "Y": ["x"]}, {"Out": ["b"]}),
                   ("relu", {"X": ["b"]}, {"Out": ["c"]}))
    dead, hollow = last_reads(block, set(), False)
    assert [sorted(d) for d in dead] == [[], ["a", "x"], ["b"]] and hollow == [[], [], []]
    dead, _ = last_reads(block, {"x"}, False)  # a fetch target or a value outliving the run
    assert dead == [[], ["a"], ["b"]]
    # a step scope kept for the backward pass keeps every value an op writes
    dead, _ = last_reads(block, set(), True)
    assert dead == [[], ["x"], []]


def test_a_value_written_after_it_was_read_dies_with_the_write_not_at_the_read():
    from paddle_ir.executor.steps import last_reads

    # x is read by op 0 and then overwritten by op 1: op 0's read is not the last read of
    # the value op 2 reads, so nothing frees x before op 2 has read the new one
    block = _block(("scale", {"X": ["x"]}, {"Out": ["a"]}),
                   ("scale", {"X": ["a"]}, {"Out": ["x"]}),
                   ("relu", {"X": ["x"]}, {"Out": ["c"]}))
    dead, _ = last_reads(block, set(), False)
    assert dead == [[], ["a"], ["x"]]


def test_a_value_whose_later_readers_need_only_its_shape_is_hollowed_after_its_last_data_read():
    from paddle_ir.executor.steps import last_reads

    # is_empty reads only X's shape (no_need_buffer): x's data is read last by op 0
    block = _block(("relu", {"X": ["x"]}, {"Out": ["a"]}),
                   ("is_empty", {"X": ["x"]}, {"Out": ["e"]}),
                   ("is_empty", {"X": ["a"]}, {"Out": ["f"]}))
    dead, hollow = last_reads(block, set(), False)
    assert dead == [[], ["x"], ["a"]]
    assert hollow == [["x"], [], []]  # a: its only reader reads the shape, so nothing to hollow


def test_a_block_with_control_flow_or_an_unknown_op_frees_nothing():
    """Sub-blocks read the frame by name, and an op the registry does not know may read
    anything: such a block keeps every value to the end of the run."""
    from paddle_ir.executor.steps import last_reads
    from paddle_ir.proto import framework_pb2 as pb

    plain = ("scale", {"X": ["x"]}, {"Out": ["a"]})
    sub_block = {"name": "sub_block", "type": pb.BLOCK, "block_idx": 1}
    for odd in [("no_such_op_type", {"X": ["a"]}, {"Out": ["b"]}),
                ("conditional_block", {"Cond": ["a"], "Input": ["x"]}, {"Out": ["b"]},
                 [sub_block]),
                ("scale", {"X": ["a"]}, {"Out": ["b"]}, [sub_block])]:
        dead, hollow = last_reads(_block(plain, odd), set(), False)
        assert dead == [[], []] and hollow == [[], []], odd[0]


def test_a_shape_only_stand_in_is_made_only_from_an_array_holding_data():
    """Sparse values are kept whole, a 0-D array has no data worth freeing, and a stand-in
    (zero strides) is one already: each comes back as it is."""
    from paddle_ir.executor.steps import shape_only

    sparse = pir.SelectedRows([1], np.ones((1, 2), np.float32), 3)
    scalar = np.array(2.5, np.float32)
    stand_in = shape_only(np.ones((4, 2), np.float64))
    for value in (sparse, scalar, stand_in):
        assert shape_only(value) is value
    # a broadcast row (zero strides in one dim only) still holds data: it is replaced
    row = np.broadcast_to(np.arange(3, dtype=np.float32), (2, 3))
    assert shape_only(row) is not row and shape_only(row).strides == (0, 0)


def test_a_sparse_gradient_may_sit_in_a_lod_tensor_declared_gradient_and_nothing_else_may():
    from paddle_ir.executor.steps import wrong_kind

    lod, sr = pir.VarType.LOD_TENSOR, pir.VarType.SELECTED_ROWS
    sparse = pir.SelectedRows([0], np.ones((1, 2), np.float32), 2)
    dense = np.ones((2, 2), np.float32)
    assert not wrong_kind("w@GRAD", sparse, lod)  # a storage choice of the gradient
    assert wrong_kind("w", sparse, lod)  # not a gradient: it must be what it is declared
    assert wrong_kind("w@GRAD", dense, sr)  # declared sparse: a dense value is wrong
    assert not wrong_kind("w", dense, lod) and not wrong_kind("w", sparse, sr)
    assert not wrong_kind("w", [dense], None)  # a type no class is listed for: unchecked


@pytest.mark.parametrize("ins, consts, dtype", [
    ([2, 3], (3.0,), None),            # two inputs and a constant
    ([2], (), None),                   # one input, no constant
    ([2, 3], (), np.dtype(np.float64)),  # two inputs, but only for one dtype
    ([2, 3, 4], (), None),             # three inputs
    ([2], (3.0, 4.0), None),           # one input and two constants
    ([], (3.0,), None),                # no input
])
def test_a_direct_form_the_step_has_no_call_for_runs_the_kernel_instead(ins, consts, dtype):
    """direct_step spells out two forms: f(x, y) for any dtype, and f(x, c) for one dtype.
    A kernel offering another form gets the plain fast step: its own result, never
    `func`'s, and the values it was given as dead are freed as usual."""
    from paddle_ir.executor.steps import direct_step

    def kernel(attrs, *xs):
        return sum(xs, np.zeros(2)) + 100.0

    env = [None, None, np.full(2, 1.0), np.full(2, 2.0), np.full(2, 4.0), None]
    step = direct_step(kernel, {}, (np.multiply, consts, dtype), ins, 5, np.ndarray, "probe",
                       "out", tuple(ins[:1]))
    step(env, None)
    np.testing.assert_array_equal(env[5], np.full(2, sum(2.0 ** (i - 2) for i in ins)) + 100)
    assert all(env[i] is None for i in ins[:1]) and all(env[i] is not None for i in ins[1:])


def test_a_general_step_checks_each_output_s_class(monkeypatch):
    """Two outputs take the general step: a numpy scalar for either becomes a 0-D array, any
    other class is the kernel's error naming that output, on compiling and cached runs."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    op = register_op("probe_pair", inputs=[In("X")], outputs=[Out("Out"), Out("Total")])

    @op.infer_shape
    def _(ctx):
        ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
        ctx.set_output("Total", (), ctx.input_dtype("X"))

    second = {"value": None}
    op.kernel(dtypes=(np.float32,))(lambda attrs, x: (x * 2, second["value"](x)))
    main, block = _program_reading(["X"], outputs=("out", "total"))
    block.append_op("probe_pair", inputs={"X": ["x0"]},
                    outputs={"Out": ["out"], "Total": ["total"]})
    feed = {"x0": np.array([[1, 2]], np.float32)}
    second["value"] = lambda x: np.float32(x.sum())
    exe = pir.Executor()
    for _ in range(2):
        out, total = exe.run(main, feed=feed, fetch_list=["out", "total"])
        assert isinstance(total, np.ndarray) and total.shape == () and total == 3
        np.testing.assert_array_equal(out, [[2, 4]])
    second["value"] = lambda x: x.tolist()
    for runner in (exe, pir.Executor()):  # the cached plan's step, then a compiling run
        with pytest.raises(KernelError, match=r"the kernel of probe_pair returned a list for "
                                              r"'total', but var-type inference declared "
                                              r"ndarray"):
            runner.run(main, feed=feed, fetch_list=["out", "total"])


def test_a_kernel_returning_fewer_values_than_its_op_has_outputs_is_a_kernel_error(
        monkeypatch):
    """Out bound, Extra left unbound: the step drops the unbound slot's value by position,
    so a kernel returning one value for two outputs must fail naming the op, not have its
    one value taken for Out."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    op = register_op("probe_short", inputs=[In("X")],
                     outputs=[Out("Out"), Out("Extra", dispensable=True)])

    @op.infer_shape
    def _(ctx):
        ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))

    op.kernel(dtypes=(np.float32,))(lambda attrs, x: (x * 2,))
    main, block = _program_reading(["X"], outputs=("out",))
    block.append_op("probe_short", inputs={"X": ["x0"]}, outputs={"Out": ["out"]})
    with pytest.raises(KernelError, match=r"(?s)probe_short.*ValueError: zip\(\) argument 2 "
                                          r"is longer than argument 1"):
        pir.Executor().run(main, feed={"x0": np.ones((1, 2), np.float32)}, fetch_list=["out"])


# --- each behaviour of steps.py, from its functions read one by one (issue 30) ---------------


def test_only_a_dense_output_turns_a_numpy_scalar_into_an_array():
    """bad_output: a numpy scalar where an ndarray is expected becomes a 0-D array of its
    dtype; where a SelectedRows (or anything else) is expected it is the kernel's error."""
    from paddle_ir.executor.steps import bad_output

    got = bad_output("probe", "out", np.float64(2.5), np.ndarray)
    assert got.__class__ is np.ndarray and got.shape == () and got.dtype == np.float64
    assert got == 2.5
    for expected, name in ((pir.SelectedRows, "SelectedRows"), (list, "list")):
        with pytest.raises(KernelError) as info:
            bad_output("probe", "out", np.float32(1), expected)
        assert info.value.message == (f"the kernel of probe returned a float32 for 'out', but "
                                      f"var-type inference declared {name}")
        assert info.value.op.op_type == "probe" and info.value.op.op_idx is None


def test_a_kernel_s_own_exception_becomes_a_kernel_error_with_its_inputs_shapes():
    """kernel_failure: the original exception's type and text, the op's location with the
    shape of each input that has one (not of an input without a value or a shape)."""
    from paddle_ir.core.errors import OpLocation
    from paddle_ir.executor.steps import kernel_failure

    index = {"a": 2, "b": 3, "c": 4, "out": 5}
    env = [None, None, np.ones((2, 3)), None, 1.5, np.ones(4)]
    made = []

    def location():
        made.append(OpLocation("probe", 0, 7, {"X": ["a"], "Y": ["b", "c"]}, {"Out": ["out"]}))
        return made[-1]

    error = kernel_failure(IndexError("index 9 is out of bounds"), location, env, index)
    assert error.__class__ is KernelError and error.message == "IndexError: index 9 is out of " \
                                                               "bounds"
    assert error.op is made[0] and error.op.shapes == {"a": (2, 3)}
    assert "block 0, op #7 probe (X=a[2, 3], Y=b, c -> Out=out)" in str(error)


def test_a_control_step_passes_its_frame_and_each_input_slot_s_values():
    """control_step: the kernel gets a ControlContext over the frame (its scope reads and
    writes the frame's slots, the run's context from slot 1) and, per input slot, None
    for an absent one, the value of a single one, the list of a duplicable one."""
    from types import SimpleNamespace

    from paddle_ir.executor.control import ControlContext
    from paddle_ir.executor.steps import RUN_CONTEXT, control_step

    run = SimpleNamespace(scope=pir.Scope(), options=SimpleNamespace(max_while_iterations=7))
    index = {"x": 2, "y0": 3, "y1": 4, "out": 5}
    ins = {"X": ["x"], "Ys": ["y0", "y1"]}
    outs = {"Out": ["out"]}
    seen = []

    def kernel(ctx, attrs, absent, x, ys):
        seen.append((ctx, attrs, absent, x, ys))
        ctx.scope.find_var("out").value = x + ys[0] + ys[1]

    step = control_step(kernel, {"k": 1}, [None, 2, [3, 4]], index, ins, outs)
    env = [None, None, np.array([1.0]), np.array([10.0]), np.array([100.0]), None]
    env[RUN_CONTEXT] = run
    lods = [()] * len(env)
    step(env, lods)
    ((ctx, attrs, absent, x, ys),) = seen
    assert ctx.__class__ is ControlContext and attrs == {"k": 1} and absent is None
    assert x is env[2] and ys[0] is env[3] and ys[1] is env[4] and len(ys) == 2
    assert ctx.max_while_iterations == 7 and ctx.input_names("Ys") == ["y0", "y1"]
    np.testing.assert_array_equal(np.asarray(env[5]), [111.0])


def _general(fn, in_layout, out_layout, out_names, out_classes, lod_aware=False,
             densify=False, to_sparse=None, shares=(), single_output=False):
    from paddle_ir.executor.steps import general_step

    return general_step(fn, {}, in_layout, out_layout, out_names, out_classes, lod_aware,
                        densify, to_sparse or [None] * len(out_names), list(shares),
                        single_output, "probe")


def test_a_general_step_lays_out_duplicable_slots_and_checks_each_output_in_order():
    """Inputs: None for an absent slot, a list for a duplicable one; outputs: a duplicable
    slot's values go to its slots in order, each checked against its own class (the k-th
    output name), and a value for a slot of another class fails naming that output."""
    seen = []

    def kernel(attrs, absent, xs, y):
        seen.append((absent, len(xs)))
        return [xs[0] * 2, xs[1] * 3], result["second"](y)

    result = {"second": lambda y: pir.SelectedRows([0], y, 4)}
    step = _general(kernel, [None, [2, 3], 4], [[5, 6], 7], ["o0", "o1", "rows"],
                    [np.ndarray, np.ndarray, pir.SelectedRows])
    env = [None, None, np.ones(2), np.ones(2), np.ones((1, 2)), None, None, None]
    lods = [()] * 8
    step(env, lods)
    assert seen == [(None, 2)]
    np.testing.assert_array_equal(env[5], [2, 2])
    np.testing.assert_array_equal(env[6], [3, 3])
    assert env[7].__class__ is pir.SelectedRows and env[7].height == 4
    result["second"] = lambda y: y  # a dense value where SelectedRows is declared
    with pytest.raises(KernelError, match=r"returned a ndarray for 'rows', but var-type "
                                          r"inference declared SelectedRows"):
        step(env, lods)
    step = _general(lambda attrs, xs: [xs[0], xs[0].tolist()], [[2]], [[5, 6]],
                    ["first", "second"], [np.ndarray, np.ndarray], single_output=True)
    with pytest.raises(KernelError, match="returned a list for 'second'"):
        step(env, lods)


def test_a_general_step_gives_lod_kernels_lod_tensors_and_stores_their_lod():
    """A LoD-aware kernel gets each dense input as a LoDTensor over the frame's array and
    offsets (a sparse input as it is); a LoDTensor result is stored as its array and
    offsets, an array result with no LoD (whatever the slot held before)."""
    from paddle_ir.core.lod_tensor import LoDTensor

    seen = []

    def kernel(attrs, x, rows):
        seen.append((x, rows))
        return LoDTensor.unchecked(x._array * 2, x._offsets), np.ones(3)

    step = _general(kernel, [2, 3], [4, 5], ["out", "plain"], [np.ndarray, np.ndarray],
                    lod_aware=True)
    offsets = (np.array([0, 1, 3]),)
    sr = pir.SelectedRows([1], np.ones((1, 2)), 3)
    env = [None, None, np.arange(3.0), sr, None, None]
    lods = [(), (), offsets, (), (), (np.array([0, 3]),)]
    step(env, lods)
    ((x, rows),) = seen
    assert x.__class__ is LoDTensor and x._array is env[2] and x._offsets is offsets
    assert rows is sr
    np.testing.assert_array_equal(env[4], [0, 2, 4])
    assert lods[4] is offsets and lods[5] == ()


def test_a_general_step_of_a_fallback_densifies_inputs_and_converts_outputs_back():
    """With a storage fallback the kernel gets sparse inputs as dense arrays (a dense one as
    it is) and a dense result is converted to each output's declared sparse storage; an
    output already sparse, or one declared dense, is kept as the kernel gave it."""
    from paddle_ir.core.csr import CSRTensor
    from paddle_ir.core.kinds import CSR, SELECTED_ROWS
    from paddle_ir.executor.steps import FROM_DENSE

    seen = []

    def kernel(attrs, x, y):
        seen.append((x.__class__, y.__class__))
        return x * 2, x + 1, pir.SelectedRows([0], np.ones((1, 2)), 3)

    step = _general(kernel, [2, 3], [4, 5, 6], ["rows", "dense", "given"],
                    [pir.SelectedRows, np.ndarray, pir.SelectedRows], densify=True,
                    to_sparse=[FROM_DENSE[SELECTED_ROWS], None, FROM_DENSE[SELECTED_ROWS]])
    x = CSRTensor.from_dense(np.array([[0.0, 1.0], [0.0, 0.0], [2.0, 0.0]]))
    env = [None, None, x, np.zeros((3, 2)), None, None, None]
    step(env, [()] * 7)
    assert seen == [(np.ndarray, np.ndarray)]
    assert env[4].__class__ is pir.SelectedRows and env[4].rows.tolist() == [0, 2]
    np.testing.assert_array_equal(env[4].to_dense(), [[0, 2], [0, 0], [4, 0]])
    assert env[5].__class__ is np.ndarray and env[5].tolist() == [[1, 2], [1, 1], [3, 1]]
    assert env[6].rows.tolist() == [0]
    csr = FROM_DENSE[CSR](np.eye(2))  # the other sparse storage a fallback converts to
    assert csr.__class__ is CSRTensor and csr.to_dense().tolist() == [[1, 0], [0, 1]]


def test_a_general_step_shares_a_lod_only_while_the_rows_stay():
    """A LoD share (src -> dst) copies src's offsets to dst after the kernel when dst has
    src's rows (values without a shape count as alike); a result with other rows keeps no
    LoD (a squeeze of a one-row batch)."""
    from paddle_ir.core.tensor_array import LoDTensorArray

    offsets = (np.array([0, 2, 3]),)
    result = {"out": np.ones((3, 5))}
    step = _general(lambda attrs, x: result["out"], [2], [3], ["out"], [np.ndarray],
                    shares=[(2, 3)], single_output=True)
    env = [None, None, np.ones((3, 2)), None]
    lods = [(), (), offsets, ()]
    step(env, lods)
    assert lods[3] is offsets
    result["out"] = np.ones((1, 5))
    step(env, lods)
    assert lods[3] == ()
    result["out"] = np.ones((5, 5))  # more rows than X: no share either
    step(env, lods)
    assert lods[3] == ()
    array_step = _general(lambda attrs, x: LoDTensorArray([]), [2], [3], ["out"],
                          [LoDTensorArray], shares=[(2, 3)], single_output=True)
    env = [None, None, LoDTensorArray([]), None]
    lods = [(), (), offsets, ()]
    array_step(env, lods)
    assert lods[3] is offsets


@pytest.mark.parametrize("bound", [False, True])
def test_an_op_reading_attributes_from_tensors_calls_its_kernel_directly_only_when_none_is_bound(
        bound):
    """scale's ScaleTensor and expand's ExpandTimes/expand_times_tensor: with none bound the
    step calls the wrapped kernel itself (scale then takes the direct step); with one bound
    the tensor's value wins over the attribute, on the compiling and the cached run."""
    main = pir.Program()
    block = main.global_block()
    block.create_var(name="x", shape=[-1, 2], dtype="float32")
    block.create_var(name="s", shape=[1], dtype="float32")
    for k in range(2):
        block.create_var(name=f"t{k}", shape=[1], dtype="int32")
    for n in ("y", "z"):
        block.create_var(name=n, dtype="float32")
    block.append_op("scale", inputs={"X": ["x"], **({"ScaleTensor": ["s"]} if bound else {})},
                    outputs={"Out": ["y"]}, attrs={"scale": 2.0, "bias": 0.0})
    block.append_op("expand", inputs={"X": ["y"],
                                      **({"expand_times_tensor": ["t0", "t1"]} if bound
                                         else {})},
                    outputs={"Out": ["z"]}, attrs={"expand_times": [1, 1]})
    x = np.array([[1.0, 2.0]], np.float32)
    feed = {"x": x}
    if bound:
        feed.update(s=np.array([5.0], np.float32), t0=np.array([2], np.int32),
                    t1=np.array([3], np.int32))
    exe = pir.Executor()
    for _ in range(2):
        (z,) = exe.run(main, feed=feed, fetch_list=["z"])
        np.testing.assert_array_equal(z, np.tile(x * (5 if bound else 2), (2, 3) if bound
                                                  else (1, 1)))
    kinds = [step.__qualname__.split(".")[0] for step in exe.last_plan.steps]
    assert kinds[0] == ("fast_step" if bound else "direct_step")


def test_unbound_output_slots_anywhere_drop_their_values_by_position(monkeypatch):
    """Outputs A, B (optional) and C: with B unbound the kernel's second value is dropped
    and A and C get theirs; with only C bound (after an unbound slot) C gets the third."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    op = register_op("probe_three", inputs=[In("X")],
                     outputs=[Out("A", dispensable=True), Out("B", dispensable=True),
                              Out("C")])

    @op.infer_shape
    def _(ctx):
        for slot in ("A", "B", "C"):
            ctx.set_output(slot, ctx.input_shape("X"), ctx.input_dtype("X"))

    op.kernel(dtypes=(np.float32,))(lambda attrs, x: (x + 1, x + 2, x + 3))
    x = np.array([[1.0, 2.0]], np.float32)
    for bound in ({"A": ["a"], "C": ["c"]}, {"C": ["c"]}):
        main, block = _program_reading(["X"], outputs=("a", "c"))
        block.append_op("probe_three", inputs={"X": ["x0"]}, outputs=bound)
        exe = pir.Executor()
        for _ in range(2):
            got = exe.run(main, feed={"x0": x}, fetch_list=[n for (n,) in bound.values()])
            want = [x + 1, x + 3] if "A" in bound else [x + 3]
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w)


def test_a_kernel_giving_a_duplicable_output_fewer_values_than_its_names_is_an_error(
        monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    op = register_op("probe_split_short", inputs=[In("X")],
                     outputs=[Out("Out", duplicable=True)])

    @op.infer_shape
    def _(ctx):
        for k in range(2):
            ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"), k)

    op.kernel(dtypes=(np.float32,))(lambda attrs, x: [x * 2])
    main, block = _program_reading(["X"], outputs=("p", "q"))
    block.append_op("probe_split_short", inputs={"X": ["x0"]}, outputs={"Out": ["p", "q"]})
    with pytest.raises(KernelError, match=r"(?s)op #0 probe_split_short.*ValueError: zip\(\) "
                                          r"argument 2 is shorter than argument 1"):
        pir.Executor().run(main, feed={"x0": np.ones((1, 2), np.float32)},
                           fetch_list=["p", "q"])


@pytest.mark.parametrize("lod", [False, True])  # the fast step, and the general one
def test_a_dense_value_for_a_sparse_output_is_converted_only_after_a_fallback(monkeypatch, lod):
    """Without a storage fallback, a kernel returning an array where var-type inference
    declared SelectedRows is the kernel's error; after a fallback (a dense kernel given a
    SelectedRows X) the array is converted back to the declared SelectedRows."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    op = register_op("probe_rows_out", inputs=[In("X")], outputs=[Out("Out")], fallback=True)

    @op.infer_var_type
    def _(ctx):
        ctx.set_output_type("Out", SR)

    @op.infer_shape
    def _(ctx):
        ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))

    op.kernel(dtypes=(np.float32,), lod=lod)(lambda attrs, x: np.asarray(x) * 2)
    main = pir.Program()
    block = main.global_block()
    block.create_var(name="dense", shape=[3, 2], dtype="float32")
    block.create_var(name="rows", shape=[3, 2], dtype="float32", type=SR)
    for n in ("a", "b"):
        block.create_var(name=n, dtype="float32", type=SR)
    block.append_op("probe_rows_out", inputs={"X": ["dense"]}, outputs={"Out": ["a"]})
    with pytest.raises(KernelError, match=r"the kernel of probe_rows_out returned a "
                                          r"ndarray for 'a', but var-type inference "
                                          r"declared SelectedRows"):
        pir.Executor().run(main, feed={"dense": np.ones((3, 2), np.float32)},
                           fetch_list=["a"])
    main.desc.blocks[0].ops[0].inputs[0].arguments[:] = ["rows"]
    main.desc.blocks[0].ops[0].outputs[0].arguments[:] = ["b"]
    rows = pir.SelectedRows([2], np.array([[1.0, 2.0]], np.float32), 3)
    exe = pir.Executor()
    for _ in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pir.StorageFallbackWarning)
            (b,) = exe.run(main, feed={"rows": rows}, fetch_list=["b"], return_numpy=False)
        assert b.__class__ is pir.SelectedRows
        np.testing.assert_array_equal(b.to_dense(), [[0, 0], [0, 0], [2, 4]])
