"""Where a finished block's values go (executor/runner.py, ProgramRunner._write_back).

Mutation testing (docs/testing.md) left two write-back rules unguarded: a sub-block's
first write of an ancestor's variable that no scope holds yet goes to the scope above
the one the block ran in (the control kernel's frame, which later steps of a loop read),
and a kept step scope (`keep_locals`) receives the block's own variables only: neither
the ancestors' variables (they live above it) nor slots nothing wrote.
"""

from types import SimpleNamespace

import numpy as np

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.executor.runner import ProgramRunner
from paddle_ir.executor.scope import Scope


def write_back(escaping, written, env, scope, block_idx, keep_locals):
    """Run the write-back of a finished block whose frame is `env` (no LoD anywhere)."""
    plan = SimpleNamespace(escaping_outputs=escaping, written=written)
    ProgramRunner._write_back(plan, env, [()] * len(env), scope, block_idx, keep_locals)


def test_a_sub_block_s_first_write_of_an_unheld_ancestor_variable_goes_one_scope_up():
    root = Scope()
    frame = root.new_scope()  # what a control kernel shows the sub-block as its parent
    step = frame.new_scope()  # the scope the sub-block ran in
    carried = np.arange(3, dtype=np.float32)
    write_back([(0, "carried")], [(0, "carried")], [carried], step, block_idx=1,
               keep_locals=False)
    assert step.local_var_names() == []
    assert root.local_var_names() == []
    stored = frame.find_local_var("carried").value
    assert isinstance(stored, LoDTensor) and stored.numpy() is carried


def test_block_0_s_first_write_stays_in_the_scope_it_ran_in():
    root = Scope()
    child = root.new_scope()
    value = np.ones(2, np.float32)
    write_back([(0, "w")], [(0, "w")], [value], child, block_idx=0, keep_locals=False)
    assert root.local_var_names() == []
    assert child.find_local_var("w").value.numpy() is value


def test_an_ancestor_variable_already_held_is_overwritten_where_it_lives():
    root = Scope()
    root.var("carried").set(pir.create_lod_tensor(np.zeros(2, np.float32), []))
    step = root.new_scope().new_scope()
    value = np.full(2, 7.0, np.float32)
    write_back([(0, "carried")], [(0, "carried")], [value], step, block_idx=1,
               keep_locals=False)
    assert root.find_local_var("carried").value.numpy() is value
    assert step.local_var_names() == []


def test_a_kept_step_scope_gets_the_block_s_own_written_variables_only():
    root = Scope()
    root.var("carried").set(pir.create_lod_tensor(np.zeros(2, np.float32), []))
    step = root.new_scope()
    carried, local = np.full(2, 3.0, np.float32), np.full(4, 5.0, np.float32)
    # slot 2: a local that only an untaken nested branch would have written
    write_back([(0, "carried")], [(0, "carried"), (1, "local"), (2, "unwritten")],
               [carried, local, None], step, block_idx=1, keep_locals=True)
    assert step.local_var_names() == ["local"]
    assert step.find_local_var("local").value.numpy() is local
    assert root.find_local_var("carried").value.numpy() is carried


def test_without_keep_locals_the_block_s_own_variables_are_dropped():
    root = Scope()
    step = root.new_scope()
    write_back([], [(0, "local")], [np.ones(1, np.float32)], step, block_idx=1,
               keep_locals=False)
    assert step.local_var_names() == [] and root.local_var_names() == []


def carried_by_name_program(is_test: bool):
    """i = 0; while i < 3: (if i > 0: last = prev); prev = 10 i; i += 1.

    `prev` is declared in block 0 but no op of block 0 names it (nor the while op's X or
    Out), so no frame holds it: the body's first write of it creates it above the step
    scope, in the loop's frame scope, where the next step's branch reads it back.
    """
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        block0 = main.current_block()
        i = layers.fill_constant([1], "int64", 0)
        n = layers.fill_constant([1], "int64", 3)
        cond = layers.less_than(i, n)
        last = layers.fill_constant([1], "float64", -1.0)
        prev = block0.create_var(name="prev", shape=[1], dtype="float64")
        body = main._create_block()
        has_prev = layers.greater_than(i, layers.fill_constant([1], "int64", 0))
        branch = main._create_block()
        branch.append_op("assign", inputs={"X": [prev]}, outputs={"Out": [last]})
        main._rollback()
        body.append_op("conditional_block", inputs={"Cond": [has_prev], "Input": []},
                       outputs={"Out": [last]}, attrs={"sub_block": branch.idx})
        scaled = layers.scale(layers.cast(i, "float64"), 10.0)
        body.append_op("assign", inputs={"X": [scaled]}, outputs={"Out": [prev]})
        layers.increment(i, in_place=True)
        layers.less_than(i, n, cond=cond)
        main._rollback()
        steps = block0.create_var(name="steps", type=pir.VarType.STEP_SCOPES)
        block0.append_op("while", inputs={"X": [i, n, last], "Condition": [cond]},
                         outputs={"Out": [i, cond, last], "StepScopes": [steps]},
                         attrs={"sub_block": body.idx, "is_test": is_test})
    return main, last, scaled


