"""Sub-blocks in the executor: a control op runs a block that reads and writes its parent's
variables by name, and the sub-block's own variables stay out of the parent scope."""

import numpy as np
import pytest

import paddle_ir as pir


def conditional_program():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [3], append_batch_size=False)
        flag = pir.layers.data("flag", [1], dtype="bool", append_batch_size=False)
        y = pir.layers.fill_constant([3], "float32", -1.0)
        parent = main.current_block()
        sub = main._create_block()
        inner = pir.layers.scale(x, 2.0)          # declared in the sub-block
        sub.append_op("elementwise_add", inputs={"X": inner, "Y": x}, outputs={"Out": y})
        main._rollback()
        parent.append_op("conditional_block", inputs={"Cond": flag, "Input": x},
                         outputs={"Out": y}, attrs={"sub_block": sub.idx})
        z = pir.layers.scale(y, 10.0)
    return main, inner, y, z


@pytest.mark.parametrize("flag, want_y", [(True, [3.0, 6.0, 9.0]), (False, [-1.0] * 3)])
def test_conditional_block_takes_each_branch(flag, want_y):
    main, inner, y, z = conditional_program()
    exe = pir.Executor()
    scope = pir.Scope()
    for _ in range(2):  # the second run goes through the cached plans
        got_y, got_z = exe.run(main, feed={"x": np.array([1, 2, 3], np.float32),
                                           "flag": np.array([flag])},
                               fetch_list=[y, z], scope=scope)
        np.testing.assert_allclose(got_y, want_y)
        np.testing.assert_allclose(got_z, np.array(want_y) * 10)
    assert scope.find_var(inner.name) is None and scope.local_var_names() == []


def test_sub_block_program_round_trips_and_prints_both_blocks():
    main, *_ = conditional_program()
    again = pir.Program.parse(main.serialize())
    assert again.serialize() == main.serialize()
    text = str(again)
    assert "{ // block 1 (parent 0)" in text and "sub_block = block[1]" in text


def test_a_non_scalar_condition_is_a_clear_error():
    main, inner, y, z = conditional_program()
    feed = {"x": np.ones(3, np.float32), "flag": np.array([True])}
    main.global_block().var("flag").shape = (-1,)
    with pytest.raises(pir.PaddleIRError, match=r"(?s)op #1 conditional_block.*one-element "
                                                r"condition, got shape \[2\]"):
        pir.Executor().run(main, feed={**feed, "flag": np.array([True, False])},
                           fetch_list=[z], scope=pir.Scope())


def test_a_switch_assigning_a_global_keeps_it_when_its_branch_does_not_run():
    """BERT's linear_warmup_decay: a Switch assigns a persistable learning rate made by
    create_global_var; the branch that does not run leaves it, and what reads it after the
    Switch reads the value the running branch wrote (or the startup value)."""
    import paddle_ir.fluid as fluid

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        lr = fluid.layers.create_global_var(shape=[1], value=-1.0, dtype="float32",
                                            persistable=True, name="scheduled_lr")
        step = fluid.layers.autoincreased_step_counter(begin=1)
        step_f = fluid.layers.cast(step, "float32")
        with fluid.layers.Switch() as switch:
            with switch.case(step_f < 3.0):
                fluid.layers.assign(step_f * 0.1, lr)
            with switch.case(step_f > 100.0):  # never runs: lr keeps what it had
                fluid.layers.assign(step_f * 0.0, lr)
        doubled = lr * 2.0
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    seen = []
    with fluid.scope_guard(scope):
        exe.run(startup)
        for _ in range(4):
            out, = exe.run(main, fetch_list=[doubled])
            seen.append(float(out[0]))
    # steps 1, 2 write 0.1 * step; steps 3, 4 run no branch: lr stays 0.2
    np.testing.assert_allclose(seen, [0.2, 0.4, 0.4, 0.4], rtol=1e-6)
