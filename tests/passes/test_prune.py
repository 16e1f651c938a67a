"""prune (paddle_ir/passes/prune.py) on control flow: what a sub-block writes is read
before it only when something earlier wrote it."""

import numpy as np

from paddle_ir import io, paddle_format
from paddle_ir.executor import Executor, Scope
from paddle_ir.passes.prune import prune
from tests.paddle_helpers import FIXTURES, assert_matches_paddle, feeds


def test_static_nn_cond_outputs_need_nothing_before_their_blocks(tmp_path):
    """Paddle's cond writes each branch's values into fresh variables that select_input
    picks from: pruning keeps both conditional_blocks and asks for no feed."""
    scope = Scope()
    program, names, fetches = paddle_format.load_inference_model(
        str(FIXTURES / "cond_loop" / "model"), scope)
    pruned = prune(program, names, [v.name for v in fetches])
    types = [op.type for op in pruned.desc.blocks[0].ops]
    assert types.count("conditional_block") == 2 and "while" in types
    io.save_inference_model(str(tmp_path), names, fetches, main_program=program, scope=scope)
    again, _, targets = io.load_inference_model(str(tmp_path), scope=scope)
    got = Executor().run(again, feed=feeds("cond_loop"), fetch_list=targets, scope=scope)
    assert_matches_paddle("cond_loop", [np.asarray(v) for v in got])


def test_a_branch_writing_an_earlier_value_keeps_its_writer():
    """Fluid's IfElse / piecewise decay: fill_constant then a conditional_block that may
    overwrite it. If the block does not run, the earlier value is the result."""
    import paddle_ir as pir
    from paddle_ir import layers

    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = layers.data("x", [1], append_batch_size=False)
        out = layers.fill_constant([1], "float32", 7.0)
        zero = layers.fill_constant([1], "float32", 0.0)
        cond = layers.greater_than(x, zero)
        block = main._create_block()
        block.append_op("assign", inputs={"X": [x]}, outputs={"Out": [out]})
        main._rollback()
        main.global_block().append_op(
            "conditional_block", inputs={"Cond": [cond], "Input": [x]},
            outputs={"Out": [out]}, attrs={"sub_block": block.idx,
                                           "is_scalar_condition": True})
    pruned = prune(main, ["x"], [out.name])
    assert [op.type for op in pruned.desc.blocks[0].ops][0] == "fill_constant"
    for value, want in ((-1.0, 7.0), (3.0, 3.0)):
        (got,) = Executor().run(pruned, feed={"x": np.array([value], np.float32)},
                                fetch_list=[out.name], scope=Scope())
        assert float(np.asarray(got)[0]) == want
