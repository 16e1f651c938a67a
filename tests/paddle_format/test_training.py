"""A training program Paddle saved (its own *_grad and adam ops) trains here as in Paddle."""

import numpy as np

from paddle_ir import io, paddle_format
from paddle_ir.executor import Executor, Scope
from paddle_ir.framework import Program
from paddle_ir.paddle_format.grad_slots import from_paddle_slots, to_paddle_slots
from paddle_ir.proto import paddle_framework_pb2 as ppb
from tests.paddle_helpers import FIXTURES

TRAIN = FIXTURES / "train"


def test_two_adam_steps_match_paddle():
    program = paddle_format.load_paddle_program(TRAIN / "main.pdmodel")
    types = [op.type for op in program.desc.blocks[0].ops]
    assert "elementwise_mul_grad" in types and types.count("adam") == 6
    scope = Scope()
    io.load_vars(TRAIN / "init.pdiparams", program, scope)  # every persistable, sorted
    exe = Executor()
    with np.load(TRAIN / "io.npz", allow_pickle=False) as data:
        loss_name = str(data["loss_name"])
        for step in range(2):
            (loss,) = exe.run(program, feed={"x": data[f"x.{step}"],
                                             "label": data[f"label.{step}"]},
                              fetch_list=[loss_name], scope=scope)
            np.testing.assert_allclose(np.asarray(loss).reshape(-1),
                                       data[f"loss.{step}"].reshape(-1), rtol=1e-6)
    with np.load(TRAIN / "after.npz", allow_pickle=False) as after:
        assert sorted(after.files) == io.persistable_names(program)
        for name in after.files:  # parameters, moments, beta powers, learning rate
            np.testing.assert_allclose(np.asarray(scope.find_var(name).value), after[name],
                                       rtol=1e-5, atol=1e-7, err_msg=name)


def test_paddle_grad_ops_keep_their_form_on_the_way_back():
    original = paddle_format.parse_paddle_program((TRAIN / "main.pdmodel").read_bytes(), "main")
    back = paddle_format.to_paddle(paddle_format.from_paddle(original))
    for before, after in zip(original.blocks[0].ops, back.blocks[0].ops, strict=True):
        assert before.type == after.type
        assert sorted(v.parameter for v in before.inputs) == \
            sorted(v.parameter for v in after.inputs)
        # adam's empty Beta1Tensor, SkipUpdate, ... stay empty
        assert sorted(v.parameter for v in before.outputs) == \
            sorted(v.parameter for v in after.outputs)


def test_empty_optional_adam_slots_are_accepted():
    program = paddle_format.load_paddle_program(TRAIN / "main.pdmodel")
    adam = next(op for op in program.desc.blocks[0].ops if op.type == "adam")
    assert {"Beta1Tensor", "Beta2Tensor", "EpsilonTensor", "MasterParam", "SkipUpdate"} <= \
        set(adam.paddle_empty_inputs)
    kept = {ppb.OpDesc.Attr.FromString(raw).name for raw in adam.paddle_attrs}
    assert {"amsgrad", "multi_precision", "op_role_var", "op_callstack"} <= kept


def _gru_grad(*, with_hidden: bool) -> ppb.OpDesc:
    op = ppb.OpDesc(type="gru_grad")
    for slot in ("Input", "Weight", "BatchGate", "BatchResetHiddenPrev", "BatchHidden"):
        op.inputs.add(parameter=slot, arguments=[f"gru.{slot}"])
    op.inputs.add(parameter="Hidden@GRAD", arguments=["gru_0.tmp_2@GRAD"])
    if with_hidden:
        op.inputs.add(parameter="Hidden", arguments=["gru_0.tmp_2"])
    return op


def test_gru_grad_hidden_slot_is_dropped_and_restored():
    paddle_form = _gru_grad(with_hidden=True)
    ours = from_paddle_slots(paddle_form)
    assert "Hidden" not in {v.parameter for v in ours.inputs}
    assert "Hidden" in {v.parameter for v in paddle_form.inputs}  # the original is untouched
    restored = to_paddle_slots(ours)
    hidden = next(v for v in restored.inputs if v.parameter == "Hidden")
    assert list(hidden.arguments) == ["gru_0.tmp_2"]


def test_elementwise_grad_out_is_dropped_for_paddle():
    op = ppb.OpDesc(type="elementwise_mul_grad")
    for slot in ("X", "Y", "Out", "Out@GRAD"):
        op.inputs.add(parameter=slot, arguments=[slot.lower()])
    assert [v.parameter for v in to_paddle_slots(op).inputs] == ["X", "Y", "Out@GRAD"]
    div = ppb.OpDesc(type="elementwise_div_grad")
    div.inputs.add(parameter="Out", arguments=["out"])
    assert [v.parameter for v in to_paddle_slots(div).inputs] == ["Out"]  # div reads Out


def test_paddles_startup_program_initializes_every_persistable():
    startup = paddle_format.load_paddle_program(TRAIN / "startup.pdmodel")
    main = paddle_format.load_paddle_program(TRAIN / "main.pdmodel")
    scope = Scope()
    Executor().run(startup, scope=scope)
    with np.load(TRAIN / "after.npz", allow_pickle=False) as after:
        for name in io.persistable_names(main):
            value = np.asarray(scope.find_var(name).value)
            assert value.shape == after[name].shape and value.dtype == after[name].dtype


def test_fill_constant_str_value_is_the_value_as_in_paddle():
    """Paddle's fill_constant fills with str_value when it is set; so does paddle-ir's."""
    desc = paddle_format.parse_paddle_program((TRAIN / "startup.pdmodel").read_bytes(), "s")
    fill = next(op for op in desc.blocks[0].ops if op.type == "fill_constant")
    assert next(a.s for a in fill.attrs if a.name == "str_value") == "0.0"
    next(a for a in fill.attrs if a.name == "str_value").s = "0.5"
    out = next(v for v in fill.outputs if v.parameter == "Out").arguments[0]
    program = Program.from_desc(paddle_format.from_paddle(desc))
    scope = Scope()
    Executor().run(program, scope=scope)
    value = scope.find_var(out).get_tensor().numpy()
    assert value.size and np.all(value == np.float32(0.5))
