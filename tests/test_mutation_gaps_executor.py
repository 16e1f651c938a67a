"""The executor's cached path, which the op tests' `Executor(check=True)` never took.

Mutation testing (docs/testing.md) left these unguarded: a plan cached for a dense
gradient reused after the scope's gradient became SelectedRows, the caps on cached plans
and programs and which entry they evict, and the write-back of a LoD that changed while
its array stayed the same object.
"""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import FeedError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.executor import executor as executor_module
from paddle_ir.executor import runner as runner_module

SR = pir.VarType.SELECTED_ROWS


def _sgd_program(grad_type) -> pir.Program:
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="param", shape=[5, 2], dtype="float32", persistable=True)
    block.create_var(name="lr", shape=[1], dtype="float32", persistable=True)
    block.create_var(name="grad", shape=[5, 2], dtype="float32", persistable=True,
                     type=grad_type)
    block.append_op("sgd", inputs={"Param": ["param"], "Grad": ["grad"], "LearningRate": ["lr"]},
                    outputs={"ParamOut": ["param"]})
    return program


def test_a_cached_sgd_plan_switches_kernels_when_the_gradient_becomes_selected_rows():
    param = np.arange(10, dtype=np.float32).reshape(5, 2)
    scope = pir.Scope()
    scope.var("param").set(LoDTensor(param.copy()))
    scope.var("lr").set(LoDTensor(np.array([0.5], np.float32)))
    dense = np.ones((5, 2), np.float32)
    scope.var("grad").set(LoDTensor(dense))
    program = _sgd_program(pir.VarType.LOD_TENSOR)
    exe = pir.Executor()  # caching on
    exe.run(program, scope=scope)
    first = exe.last_plan
    assert first.choices[0].key.storage == ("dense",)
    want = param - 0.5 * dense
    np.testing.assert_array_equal(scope.find_var("param").value.numpy(), want)

    sparse = pir.SelectedRows([3, 0, 3], np.full((3, 2), 2.0, np.float32), 5)
    scope.var("grad").set(sparse)
    exe.run(program, scope=scope)
    assert exe.last_plan is not first
    assert exe.last_plan.choices[0].key.storage == ("selected_rows",)
    want = want - 0.5 * sparse.to_dense()
    np.testing.assert_array_equal(scope.find_var("param").value.numpy(), want)

    scope.var("grad").set(LoDTensor(dense))  # and back: the dense kernel again
    exe.run(program, scope=scope)
    assert exe.last_plan.choices[0].key.storage == ("dense",)
    np.testing.assert_array_equal(scope.find_var("param").value.numpy(), want - 0.5 * dense)


def _scale_program() -> pir.Program:
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 2])
        pir.layers.scale(x, 3.0, name="y")
    return main


def test_the_plan_cache_holds_its_limit_and_evicts_the_oldest():
    limit = runner_module._MAX_CACHED_PLANS
    program, exe = _scale_program(), pir.Executor()
    y = program.global_block().ops[-1].output("Out")[0]
    feed = {"x": np.ones((1, 2), np.float32)}
    plans = []
    for k in range(1, limit + 2):  # limit + 1 fetch lists: limit + 1 cache keys
        (out, *_) = exe.run(program, feed=feed, fetch_list=[y] * k)
        np.testing.assert_array_equal(out, [[3.0, 3.0]])
        plans.append(exe.last_plan)
    assert len(set(map(id, plans))) == limit + 1
    for k in range(2, limit + 2):  # the newest `limit` are all still cached
        exe.run(program, feed=feed, fetch_list=[y] * k)
        assert exe.last_plan is plans[k - 1], f"the plan for key {k} was evicted"
    exe.run(program, feed=feed, fetch_list=[y])  # the oldest was evicted: compiled anew
    assert exe.last_plan is not plans[0]


def test_the_program_cache_holds_its_limit_and_evicts_the_oldest():
    limit = executor_module._MAX_CACHED_PROGRAMS
    programs = [_scale_program() for _ in range(limit + 1)]
    exe, feed = pir.Executor(), {"x": np.ones((1, 2), np.float32)}
    plans = []
    for program in programs:
        exe.run(program, feed=feed)
        plans.append(exe.last_plan)
    for program, plan in zip(programs[1:], plans[1:], strict=True):
        exe.run(program, feed=feed)
        assert exe.last_plan is plan
    exe.run(programs[0], feed=feed)
    assert exe.last_plan is not plans[0]


def test_write_back_keeps_a_new_lod_on_the_same_array():
    """lod_reset in place on a persistable: the array object stays, the LoD changes."""
    program = pir.Program()
    block = program.global_block()
    block.create_var(name="seq", shape=[6, 1], dtype="float32", lod_level=1, persistable=True)
    block.append_op("lod_reset", inputs={"X": ["seq"]}, outputs={"Out": ["seq"]},
                    attrs={"target_lod": [0, 4, 6]})
    data = np.arange(6, dtype=np.float32).reshape(6, 1)
    for exe in (pir.Executor(), pir.Executor(check=True)):
        scope = pir.Scope()
        scope.var("seq").set(pir.create_lod_tensor(data.copy(), [[2, 4]]))
        for _ in range(2):  # the second run binds and writes back through the cached plan
            exe.run(program, scope=scope)
            stored = scope.find_var("seq").value
            assert stored.lod() == [[0, 4, 6]]
            np.testing.assert_array_equal(stored.numpy(), data)
        scope.var("seq").set(pir.create_lod_tensor(data.copy(), [[3, 3]]))
        exe.run(program, scope=scope)
        assert scope.find_var("seq").value.lod() == [[0, 4, 6]]



