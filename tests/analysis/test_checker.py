"""paddle_ir.analysis.checker: every problem of a program, found without running it."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.analysis.checker import check_bytes, check_program
from paddle_ir.analysis.graphviz import program_to_dot
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.ops import registry as op_registry
from paddle_ir.proto import framework_pb2 as pb
from tests.example_programs import build_affine, build_counter


def _copy(desc: pb.ProgramDesc) -> pb.ProgramDesc:
    copy = pb.ProgramDesc()
    copy.CopyFrom(desc)
    return copy


def _var(block: pb.BlockDesc, name: str) -> pb.VarDesc:
    return next(v for v in block.vars if v.name == name)


def _texts(problems) -> list[str]:
    return [str(p) for p in problems]


def test_sound_programs_have_no_problems():
    for build in (build_affine, build_counter):
        main, startup, _ = build()
        assert check_program(main.desc) == []
        assert check_program(startup.desc) == []
        assert check_bytes(main.serialize()) == []


def test_static_problems_are_all_listed_with_their_ops():
    main, _, names = build_affine()
    desc = _copy(main.desc)
    ops = desc.blocks[0].ops
    ops[0].type = "no_such_op"
    ops[1].inputs[1].arguments[0] = "ghost"
    next(a for a in ops[2].attrs if a.name == "scale").type = pb.INT
    ops[3].inputs[0].parameter = "Z"
    ops[3].attrs.add(name="colour", type=pb.STRING, s="red")
    desc.fetch_target_names.append("nowhere")
    texts = _texts(check_program(desc))
    expected = [
        "fetch target 'nowhere' is not a variable of block 0",
        "op #0 no_such_op (X=x, Y=affine_0.w_0 -> Out=elementwise_mul_0.tmp_0): unknown op "
        "type 'no_such_op' (op created at tests/example_programs.py:",
        "op #1 elementwise_add (X=elementwise_mul_0.tmp_0, Y=ghost -> "
        "Out=elementwise_add_0.tmp_0): Y names 'ghost', which is not declared in block 0",
        "op #2 scale (X=elementwise_add_0.tmp_0 -> Out=scale_0.tmp_0): attribute 'scale' of scale "
        "must be float (AttrType FLOAT), but the program stores INT",
        "op #3 scale (Z=x -> Out=scale_1.tmp_0): scale has no input slot 'Z'",
        "op #3 scale (Z=x -> Out=scale_1.tmp_0): input X of scale is required but is not given",
        "op #3 scale (Z=x -> Out=scale_1.tmp_0): scale has no attribute 'colour'",
    ]
    assert len(texts) == len(expected), "\n".join(texts)
    for text, want in zip(texts, expected, strict=True):
        assert want in text, f"{want!r} not in {text!r}"


def test_inference_problems_and_mismatched_declarations_are_listed():
    main, _, names = build_affine()
    desc = _copy(main.desc)
    block = desc.blocks[0]
    _var(block, names["w"]).lod_desc.tensor.dims[:] = [4]  # x[-1, 3] * w[4] cannot broadcast
    _var(block, names["unrelated"]).lod_desc.tensor.data_type = pb.FP64
    problems = check_program(desc)
    categories = [p.category for p in problems]
    assert categories == ["ShapeInferenceError", "InferenceMismatch"], _texts(problems)
    assert "op #0 elementwise_mul" in str(problems[0])
    assert "do not broadcast" in str(problems[0])
    assert ("variable 'scale_1.tmp_0' is declared differently from what its ops infer "
            "(declared vs inferred): dtype float64 vs float32") in str(problems[1])


def test_broken_blocks_are_reported_and_inference_is_skipped():
    main, _, _ = build_affine()
    desc = _copy(main.desc)
    desc.blocks.add(idx=7, parent_idx=3)
    desc.blocks[0].vars.add().CopyFrom(desc.blocks[0].vars[0])
    texts = _texts(check_program(desc))
    assert "[InvalidProgram] block 0: variable 'x' is declared twice" in texts
    assert "[InvalidProgram] block 1: block #1 says its idx is 7" in texts
    assert "[InvalidProgram] block 1: parent_idx 3 does not name an earlier block (0..0)" in texts
    assert texts[-1] == ("[InvalidProgram] build-time inference was skipped: the block "
                         "structure is invalid")


def test_block_attributes_must_name_a_sub_block(monkeypatch):
    # No registered op takes a block yet: give the checker a control-flow-like spec
    # for this test only, without registering it.
    fake = op_registry.OpDef("fake_cond", "", (op_registry.In("X"),), (op_registry.Out("Out"),),
                             (op_registry.Attr("sub_block", "block", 0),))
    real = op_registry.get_op_def
    monkeypatch.setattr(op_registry, "get_op_def",
                        lambda t: fake if t == "fake_cond" else real(t))
    main, _, names = build_affine()
    desc = _copy(main.desc)
    desc.blocks.add(idx=1, parent_idx=0)
    for block_idx in (1, 0, 5):
        op = desc.blocks[0].ops.add(type="fake_cond")
        op.inputs.add(parameter="X", arguments=["x"])
        op.outputs.add(parameter="Out", arguments=[names["unrelated"]])
        op.attrs.add(name="sub_block", type=pb.BLOCK, block_idx=block_idx)
    texts = _texts(check_program(desc))
    assert len(texts) == 2, texts
    assert "op #5 fake_cond" in texts[0] and "refers to block 0" in texts[0]
    assert "op #6 fake_cond" in texts[1] and ("refers to block 5, but the program's "
                                              "sub-blocks are 1..1") in texts[1]


def test_bytes_that_do_not_parse_are_one_problem():
    (problem,) = check_bytes(b"\xff\xff\xff not a program")
    assert problem.category == "ProgramFormatError"
    assert "the bytes are not a paddle-ir ProgramDesc" in str(problem)
    (missing,) = check_bytes(pb.ProgramDesc().SerializeToString())
    assert "has no blocks" in str(missing)


# --- graphviz ---------------------------------------------------------------------------


def test_dot_marks_persistable_lod_and_selected_rows_variables():
    main, _, names = build_affine()
    block = main.global_block()
    block.create_var(name="seq", shape=[-1, 3], lod_level=2)
    block.create_var(name="grad_rows", shape=[10, 3], type=pb.VarDesc.SELECTED_ROWS)
    dot = program_to_dot(main.desc)
    assert dot.startswith("digraph program {") and dot.endswith("}\n")
    assert f'"var:0:{names["w"]}" [shape="ellipse", fillcolor="#fff2cc", style="filled"' in dot
    assert '"var:0:seq" [shape="ellipse", peripheries="2", label="seq\\n[-1, 3] ' \
           'float32\\nlod_level=2"];' in dot
    assert '"var:0:grad_rows" [shape="octagon", color="#c0392b"' in dot
    assert 'SELECTED_ROWS"];' in dot
    assert '"op:0:0" [shape=box, style="rounded,filled"' in dot
    assert '"var:0:x" -> "op:0:0" [label="X"];' in dot
    assert program_to_dot(main.desc) == dot  # deterministic


def test_text_that_is_not_utf8_is_reported_and_ends_the_check():
    main, _, _ = build_affine()
    raw = main.serialize().replace(b"affine_0.w_0", b"affine_0.w\xff\xfe")
    texts = _texts(check_bytes(raw))
    assert texts[0] == "[InvalidProgram] blocks[0].vars[1].name is not UTF-8 text", texts
    assert all("is not UTF-8 text" in t for t in texts)


def test_a_variable_without_a_data_type_fails_inference_of_the_ops_reading_it():
    # Found by the fuzzer: lookup_table and lod_reset read `dtype.kind` of None.
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        ids = pir.layers.data("ids", [-1, 1], dtype="int64")
        pir.layers.embedding(ids, [10, 4])
    desc = _copy(main.desc)
    _var(desc.blocks[0], "ids").type = pb.VarDesc.SELECTED_ROWS  # no selected_rows_desc
    texts = _texts(check_program(desc))
    assert "[InvalidProgram] block 0: variable 'ids' has no (known) data type" in texts
    assert any(t.startswith("[ShapeInferenceError] block 0, op #0 lookup_table")
               and "): input Ids (ids) has no data type (op created at" in t for t in texts), texts


def test_a_0d_variable_declared_with_a_lod_fails_the_sequence_ops_reading_it():
    # Found by the fuzzer: sequence_concat indexed shape[0] of a 0-D input.
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        seq = pir.layers.data("seq", [-1, 2], lod_level=1)
        pir.layers.sequence_concat([seq, seq])
    desc = _copy(main.desc)
    del _var(desc.blocks[0], "seq").lod_desc.tensor.dims[:]
    (problem,) = check_program(desc)
    assert "op #0 sequence_concat" in str(problem)
    assert ("Input(X) of sequence_concat is a sequence batch, so it needs a row dimension, "
            "but 'seq' is declared 0-D with lod_level 1") in str(problem)


def test_block_nesting_beyond_the_bound_is_reported():
    desc = pb.ProgramDesc(blocks=[pb.BlockDesc(idx=0, parent_idx=-1)])
    for i in range(1, 67):
        desc.blocks.add(idx=i, parent_idx=i - 1)
    texts = _texts(check_program(desc))
    assert texts[:2] == ["[InvalidProgram] block 65: nested 65 blocks deep; paddle-ir allows "
                         "at most 64",
                         "[InvalidProgram] block 66: nested 66 blocks deep; paddle-ir allows "
                         "at most 64"], texts


def test_shapes_that_overflow_int64_are_an_inference_error():
    # Found while writing docs/errors.md: reshape's product of dims overflowed int64
    # and protobuf raised ValueError("Value out of range") when the output was declared.
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [3, 4], append_batch_size=False)
        pir.layers.reshape(x, [-1])
    desc = _copy(main.desc)
    _var(desc.blocks[0], "x").lod_desc.tensor.dims[:] = [2**62, 4]
    (problem,) = check_program(desc)
    assert problem.category == "ShapeInferenceError"
    assert ("output Out (reshape_0.tmp_0) would have shape [18446744073709551616], which "
            "overflows: a tensor holds at most 2**63 - 1 bytes") in str(problem)


def test_a_lod_level_pushed_beyond_its_range_is_an_inference_error():
    # Found by the 10-minute fuzz run: a rule adding a level to a declared lod_level of
    # 2**31 - 1 made protobuf raise ValueError("Value out of range") writing the VarDesc.
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 2], lod_level=1)
        pir.layers.lod_append(x, [1, 1])
    desc = _copy(main.desc)
    _var(desc.blocks[0], "x").lod_desc.lod_level = 2**31 - 1
    (problem,) = check_program(desc)
    assert problem.category == "ShapeInferenceError"
    assert ("output Out (lod_append_0.tmp_0) would have lod_level 2147483648; a LoD has 0 to "
            "32 levels") in str(problem)


def test_a_lod_declared_where_the_op_gives_none_fails_the_sequence_op_as_run_does():
    # A file may declare an op's output with a LoD the op does not give it (Paddle's op
    # shared one, paddle-ir's rule does not): run refuses the sequence op reading it, so
    # check must too. Failed before the fix: check read the declaration and passed.
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [5, 4], append_batch_size=False, lod_level=1)
        flat = pir.layers.reshape(x, [10, 2])  # Out's first dim is not X's: no LoD
        flat.lod_level = 1  # as a file declares it
        pir.layers.sequence_pool(flat, pool_type="sum")
    desc = _copy(main.desc)
    texts = _texts(check_program(desc))
    assert any("sequence_pool" in t and "should be larger than 0" in t
               and f"{flat.name!r} has lod_level 0" in t for t in texts), texts
    assert any(f"variable {flat.name!r} is declared differently" in t
               and "lod_level 1 vs 0" in t for t in texts), texts
    x_value = pir.create_lod_tensor(np.ones((5, 4), np.float32), [[2, 3]])
    with pytest.raises(PaddleIRError, match="should be larger than 0"):
        pir.Executor().run(pir.Program.parse(desc.SerializeToString()), feed={"x": x_value},
                           fetch_list=[], scope=pir.Scope())
