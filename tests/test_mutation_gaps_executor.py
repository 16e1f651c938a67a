"""The executor's cached path, which the op tests' `Executor(check=True)` never took.

Mutation testing (docs/testing.md) left these unguarded: a plan cached for a dense
gradient reused after the scope's gradient became SelectedRows, the caps on cached plans
and programs and which entry they evict, and the write-back of a LoD that changed while
its array stayed the same object.
"""

import numpy as np

import paddle_ir as pir
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
