"""What paddle-ir says about a PIR program it cannot read, and about a file that is not
what it was given as: always a project error naming the file and what it is."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from paddle_ir import io, paddle_format
from paddle_ir.cli.main import main
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.executor import Scope
from paddle_ir.paddle_format import PaddleFormatError
from paddle_ir.paddle_format.pir import read_pir_program
from tests.paddle_format.pir.documents import Doc, attr

PIR = Path(__file__).resolve().parents[2] / "fixtures" / "paddle_pir"
MLP_JSON = (PIR / "mlp" / "model.json").read_bytes()


def _mlp() -> dict:
    return json.loads(MLP_JSON)


def _ops(doc: dict) -> list:
    return doc["program"]["regions"][0]["blocks"][0]["ops"]


def _read(doc) -> None:
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    read_pir_program(data, "DIR/model.json")


def test_unknown_ops_are_all_listed_in_one_error():
    doc = _mlp()
    names = [op["#"] for op in _ops(doc)]
    _ops(doc)[names.index("1.relu")]["#"] = "1.fancy"
    _ops(doc)[names.index("1.softmax")]["#"] = "1.fancier"
    _ops(doc)[names.index("1.matmul")]["#"] = "1.fancy"
    with pytest.raises(PaddleFormatError, match=r"DIR/model.json is a Paddle 3 PIR program "
                                                r"with 2 op type\(s\) paddle-ir cannot map: "
                                                r"pd_op.fancier, pd_op.fancy \(x2\)"):
        _read(doc)


def test_unknown_ops_inside_control_flow_are_listed_too():
    """Ops nested in a pd_op.if's regions are read (control_flow.py) and an unknown one
    there is named with the rest."""
    doc = json.loads((PIR / "branch" / "model.json").read_text())
    (branch,) = [op for op in _ops(doc) if op["#"] == "1.if"]
    inner = branch["regions"][0]["blocks"][0]["ops"]
    inner[[op["#"] for op in inner].index("1.relu")]["#"] = "1.fancy"
    with pytest.raises(PaddleFormatError, match=r"with 1 op type\(s\) paddle-ir cannot map: "
                                                r"pd_op.fancy\n"):
        _read(doc)


@pytest.mark.parametrize("version", [0, 5, 99])
def test_an_unknown_version_is_refused_by_name(version):
    doc = _mlp()
    doc["base_code"]["version"] = version
    with pytest.raises(PaddleFormatError, match=rf"PIR program of version {version}, which "
                                                r"paddle-ir does not know \(it reads "
                                                r"versions 1-4"):
        _read(doc)


@pytest.mark.parametrize("version", [1, 2, 3])
def test_older_versions_read(version):
    doc = _mlp()
    doc["base_code"]["version"] = version
    _read(doc)


@pytest.mark.parametrize("change,message", [
    (lambda d: d["base_code"].update(version="4"), r"'version' must be a JSON int, got a "
                                                   r"string"),
    (lambda d: d["base_code"].update(magic="onnx"), r"magic is 'onnx', not 'pir'"),
    (lambda d: d.pop("base_code"), r"is JSON but not a Paddle PIR program"),
    (lambda d: _ops(d)[5].update(I="x"), r"op #5 1.matmul: 'I' must be a JSON list"),
    (lambda d: _ops(d)[5]["I"][0].update({"%": "5"}), r"operand #0: '%' must be a JSON int"),
    (lambda d: _ops(d)[5].update({"#": "9.matmul"}), r"no known dialect number"),
    (lambda d: _ops(d)[4]["A"][2]["AT"].update(D="float8"),
     r"data type 'float8' is not one paddle-ir has"),
    (lambda d: _ops(d)[4]["O"][0]["TT"]["D"].__setitem__(1, [2, "x"]),
     r"dims must be a list of integers >= -1"),
    (lambda d: _ops(d)[4]["O"][0]["TT"].update({"#": "0.t_sparse"}),
     r"type '0.t_sparse' is not one paddle-ir knows"),
    (lambda d: _ops(d)[0].update(A=[0, 1]), r"a parameter op's A must be"),
    (lambda d: d["program"]["regions"].append(d["program"]["regions"][0]),
     r"has 2 top-level regions"),
    # Found by replacing every node of the fixtures (regressions: numpy and protobuf
    # errors before): dims and integers beyond int64, a shape64 with no result.
    (lambda d: _ops(d)[0]["O"]["TT"]["D"].__setitem__(1, [10**30]),
     r"dims must be a list of integers >= -1"),
    (lambda d: _ops(d)[4]["A"][1]["AT"].update(D=[2**63]), r"a_intarray attribute holds"),
    (lambda d: _ops(d)[0]["O"].update({"%": 2**64}), r"is beyond the int64 range"),
])
def test_wrong_structure_names_the_place(change, message):
    doc = _mlp()
    change(doc)
    with pytest.raises(PaddleFormatError, match=message):
        _read(doc)


def test_undefined_and_cyclic_values():
    doc = _mlp()
    _ops(doc)[5]["I"][0]["%"] = 999
    with pytest.raises(PaddleFormatError, match=r"operand #0 is value %999, which no earlier "
                                                r"op defines \(the program is out of order, "
                                                r"cyclic or truncated\)"):
        _read(doc)
    doc = _mlp()
    matmul = _ops(doc)[5]
    matmul["I"][0]["%"] = matmul["O"][0]["%"]  # reads its own result
    with pytest.raises(PaddleFormatError, match=r"operand #0 is value %6, which no earlier"):
        _read(doc)
    doc = _mlp()
    _ops(doc)[6]["O"][0]["%"] = _ops(doc)[5]["O"][0]["%"]
    with pytest.raises(PaddleFormatError, match=r"value %6 is defined twice"):
        _read(doc)


def test_constants_beyond_their_dtype_and_ops_without_operands_or_results():
    doc = Doc()
    x = doc.data("x", "float32", (2, 3))
    big = doc.op("1.full_int_array", [], [("int32", (1,))], [
        {"N": "value", "AT": {"#": "0.a_array", "D": [{"#": "0.a_i64", "D": 2**40}]}},
        attr("dtype", "a_dtype", "int32")])[0]
    (out,) = doc.op("1.reshape", [x, big], [("float32", (6,))])
    doc.op("1.shape64", [x], [])
    doc.op("1.cast", [], [("int32", (2, 3))], [attr("dtype", "a_dtype", "int32")])
    doc.fetch(out, "float32", (6,))
    with pytest.raises(PaddleFormatError, match=r"(?s)full_int_array op needs an integer "
                                                r"list value.*a shape64 op needs one operand "
                                                r"and one result.*paddle-ir's cast needs "
                                                r"input\(s\) X, which the op does not give"):
        _read(doc.bytes())


def test_an_attribute_that_would_change_the_result_is_refused():
    doc = Doc()
    x = doc.data("x", "float32", (2, 3))
    (out,) = doc.op("1.sum", [x, doc.int_array([1])], [("float64", (2,))], [
        attr("dtype", "a_dtype", "float64"), attr("keepdim", "a_bool", False)])
    doc.fetch(out, "float64", (2,))
    with pytest.raises(PaddleFormatError, match=r"op #\d+ pd_op.sum: attribute dtype = 6 is "
                                                r"not implemented by paddle-ir's reduce_sum"):
        _read(doc.bytes())


def test_an_operand_computed_at_run_time_where_only_a_constant_fits():
    doc = Doc()
    x = doc.data("x", "float32", (2, 3))
    s = doc.data("s", "float32", (1,))
    (out,) = doc.op("1.scale", [x, s], [("float32", (2, 3))], [
        attr("bias", "a_f32", 0.0), attr("bias_after_scale", "a_bool", True)])
    doc.fetch(out, "float32", (2, 3))
    with pytest.raises(PaddleFormatError, match=r"operand #1 \(scale\) is computed when the "
                                                r"program runs; paddle-ir's scale takes scale "
                                                r"only as a constant"):
        _read(doc.bytes())


def test_text_that_is_not_json_or_nests_too_deep():
    with pytest.raises(PaddleFormatError, match=r"is not a Paddle PIR program: it is not JSON"):
        _read(MLP_JSON[:1000])
    with pytest.raises(PaddleFormatError, match=r"nests too deep|not JSON"):
        _read(b'{"base_code": ' + b"[" * 200_000 + b"]" * 200_000 + b"}")
    with pytest.raises(PaddleFormatError, match=r"not JSON"):
        _read(b"\xff\xfe{}")


def test_truncation_anywhere_is_a_format_error():
    for end in range(1, len(MLP_JSON), max(1, len(MLP_JSON) // 97)):
        with pytest.raises(PaddleFormatError):
            _read(MLP_JSON[:end])


def _swaps(node, path=()):
    """Every (path, value) of the document, for replacing one node at a time."""
    yield path
    items = node.items() if isinstance(node, dict) else (
        enumerate(node) if isinstance(node, list) else ())
    for key, child in items:
        yield from _swaps(child, (*path, key))


def test_any_node_of_a_wrong_type_is_a_project_error(tmp_path):
    """Each node of the conv fixture's document replaced by values of other JSON types:
    reading and loading either works or raises a project error, never a stray one."""
    original = json.loads((PIR / "conv" / "model.json").read_bytes())
    paths = list(_swaps(original))[1::7]
    assert len(paths) > 100
    shutil.copy(PIR / "conv" / "model.pdiparams", tmp_path / "model.pdiparams")
    for path in paths:
        for replacement in ("x", None, -1, 1.5, [], {}, True):
            doc = json.loads(json.dumps(original))
            node = doc
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = replacement
            (tmp_path / "model.json").write_text(json.dumps(doc))
            try:
                io.load_inference_model(str(tmp_path), scope=Scope())
            except PaddleIRError:
                pass


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out + err


def test_a_pdiparams_without_its_program(capsys, tmp_path):
    shutil.copy(PIR / "mlp" / "model.pdiparams", tmp_path / "model.pdiparams")
    for target in (tmp_path, tmp_path / "model.pdiparams"):
        code, text = _cli(capsys, "run", target, "--feeds", PIR / "mlp" / "feeds.npz")
        assert code != 0
        assert (f"{tmp_path / 'model.pdiparams'} is a Paddle parameter file (.pdiparams: "
                f"tensor records with no names), and its program is missing: expected "
                f"{tmp_path / 'model.json'} (Paddle 3 PIR) or {tmp_path / 'model.pdmodel'}"
                in text), text
    with pytest.raises(PaddleFormatError, match=r"its program is missing"):
        io.load_inference_model(str(tmp_path), scope=Scope())


def test_a_pir_json_given_as_a_paddle_ir_program(capsys, tmp_path):
    code, text = _cli(capsys, "check", "--format", "paddle-ir", PIR / "mlp" / "model.json")
    assert code != 0
    assert "it is a Paddle 3 PIR program (JSON, as paddle.jit.save writes model.json): read " \
           "it as a Paddle model (`--format paddle`" in text, text
    assert "Wire format" not in text.split("; it is")[1]


def test_json_that_is_not_a_pir_program(capsys, tmp_path):
    (tmp_path / "config.json").write_text('{"Global": {"model_name": "x"}}')
    assert paddle_format.locate(tmp_path) is None  # a config file is not taken as a program
    code, text = _cli(capsys, "check", "--format", "paddle", tmp_path / "config.json")
    assert code != 0 and "is JSON but not a Paddle PIR program (no base_code object)" in text


def test_run_without_the_parameters_says_which_file(tmp_path):
    shutil.copy(PIR / "mlp" / "model.json", tmp_path / "model.json")
    with pytest.raises(PaddleIRError, match=r"no parameter file beside it \(expected "
                                            r".*model.pdiparams\)"):
        io.load_inference_model(str(tmp_path), scope=Scope())
    assert np  # (numpy stays imported for the fixtures' arrays in other tests)


def test_a_fifo_named_json_does_not_block_the_search(tmp_path):
    import os
    import threading

    os.mkfifo(tmp_path / "model.json")
    done = threading.Event()

    def search():
        paddle_format.locate(tmp_path)
        done.set()

    threading.Thread(target=search, daemon=True).start()
    assert done.wait(10), "locate blocked opening a FIFO"
