"""The builder: programs, blocks, variables, names, round trips and parse errors."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import ProgramFormatError
from paddle_ir.proto import framework_pb2 as pb


def build():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 4])
        helper = pir.layers.helper.LayerHelper("fc")
        w = helper.create_parameter(pir.ParamAttr(), [4, 2])
        b = helper.create_parameter(pir.ParamAttr(), [2], is_bias=True)
        y = pir.layers.scale(x, 2.0)
    return main, startup, x, w, b, y


def test_paddle_style_names_and_variable_views():
    main, startup, x, w, b, y = build()
    assert (w.name, b.name, y.name) == ("fc_0.w_0", "fc_0.b_0", "scale_0.tmp_0")
    assert isinstance(w, pir.Parameter) and w.persistable and w.desc.is_parameter
    assert x.type == pir.VarType.LOD_TENSOR
    assert y.shape == (-1, 4) and y.dtype == np.float32 and y.lod_level == 0
    op = main.global_block().ops[0]
    assert op.type == "scale" and op.input("X") == ["x"] and op.output("Out") == [y.name]
    assert op.attr("scale") == 2.0 and op.attr("bias_after_scale") is True
    assert main.global_block().var("x") is x
    assert [p.name for p in main.all_parameters()] == ["fc_0.w_0", "fc_0.b_0"]


def test_startup_program_holds_the_initializers():
    main, startup, *_ = build()
    types = [op.type for op in startup.global_block().ops]
    assert types == ["uniform_random", "fill_constant"]
    limit = startup.global_block().ops[0]
    assert limit.attr("max") == pytest.approx(np.sqrt(6 / 6), rel=1e-6)


def test_variable_type_switch_moves_the_tensor_desc():
    main, *_ = build()
    v = main.global_block().create_var(name="g", shape=[10, 3], dtype="float64")
    v.type = pir.VarType.SELECTED_ROWS
    assert v.shape == (10, 3) and v.dtype == np.float64 and v.lod_level == 0
    assert not v.desc.HasField("lod_desc") and v.desc.HasField("selected_rows_desc")


def test_round_trip_to_identical_bytes_and_text():
    main, *_ = build()
    data = main.serialize()
    again = pir.Program.parse(data)
    assert again.serialize() == data
    assert str(again) == str(main)
    assert isinstance(again.global_block().var("fc_0.w_0"), pir.Parameter)


def test_str_lists_vars_and_ops_with_creation_sites():
    main, *_ = build()
    text = str(main)
    assert "persist param fc_0.w_0 : LOD_TENSOR.shape(4, 2).dtype(float32).lod_level(0)" in text
    assert ("{Out=[scale_0.tmp_0]} = scale(inputs={X=[x]}, bias = 0.0, bias_after_scale = True, "
            "scale = 2.0)  # tests/framework/test_framework.py:") in text


def test_clone_for_test_drops_backward_and_optimize_ops():
    main, *_ = build()
    block = main.global_block()
    block.append_op("scale", inputs={"X": "x"}, outputs={"Out": "scale_0.tmp_0"},
                    attrs={"op_role": 1})
    clone = main.clone(for_test=True)
    assert [op.type for op in clone.global_block().ops] == ["scale"]
    assert len(main.global_block().ops) == 2
    assert clone.clone().serialize() == clone.serialize()


def test_random_seed_makes_initialization_deterministic():
    def init_values(seed):
        with pir.unique_name.guard():
            main, startup = pir.Program(), pir.Program()
            startup.random_seed = seed
            with pir.program_guard(main, startup):
                helper = pir.layers.helper.LayerHelper("fc")
                w = helper.create_parameter(pir.ParamAttr(), [8, 8])
            scope = pir.Scope()
            pir.Executor().run(startup, scope=scope)
            return scope.find_var(w.name).get_tensor().numpy().copy()

    np.testing.assert_array_equal(init_values(7), init_values(7))
    assert not np.array_equal(init_values(7), init_values(8))


@pytest.mark.parametrize("data, pattern", [
    (b"\xff\xff\xff\xff", r"not a paddle-ir ProgramDesc"),
    (b"", r"has no blocks"),
    (pb.ProgramDesc(blocks=[pb.BlockDesc(idx=0, parent_idx=-1)]).SerializeToString()[:-1],
     r"not a paddle-ir ProgramDesc|lacks required fields"),
    (pb.ProgramDesc(blocks=[pb.BlockDesc(idx=0, parent_idx=-1),
                            pb.BlockDesc(idx=1, parent_idx=5)]).SerializeToString(),
     r"block 1 has parent_idx 5"),
    (pb.ProgramDesc(blocks=[pb.BlockDesc(idx=0, parent_idx=-1),
                            pb.BlockDesc(idx=1, parent_idx=1)]).SerializeToString(),
     r"block 1 has parent_idx 1"),
    (pb.TensorDesc(data_type=pb.FP32, dims=[3]).SerializeToString(),
     r"not a paddle-ir ProgramDesc|lacks required fields|has no blocks"),
])
def test_malformed_program_bytes(data, pattern):
    with pytest.raises(ProgramFormatError, match=pattern):
        pir.Program.parse(data)


def test_missing_required_field_is_reported():
    block = pb.BlockDesc(idx=0, parent_idx=-1)
    block.vars.add(name="x")  # VarDesc.type is required
    data = pb.ProgramDesc(blocks=[block]).SerializePartialToString()
    with pytest.raises(ProgramFormatError, match=r"lacks required fields: blocks\[0\]\.vars\[0\]"
                                                 r"\.type"):
        pir.Program.parse(data)


def test_program_guard_restores_defaults():
    before = pir.default_main_program()
    with pir.program_guard(pir.Program(), pir.Program()):
        assert pir.default_main_program() is not before
    assert pir.default_main_program() is before


def _program_with_name(raw_name: bytes) -> bytes:
    block = pb.BlockDesc(idx=0, parent_idx=-1)
    block.vars.add(name="ab", type=pb.VarDesc.LOD_TENSOR)
    return pb.ProgramDesc(blocks=[block]).SerializeToString().replace(b"ab", raw_name)


def test_text_that_is_not_utf8_is_a_format_error():
    # Found by the fuzzer: proto2 hands such a string back as bytes, and the printer
    # and the checker then failed with TypeErrors.
    with pytest.raises(ProgramFormatError, match=r"holds text that is not UTF-8: "
                                                 r"blocks\[0\]\.vars\[0\]\.name"):
        pir.Program.parse(_program_with_name(b"\xff\xfe"))
    assert pir.Program.parse(_program_with_name("é".encode())).global_block().has_var("é")


def _chain(blocks: int) -> pb.ProgramDesc:
    desc = pb.ProgramDesc(blocks=[pb.BlockDesc(idx=0, parent_idx=-1)])
    for i in range(1, blocks):
        desc.blocks.add(idx=i, parent_idx=i - 1)
    return desc


def test_block_nesting_is_bounded():
    from paddle_ir.framework import MAX_BLOCK_DEPTH

    pir.Program.parse(_chain(MAX_BLOCK_DEPTH + 1).SerializeToString())  # depth 64: fine
    with pytest.raises(ProgramFormatError, match=r"block 65 is nested 65 blocks deep; "
                                                 r"paddle-ir allows at most 64"):
        pir.Program.parse(_chain(MAX_BLOCK_DEPTH + 2).SerializeToString())


def test_slot_arguments_and_io_name_lists_take_variables_or_names_only(tmp_path):
    """One rule (variable.names_of) for op slots, feed and fetch lists."""
    from paddle_ir.core.errors import InvalidProgramError

    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 2])
        block = main.global_block()
        with pytest.raises(InvalidProgramError, match="a slot argument must be a Variable or "
                                                      "a variable name, got 3"):
            block.append_op("scale", inputs={"X": 3}, outputs={"Out": x})
        y = pir.layers.scale(x, 2.0)
    with pytest.raises(InvalidProgramError, match="feeded_var_names must be a Variable or a "
                                                  r"variable name, got \['x'\]"):
        pir.save_inference_model(str(tmp_path), [["x"]], [y], main_program=main)