def test_a_loop_body_reads_back_a_variable_its_earlier_step_created_by_name():
    main, last, _ = carried_by_name_program(is_test=True)
    for exe in (pir.Executor(), pir.Executor(check=True)):
        scope = pir.Scope()
        for _ in range(2):  # the second run takes the cached plans
            (got,) = exe.run(main, fetch_list=[last], scope=scope)
            assert got.tolist() == [10.0]  # step 2 read step 1's prev = 10 * 1
            assert scope.local_var_names() == []


def test_kept_step_scopes_hold_the_body_s_locals_but_not_its_ancestors_variables():
    main, last, scaled = carried_by_name_program(is_test=False)
    got, steps = pir.Executor().run(main, fetch_list=[last, "steps"], scope=pir.Scope())
    assert got.tolist() == [10.0]
    assert len(steps) == 3
    for k, kept in enumerate(steps):
        names = kept.local_var_names()
        assert "prev" not in names  # it lives in the loop's frame scope, not in a step
        assert kept.find_local_var(scaled.name).value.numpy().tolist() == [10.0 * k]


def test_a_cached_plan_checks_new_shapes_once_then_runs_them_unchecked():
    """The first cached run with new shapes runs each op's inference first (unprofiled);
    the plan then records those shapes, so the next run takes the plain, profiled path."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [-1, 2])
        y = layers.scale(layers.scale(x, 2.0), 3.0)
    exe = pir.Executor()
    exe.profile = {}
    for rows in (4, 5, 5, 5):  # compile with 4 rows; 5 rows: checked once, then plain
        (got,) = exe.run(main, feed={"x": np.ones((rows, 2), np.float32)}, fetch_list=[y])
        np.testing.assert_allclose(got, np.full((rows, 2), 6.0))
    count, _ = exe.profile["scale"]
    assert count == 4  # two plain runs of two scale ops


def test_a_frame_scope_variable_knows_its_name_and_slot():
    from paddle_ir.executor.control import FrameScope

    env, lods = [None, None, np.ones(2, np.float32)], [(), (), ()]
    frame = FrameScope(env, lods, {"x": 2}, Scope())
    holder = frame.find_var("x")
    assert holder.name == "x"
    assert holder.value.numpy() is env[2]
    assert frame.var("x").name == "x"


def test_get_selected_rows_returns_the_held_value():
    scope = Scope()
    rows = pir.SelectedRows([0, 2], np.ones((2, 3), np.float32), 4)
    scope.var("g").set(rows)
    assert scope.find_var("g").get_selected_rows() is rows


def test_a_scope_erases_its_own_names_and_answers_in_for_its_chain():
    root = Scope()
    root.var("w")
    child = root.new_scope()
    child.var("a")
    child.var("b")
    assert "w" in child and "a" in child and "nothing" not in child
    child.erase(["a", "nothing"])
    assert child.local_var_names() == ["b"]
    assert "a" not in child and "w" in child


def test_runtime_value_info_of_a_rank_table_and_step_scopes():
    from paddle_ir.core.kinds import LOD_RANK_TABLE, STEP_SCOPES
    from paddle_ir.core.rank_table import LoDRankTable
    from paddle_ir.core.step_scopes import StepScopes
    from paddle_ir.executor.runtime_context import value_info

    for level in (0, 1, 2):  # a table over LoD level k describes a k+1-level sequence
        table = LoDRankTable([3, 1, 2], level)
        info = value_info(table, ())
        assert (info.var_type, info.lod_level, info.shape) == (LOD_RANK_TABLE, level + 1,
                                                               table.shape)
    info = value_info(StepScopes(), ())
    assert (info.var_type, info.shape, info.dtype, info.lod_level) == (STEP_SCOPES, (), None, 0)


def test_runtime_value_info_of_a_tensor_array_is_its_elements():
    from paddle_ir.core.kinds import LOD_TENSOR_ARRAY
    from paddle_ir.core.tensor_array import LoDTensorArray
    from paddle_ir.executor.runtime_context import value_info

    empty = value_info(LoDTensorArray(), ())
    assert (empty.var_type, empty.shape, empty.dtype, empty.lod_level) == (
        LOD_TENSOR_ARRAY, None, np.dtype(np.float32), 0)
    item = pir.create_lod_tensor(np.ones((3, 4), np.float32), [[1, 2]])
    full = value_info(LoDTensorArray([item]), ())
    assert (full.shape, full.lod_level) == ((-1, 4), 1)


def test_scopes_and_their_variables_print_what_they_hold():
    scope = Scope()
    assert repr(scope.var("x")) == "ScopeVariable('x', None)"
    scope.new_scope()
    assert repr(scope) == "Scope(1 vars, 1 kids)"
