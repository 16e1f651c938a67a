"""The PIR writer (paddle_format/pir/write.py and lowering.py): old-IR programs written as
PIR read back and run to Paddle's own outputs (tests/fixtures/paddle, saved by Paddle
itself), lowered idioms compute what numpy does, and what PIR cannot hold is refused by
name. Paddle 3.3.1 loading the written files is tests/paddle_format/pir/test_write_interop.py.
"""

import json

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import io, layers, paddle_format
from paddle_ir.executor import Executor, Scope
from paddle_ir.framework import Program
from paddle_ir.paddle_format import PaddleFormatError
from paddle_ir.paddle_format.pir import OPS, read_pir_program
from paddle_ir.paddle_format.pir.op_table import WITHOUT
from paddle_ir.paddle_format.pir.signatures import ATTRS, OPERANDS, RESULTS
from paddle_ir.paddle_format.pir.write import INVERSE, encode, write_pir_program
from tests.paddle_helpers import FIXTURES, assert_matches_paddle, feeds

# Old-IR fixtures whose every op has a PIR form; the others hold ops PIR has no
# entry for (UNWRITABLE names them) and are refused.
WRITABLE = ("mlp", "conv", "encoder", "mobilenet_v1", "cnn_head", "tensor_ops", "resize",
            "detection", "rnn_text", "cond_loop", "selection", "math_ops", "text",
            "op_semantics", "deformable", "yolo_loss")
UNWRITABLE = {"proposals": "anchor_generator, bipartite_match",
              "quantize": "dequantize_abs_max, dequantize_linear"}


def _round_trip(program: Program) -> Program:
    return Program.from_desc(read_pir_program(write_pir_program(program.desc), "w.json"))


def _run(program: Program, scope, feed):
    return [np.asarray(v) for v in Executor().run(
        program, feed=feed, fetch_list=program.fetch_target_names, scope=scope)]


@pytest.mark.parametrize("name", WRITABLE)
def test_a_written_fixture_reads_back_and_gives_paddles_outputs(name):
    scope = Scope()
    program, _, _ = paddle_format.load_inference_model(str(FIXTURES / name / "model"), scope)
    again = _round_trip(program)
    assert list(again.desc.feed_target_names) == list(program.desc.feed_target_names)
    assert list(again.fetch_target_names) == list(program.fetch_target_names)
    assert_matches_paddle(name, _run(again, scope, feeds(name)))


@pytest.mark.parametrize("name", sorted(UNWRITABLE))
def test_ops_without_a_pir_form_are_listed_together(name):
    program = paddle_format.load_paddle_program(FIXTURES / name / "model.pdmodel")
    with pytest.raises(PaddleFormatError, match=rf"cannot write as Paddle 3 PIR: .*"
                                                 rf"{UNWRITABLE[name]}"):
        write_pir_program(program.desc)


def test_the_document_is_what_paddle_3_3_writes():
    program = paddle_format.load_paddle_program(FIXTURES / "mlp" / "model.pdmodel")
    doc = json.loads(write_pir_program(program.desc))
    assert doc["base_code"] == {"magic": "pir", "trainable": False, "version": 4}
    ops = doc["program"]["regions"][0]["blocks"][0]["ops"]
    params = [op["A"][3] for op in ops if op["#"] == "p"]
    assert params == sorted(params) and params  # .pdiparams order
    data = [op for op in ops if op["#"] == "1.data"]
    assert [d["A"][0]["AT"]["D"] for d in data] == list(program.desc.feed_target_names)
    fetch = [op for op in ops if op["#"] == "1.fetch"]
    assert [f["A"][0]["AT"]["D"] for f in fetch] == program.fetch_target_names
    ids = [r["%"] for op in ops for r in ([op["O"]] if op["#"] == "p" else op["O"])]
    assert len(ids) == len(set(ids))  # SSA: every value defined once


def test_every_entry_has_paddles_signature_and_counts():
    """signatures.py (from Paddle's translator) covers the table; operand and result
    counts agree with the entries, which the reader relies on too."""
    for name, entry in OPS.items():
        assert name in ATTRS, name
        assert len(OPERANDS[name]) == len(entry.inputs), name
        assert RESULTS[name] == len(entry.outputs), name
    assert set(INVERSE) == {e.type for e in (*OPS.values(), *WITHOUT.values())}


@pytest.mark.parametrize("default,value,want", [
    ({"#": "0.a_i32", "D": 0}, 3, {"#": "0.a_i32", "D": 3}),
    ({"#": "0.a_i64", "D": -1}, 2.0, {"#": "0.a_i64", "D": 2}),
    ({"#": "0.a_f32", "D": 0.5}, 1, {"#": "0.a_f32", "D": 1.0}),
    ({"#": "1.a_dtype", "D": "float32"}, 3, {"#": "1.a_dtype", "D": "int64"}),
    ({"#": "1.a_dtype", "D": "float32"}, -1, {"#": "1.a_dtype", "D": "Undefined(ALL_DTYPE)"}),
    ({"#": "0.a_array", "D": [{"#": "0.a_i64", "D": 1}]}, [4, 5],
     {"#": "0.a_array", "D": [{"#": "0.a_i64", "D": 4}, {"#": "0.a_i64", "D": 5}]}),
])
def test_attributes_take_paddles_kind(default, value, want):
    assert encode(default, value, "here") == want