def first_write_program():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 3])
        flag = pir.layers.data("flag", [1], dtype="bool", append_batch_size=False)
        parent = main.current_block()
        y = parent.create_var(name="y", shape=[-1, 3], dtype="float32")
        sub = main._create_block()
        inner = pir.layers.scale(x, 2.0)
        sub.append_op("elementwise_add", inputs={"X": inner, "Y": x}, outputs={"Out": y})
        main._rollback()
        parent.append_op("conditional_block", inputs={"Cond": flag, "Input": x},
                         outputs={"Out": y}, attrs={"sub_block": sub.idx})
        z = pir.layers.scale(y, 10.0)
    return main, y, z


def test_a_sub_block_s_first_write_of_a_parent_variable_reaches_the_parent():
    main, y, z = first_write_program()
    exe = pir.Executor()
    for _ in range(2):
        scope = pir.Scope()
        got_y, got_z = exe.run(main, feed={"x": np.array([[1, 2, 3]], np.float32),
                                           "flag": np.array([True])},
                               fetch_list=[y, z], scope=scope)
        np.testing.assert_allclose(got_y, [[3.0, 6.0, 9.0]])
        np.testing.assert_allclose(got_z, [[30.0, 60.0, 90.0]])
        assert scope.local_var_names() == []


def test_a_child_scope_run_keeps_its_persistables_in_the_child():
    """Block 0's first write of a persistable goes to the scope the run was given."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 2])
        pir.layers.fc(x, 3)
    root = pir.Scope()
    child = root.new_scope()
    exe = pir.Executor()
    exe.run(startup, scope=child)
    params = [v.name for v in main.global_block().all_parameters()]
    assert params and all(child.find_var(p) is not None for p in params)
    assert root.local_var_names() == []


def test_a_feed_with_a_fixed_dim_above_256_is_accepted():
    """Dims compared as numbers (ints above 256 are distinct objects)."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 300])
        y = pir.layers.scale(x, 2.0)
    (out,) = pir.Executor().run(main, feed={"x": np.ones((2, 300), np.float32)},
                                fetch_list=[y])
    np.testing.assert_array_equal(out, np.full((2, 300), 2.0))
    with pytest.raises(FeedError, match=r"feed 'x' has shape \[2, 299\]"):
        pir.Executor().run(main, feed={"x": np.ones((2, 299), np.float32)}, fetch_list=[y])


def _csr_program(shape):
    main = pir.Program()
    block = main.global_block()
    block.create_var(name="x", shape=shape, dtype="float32", type=pir.VarType.CSR)
    return main


def test_a_csr_tuple_feed_takes_its_height_from_indptr_and_its_width_from_the_variable():
    main = _csr_program([-1, 4])
    data, indices, indptr = [1.0, 2.0, 3.0], [0, 3, 1], [0, 2, 2, 3]
    (got,) = pir.Executor().run(main, feed={"x": (data, indices, indptr)}, fetch_list=["x"])
    assert got.shape == (3, 4) and got.dtype == np.float32
    np.testing.assert_array_equal(got.to_dense(), [[1, 0, 0, 2], [0, 0, 0, 0], [0, 3, 0, 0]])


@pytest.mark.parametrize("shape", [[-1, -1], [-1, 4, 2], [-1]])
def test_a_csr_tuple_feed_needs_a_declared_width(shape):
    main = _csr_program(shape)
    with pytest.raises(FeedError, match=r"feed 'x': a \(data, indices, indptr\) tuple needs the "
                                        r"variable's width"):
        pir.Executor().run(main, feed={"x": ([1.0], [0], [0, 1])}, fetch_list=["x"])


def test_a_csr_feed_of_another_tuple_length_is_refused():
    main = _csr_program([-1, 4])
    with pytest.raises(FeedError, match="must be a CSRTensor, a scipy.sparse matrix or a "):
        pir.Executor().run(main, feed={"x": ([1.0], [0], [0, 1], (1, 4))}, fetch_list=["x"])


def test_feeding_a_variable_of_a_type_that_takes_no_feed_names_the_type():
    main = pir.Program()
    block = main.global_block()
    block.create_var(name="arr", dtype="float32", type=pir.VarType.LOD_TENSOR_ARRAY)
    with pytest.raises(FeedError, match="variable 'arr' of type LOD_TENSOR_ARRAY cannot be fed"):
        pir.Executor().run(main, feed={"arr": np.ones((1, 2), np.float32)})


def test_a_feed_list_holds_exactly_one_feed_dict():
    """Fluid's per-device feed list: paddle-ir runs on one device, so one dict."""
    program = _scale_program()
    y = program.global_block().ops[-1].output("Out")[0]
    exe = pir.Executor()
    (out,) = exe.run(program, feed=[{"x": np.ones((1, 2), np.float32)}], fetch_list=[y])
    np.testing.assert_array_equal(out, [[3.0, 3.0]])
    for feeds in ([], [{"x": np.ones((1, 2), np.float32)}] * 2):
        with pytest.raises(FeedError, match=rf"a feed list holds one feed dict per device, "
                                            rf"and paddle-ir runs on one device; got "
                                            rf"{len(feeds)} dicts"):
            exe.run(program, feed=feeds, fetch_list=[y])


def test_the_executor_keeps_the_place_it_was_given():
    place = pir.CPUPlace()
    assert pir.Executor(place).fluid_place is place
    assert pir.Executor().fluid_place is None
