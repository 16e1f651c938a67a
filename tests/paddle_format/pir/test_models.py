"""Models paddlepaddle 3.3.1 saved in its default PIR mode (tests/fixtures/paddle_pir/, by
tools/make_pir_fixtures.py) run in paddle-ir with Paddle's outputs, through every entry
point that takes a Paddle model."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from paddle_ir import io, paddle_format
from paddle_ir.cli.main import main
from paddle_ir.executor import Executor, Scope

PIR = Path(__file__).resolve().parents[2] / "fixtures" / "paddle_pir"
MODELS = ("mlp", "conv", "attention", "embedding", "lstm", "branch", "cond_loop")


def _feeds(name):
    with np.load(PIR / name / "feeds.npz", allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def _expected(name):
    with np.load(PIR / name / "outputs.npz", allow_pickle=False) as data:
        return [data[f"out.{i}"] for i in range(len(data.files))]


def _run(path, feed):
    scope = Scope()
    program, feed_names, fetches = io.load_inference_model(str(path), scope=scope)
    assert sorted(feed_names) == sorted(feed)
    return [np.asarray(v) for v in Executor().run(program, feed=feed, fetch_list=fetches,
                                                  scope=scope)]


def _assert_matches(name, outputs):
    expected = _expected(name)
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected, strict=True):
        assert got.shape == want.shape and got.dtype == want.dtype
        assert np.abs(got.astype("float64") - want).max() <= 1e-5, name


@pytest.mark.parametrize("name", MODELS)
def test_pir_model_gives_paddles_outputs(name):
    _assert_matches(name, _run(PIR / name, _feeds(name)))


@pytest.mark.parametrize("target", ["model.json", "model", "model.pdiparams"])
def test_every_path_to_the_model_finds_it(target):
    model = paddle_format.locate(PIR / "mlp" / target)
    assert model.is_pir and model.program_file == str(PIR / "mlp" / "model.json")
    assert model.params_file == str(PIR / "mlp" / "model.pdiparams")
    _assert_matches("mlp", _run(PIR / "mlp" / target, _feeds("mlp")))


def test_feeds_follow_the_data_ops_and_fetches_the_col_order():
    program = paddle_format.load_paddle_program(PIR / "embedding")
    assert program.feed_target_names == ["ids", "extra", "mask"]
    # Fetch targets take the names Paddle's fetch ops give them.
    assert program.fetch_target_names == ["fetch_name_0", "fetch_name_1"]
    ops = program.desc.blocks[0].ops
    assert [o.type for o in ops if o.outputs[0].arguments[0] == "fetch_name_0"] == ["sigmoid"]
    block = program.desc.blocks[0]
    params = sorted(v.name for v in block.vars if v.persistable)
    assert params == ["embedding_1.w_0", "linear_6.b_0", "linear_6.w_0"]


def test_constants_fold_into_attributes():
    """pool2d's kernel size and reshape's shape come from pd_op.full_int_array in PIR; the
    old ops hold them as attributes, and no constant op is left behind for them."""
    program = paddle_format.load_paddle_program(PIR / "conv")
    ops = program.desc.blocks[0].ops
    types = [op.type for op in ops]
    assert "fill_constant" not in types and "assign_value" not in types
    pools = [op for op in ops if op.type == "pool2d"]
    ksize = [[list(a.ints) for a in op.attrs if a.name == "ksize"][0] for op in pools]
    assert ksize == [[2, 2], [1, 1]]


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_run_check_dump_on_a_pir_directory(capsys, tmp_path):
    out_file = tmp_path / "out.npz"
    code, out, err = _cli(capsys, "run", PIR / "attention", "--feeds",
                          PIR / "attention" / "feeds.npz", "--out", out_file)
    assert code == 0, err
    with np.load(out_file) as data:
        _assert_matches("attention", [data[k] for k in data.files])
    code, out, _ = _cli(capsys, "check", PIR / "conv" / "model.json")
    assert code == 0 and "(Paddle 3 PIR) and its parameters: OK" in out
    code, out, _ = _cli(capsys, "dump", PIR / "mlp")
    assert code == 0 and "matmul_v2(inputs={X=[x], Y=[linear_0.w_0]}" in out


def test_convert_a_pir_model_to_paddle_ir_files_and_back_to_pdmodel(capsys, tmp_path):
    code, _, err = _cli(capsys, "convert", PIR / "conv", tmp_path / "ours")
    assert code == 0, err
    _assert_matches("conv", _run(tmp_path / "ours", _feeds("conv")))
    code, _, err = _cli(capsys, "convert", tmp_path / "ours", tmp_path / "old" / "model")
    assert code == 0, err
    _assert_matches("conv", _run(tmp_path / "old" / "model.pdmodel", _feeds("conv")))


def test_control_flow_takes_either_branch_as_paddle_does():
    """cond_loop's pd_op.if (two results) and pd_op.while, on the feed Paddle saved and on
    its negation, which takes the false branch (tools/make_pir_fixtures.py)."""
    with np.load(PIR / "cond_loop" / "feeds_false.npz") as data:
        feed = {"x": data["x"]}
    with np.load(PIR / "cond_loop" / "outputs_false.npz") as data:
        want = [data[f"out.{i}"] for i in range(len(data.files))]
    got = _run(PIR / "cond_loop", feed)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and np.abs(g - w).max() <= 1e-5


def test_control_flow_becomes_fluids_blocks():
    program = paddle_format.load_paddle_program(PIR / "cond_loop")
    blocks = program.desc.blocks
    top = [op.type for op in blocks[0].ops]
    assert top.count("conditional_block") == 2 and top.count("select_input") == 2
    assert top.count("while") == 1 and "logical_not" in top
    assert len(blocks) == 4 and all(b.parent_idx == 0 for b in blocks[1:])
    # the full reduction PIR makes 0-D stays 0-D: Paddle 3's shape, squeezed from Fluid's [1]
    (squeeze,) = [op for op in blocks[0].ops if op.type == "squeeze2"]
    assert [a.ints for a in squeeze.attrs if a.name == "axes"] == [[0]]


def test_check_passes_a_model_with_control_flow(capsys):
    code, out, _ = _cli(capsys, "check", PIR / "cond_loop")
    assert code == 0 and ": OK (4 block(s)" in out


def test_format_pir_reads_a_pir_program_under_any_name(capsys, tmp_path):
    shutil.copy(PIR / "mlp" / "model.json", tmp_path / "program.bin")
    code, out, err = _cli(capsys, "run", tmp_path / "program.bin", "--format", "pir",
                          "--params", PIR / "mlp" / "model.pdiparams",
                          "--feeds", PIR / "mlp" / "feeds.npz", "--out", tmp_path / "o.npz")
    assert code == 0, err
    with np.load(tmp_path / "o.npz") as data:
        _assert_matches("mlp", [data[k] for k in data.files])
    old = PIR.parent / "paddle" / "mlp" / "model.pdmodel"
    code, out, err = _cli(capsys, "check", "--format", "pir", old)
    assert code != 0 and "--format pir, but" in out + err and "is not a Paddle 3 PIR" in out + err