def test_a_fractional_value_for_an_integer_attribute_is_refused():
    with pytest.raises(PaddleFormatError, match="2.5 is not an integer"):
        encode({"#": "0.a_i32", "D": 0}, 2.5, "op axis")


def _build(fn, feed_shapes):
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        ins = [layers.data(n, list(s), append_batch_size=False) for n, s in feed_shapes]
        outs = fn(*ins)
    scope = Scope()
    Executor().run(startup, scope=scope)
    return main, scope, ins, outs


def _write_and_run(main, scope, ins, outs, feed, tmp_path):
    io.save_inference_model(str(tmp_path), [v.name for v in ins], outs, main_program=main,
                            scope=scope, format="pir")
    assert (tmp_path / "model.json").is_file() and (tmp_path / "model.pdiparams").is_file()
    new_scope = Scope()
    program, names, fetches = io.load_inference_model(str(tmp_path), scope=new_scope)
    return [np.asarray(v) for v in Executor().run(program, feed=feed, fetch_list=fetches,
                                                  scope=new_scope)]


RNG = np.random.default_rng(7)


def test_mul_flattening_trailing_dims_is_reshape_then_matmul(tmp_path):
    x = RNG.standard_normal((2, 3, 4, 5)).astype("float32")
    y = RNG.standard_normal((20, 6)).astype("float32")
    main, scope, ins, outs = _build(
        lambda a, b: [layers.mul(a, b, x_num_col_dims=2)], [("x", x.shape), ("y", y.shape)])
    (got,) = _write_and_run(main, scope, ins, outs, {"x": x, "y": y}, tmp_path)
    np.testing.assert_allclose(got, (x.reshape(6, 20) @ y).reshape(2, 3, 6), rtol=1e-5,
                               atol=1e-5)


def test_elementwise_axis_lines_y_up_as_fluid_does(tmp_path):
    x = RNG.standard_normal((2, 3, 4)).astype("float32")
    y = RNG.standard_normal((3,)).astype("float32")
    main, scope, ins, outs = _build(lambda a, b: [layers.elementwise_add(a, b, axis=1)],
                                    [("x", x.shape), ("y", y.shape)])
    (got,) = _write_and_run(main, scope, ins, outs, {"x": x, "y": y}, tmp_path)
    np.testing.assert_allclose(got, x + y[None, :, None], rtol=1e-6)


@pytest.mark.parametrize("fixture,old,new,pir", [
    ("proposals", None, "generate_proposals", "pd_op.legacy_generate_proposals"),
    ("text", "sequence_pool", "sequence_reverse", "pd_op.sequence_reverse")])
def test_an_op_paddle_3_dropped_is_refused_saying_so(fixture, old, new, pir):
    """Ops Paddle 3.3's own translator has no PIR op for (signatures.NO_PIR_OP, learnt
    from it): the refusal says no PIR model can hold them, not that an entry is missing."""
    program = paddle_format.load_paddle_program(FIXTURES / fixture / "model.pdmodel")
    for op in program.desc.blocks[0].ops:
        if op.type == old:
            op.type = new
    with pytest.raises(PaddleFormatError, match=rf"Paddle 3's PIR has no form of {new} \(its "
                                                rf"translator has no {pir}: Paddle 3 dropped"):
        write_pir_program(program.desc)


def test_elementwise_axis_lines_up_an_x_of_lower_rank(tmp_path):
    """Fluid aligns whichever operand has the lower rank at `axis`: here X inside Y."""
    x = RNG.standard_normal((3,)).astype("float32")
    y = RNG.standard_normal((2, 3, 4)).astype("float32")
    main, scope, ins, outs = _build(lambda a, b: [layers.elementwise_sub(a, b, axis=1)],
                                    [("x", x.shape), ("y", y.shape)])
    (got,) = _write_and_run(main, scope, ins, outs, {"x": x, "y": y}, tmp_path)
    np.testing.assert_allclose(got, x[None, :, None] - y, rtol=1e-6)


def _selection_with(index: int, **attrs):
    """The selection fixture (Paddle's own) with set_value op #index's attributes changed."""
    from paddle_ir.core.attrs import to_attr_proto

    scope = Scope()
    program, _, _ = paddle_format.load_inference_model(str(FIXTURES / "selection" / "model"),
                                                       scope)
    op = [op for op in program.desc.blocks[0].ops if op.type == "set_value"][index]
    for name, (kind, value) in attrs.items():
        kept = [a for a in op.attrs if a.name != name]
        del op.attrs[:]
        op.attrs.extend([*kept, to_attr_proto(name, kind, value)])
    return program, scope


def test_an_older_set_values_typed_list_is_written_as_values():
    """Paddle 2.x's set_value keeps its value in fp32_values (and values empty): written as
    PIR's values scalars, it reads back and gives Paddle's outputs."""
    program, scope = _selection_with(0, values=("float64s", []), fp32_values=("floats", [0.5]))
    doc = json.loads(write_pir_program(program.desc))
    ops = doc["program"]["regions"][0]["blocks"][0]["ops"]
    first = next(op for op in ops if op["#"] == "1.set_value")
    assert {a["N"]: a["AT"] for a in first["A"]}["values"] == {
        "#": "0.a_array", "D": [{"#": "0.a_f64", "D": 0.5}]}
    assert_matches_paddle("selection", _run(_round_trip(program), scope, feeds("selection")))


def test_set_value_whose_dtype_changes_its_numbers_is_refused():
    """PIR's set_value assigns in Input's type: values that Fluid's dtype (float32) rounds
    differently from Input's int64 would change the result."""
    program, _ = _selection_with(3, dtype=("int", 5), values=("float64s", [16777217.0]))
    with pytest.raises(PaddleFormatError, match=r"set_value's values \[16777217.0\] in its "
                                                r"dtype 5 are not the same numbers in Input "
                                                r"'idx'"):
        write_pir_program(program.desc)


def test_fill_constant_becomes_full(tmp_path):
    x = RNG.standard_normal((2, 3)).astype("float32")

    def build(a):
        c = layers.fill_constant([2, 3], "float32", 2.5)
        return [layers.elementwise_mul(a, c)]

    main, scope, ins, outs = _build(build, [("x", x.shape)])
    (got,) = _write_and_run(main, scope, ins, outs, {"x": x}, tmp_path)
    np.testing.assert_allclose(got, x * 2.5, rtol=1e-6)
    ops = json.loads((tmp_path / "model.json").read_bytes())["program"]["regions"][0][
        "blocks"][0]["ops"]
    (full,) = [op for op in ops if op["#"] == "1.full"]
    assert {a["N"]: a["AT"]["D"] for a in full["A"]}["value"] == 2.5


def test_an_attribute_pir_cannot_express_is_refused(tmp_path):
    main, scope, ins, outs = _build(lambda a: [layers.relu6(a, threshold=3.0)], [("x", [2])])
    with pytest.raises(PaddleFormatError, match=r"relu6 \(pd_op.relu6\): attribute threshold "
                                                r"= 6.0 is the only value"):
        io.save_inference_model(str(tmp_path), ["x"], outs, main_program=main, scope=scope,
                                format="pir")
    assert not (tmp_path / "model.json").exists()


def test_a_pir_model_written_again_reads_the_same(tmp_path):
    """PIR fixtures Paddle saved: read, written by paddle-ir, read again: Paddle's outputs."""
    from tests.paddle_format.pir.test_models import MODELS, PIR, _assert_matches, _feeds

    for name in MODELS:
        scope = Scope()
        program, _, _ = paddle_format.load_inference_model(str(PIR / name / "model"), scope)
        again = _round_trip(program)
        _assert_matches(name, _run(again, scope, _feeds(name)))


@pytest.mark.parametrize("feeds_file,outputs_file", [("feeds", "outputs"),
                                                     ("feeds_false", "outputs_false")])
def test_control_flow_is_written_as_pir_regions(feeds_file, outputs_file):
    """Old-IR static.nn.cond + while_loop (Paddle's cond_loop fixture) written as
    pd_op.if / pd_op.select_input / pd_op.while, read back: Paddle's outputs, both
    branches."""
    scope = Scope()
    program, _, _ = paddle_format.load_inference_model(str(FIXTURES / "cond_loop" / "model"),
                                                       scope)
    doc = json.loads(write_pir_program(program.desc))
    names = [op["#"] for op in doc["program"]["regions"][0]["blocks"][0]["ops"]]
    assert names.count("1.if") == 2 and names.count("1.select_input") == 2
    assert names.count("1.while") == 1
    (loop,) = [op for op in doc["program"]["regions"][0]["blocks"][0]["ops"]
               if op["#"] == "1.while"]
    body = loop["regions"][0]["blocks"][0]
    assert [a["#"] for a in body["args"]] == [-1, -2] and body["ops"][-1]["#"] == "2.yield"
    again = _round_trip(program)
    with np.load(FIXTURES / "cond_loop" / f"{feeds_file}.npz") as data:
        feed = {"x": data["x"]}
    with np.load(FIXTURES / "cond_loop" / f"{outputs_file}.npz") as data:
        want = [data[f"out.{i}"] for i in range(len(data.files))]
    for got, w in zip(_run(again, scope, feed), want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


def test_a_program_optimized_at_load_says_how_to_save_it_as_pir(tmp_path):
    """The load-time passes fuse an inference model's layers into fc / fused_conv2d, which
    no PIR model holds: the error says to load with optimize=False."""
    scope = Scope()
    program, names, fetches = io.load_inference_model(str(FIXTURES / "mlp" / "model"),
                                                      scope=scope)
    assert "fc" in {op.type for op in program.global_block().ops}
    with pytest.raises(PaddleFormatError, match=r"(?s)fc .*load-time fusions.*optimize=False"):
        io.save_inference_model(str(tmp_path), names, fetches, main_program=program,
                                scope=scope, format="pir")
