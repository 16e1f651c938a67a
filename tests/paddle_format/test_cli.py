"""`paddle-ir run/dump/check/convert/view` on Paddle's model files."""

import os
import shutil
import stat
import sys

import numpy as np
import pytest

from paddle_ir import io, paddle_format
from paddle_ir.cli.main import main
from paddle_ir.cli.view import paddle_copy, view_model
from paddle_ir.core import tensor_io
from paddle_ir.executor import Scope
from paddle_ir.model_files.params_file import MODEL_FILENAME
from paddle_ir.proto import paddle_framework_pb2 as ppb
from tests.paddle_helpers import FIXTURES, assert_matches_paddle, feeds, run_model

MLP, TEXT = FIXTURES / "mlp", FIXTURES / "text"


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("target", ["model.pdmodel", "model", "fluid", "fluid/__model__", "."])
def test_run_finds_the_parameters(capsys, tmp_path, target):
    out_file = tmp_path / "out.npz"
    code, out, err = _run(capsys, "run", TEXT / target, "--feeds", TEXT / "feeds.npz",
                          "--out", out_file)
    assert code == 0, err
    assert "softmax_0.tmp_0  shape=[3, 3]" in out
    with np.load(out_file) as data:
        assert_matches_paddle("text", [data["softmax_0.tmp_0"]])


def test_run_with_format_paddle_on_an_odd_name(capsys, tmp_path):
    shutil.copy(MLP / "model.pdmodel", tmp_path / "program.bin")
    code, _, err = _run(capsys, "run", tmp_path / "program.bin", "--format", "paddle",
                        "--params", MLP / "model.pdiparams", "--feeds", MLP / "feeds.npz",
                        "--fetch", "softmax_0.tmp_0")
    assert code == 0, err
    code, _, err = _run(capsys, "run", tmp_path / "program.bin", "--format", "paddle",
                        "--feeds", MLP / "feeds.npz")
    assert code == 1 and "nothing gives them values: pass --params FILE" in err
    code, _, err = _run(capsys, "run", tmp_path / "nothing", "--format", "paddle")
    assert code == 1 and "is not a Paddle model: expected a .pdmodel or PIR .json file" in err


def test_dump_shows_the_ops_and_the_params(capsys):
    code, out, _ = _run(capsys, "dump", TEXT / "model.pdmodel")
    assert code == 0
    assert "// feed targets: ids" in out and "// fetch targets: softmax_0.tmp_0" in out
    for fragment in ("= lookup_table_v2(inputs={Ids=[ids], W=[emb.w]}",
                     "= sequence_pool(inputs={X=[", "pooltype = 'SUM'", "= mul(", "= softmax("):
        assert fragment in out
    assert "op_callstack" not in out and "feed(" not in out
    code, out, _ = _run(capsys, "dump", TEXT / "model.pdiparams")
    assert code == 0 and "names from" in out and "emb.w" in out and "[20, 6]" in out
    code, out, _ = _run(capsys, "dump", TEXT / "fluid", "--format", "dot")
    assert code == 0 and out.startswith("digraph") and "lookup_table_v2" in out


def test_check_a_paddle_model(capsys, tmp_path):
    code, out, _ = _run(capsys, "check", MLP / "model.pdmodel")
    assert code == 0 and "(Paddle) and its parameters: OK (1 block(s), 6 op(s)" in out
    desc = paddle_format.parse_paddle_program((MLP / "model.pdmodel").read_bytes(), "mlp")
    desc.blocks[0].ops[3].type = "mystery_op"
    (tmp_path / "model.pdmodel").write_bytes(desc.SerializeToString())
    code, out, _ = _run(capsys, "check", tmp_path)
    assert code == 1 and "does not implement: mystery_op" in out


def test_convert_both_ways(capsys, tmp_path):
    code, out, err = _run(capsys, "convert", TEXT / "model.pdmodel", tmp_path / "ours")
    assert code == 0, err
    assert (tmp_path / "ours" / MODEL_FILENAME).exists()
    code, out, err = _run(capsys, "run", tmp_path / "ours", "--feeds", TEXT / "feeds.npz")
    assert code == 0 and "softmax_0.tmp_0" in out
    code, out, err = _run(capsys, "convert", tmp_path / "ours", tmp_path / "back" / "model")
    assert code == 0, err
    assert (tmp_path / "back" / "model.pdiparams").read_bytes() == \
        (TEXT / "model.pdiparams").read_bytes()
    assert_matches_paddle("text", run_model(tmp_path / "back" / "model.pdmodel", feeds("text")))
    code, out, err = _run(capsys, "convert", tmp_path / "ours", tmp_path / "fluid",
                          "--layout", "fluid")
    assert code == 0 and (tmp_path / "fluid" / "__model__").exists()
    assert_matches_paddle("text", run_model(tmp_path / "fluid", feeds("text")))


def _mlp_in_paddle_ir(directory) -> None:
    scope = Scope()
    program, names, fetches = io.load_inference_model(str(MLP / "model"), scope=scope)
    io.save_inference_model(str(directory), names, fetches, main_program=program, scope=scope)
    assert_matches_paddle("mlp", run_model(directory, feeds("mlp")))


def test_convert_into_an_existing_model_directory_replaces_what_loads(capsys, tmp_path):
    """Before: `wrote OUT/params`, exit 0, and OUT still loaded the old model (CURRENT)."""
    out = tmp_path / "out"
    _mlp_in_paddle_ir(out)
    code, _, err = _run(capsys, "convert", TEXT / "model.pdmodel", out)
    assert code == 0, err
    assert_matches_paddle("text", run_model(out, feeds("text")))
    code, stdout, err = _run(capsys, "run", out, "--feeds", TEXT / "feeds.npz")
    assert code == 0 and "softmax_0.tmp_0  shape=[3, 3]" in stdout, err
    # Into a paddle-ir directory as Paddle's files: the directory loads the new model.
    _mlp_in_paddle_ir(tmp_path / "again")
    io.save_inference_model(str(tmp_path / "again"), *_text_model(), format="paddle")
    assert not (tmp_path / "again" / MODEL_FILENAME).exists()
    assert_matches_paddle("text", run_model(tmp_path / "again", feeds("text")))


def _text_model():
    scope = Scope()
    program, names, fetches = io.load_inference_model(str(TEXT / "model"), scope=scope)
    return names, fetches, None, program, scope


def test_convert_fluid_over_a_combined_params_file_replaces_it(capsys, tmp_path):
    """Before: the per-parameter files were written, and loading preferred the stale
    __params__ (the old model, no warning)."""
    out = tmp_path / "fluid"
    out.mkdir()
    shutil.copy(MLP / "model.pdmodel", out / "__model__")  # fluid 1.x, combined params
    shutil.copy(MLP / "model.pdiparams", out / "__params__")
    assert_matches_paddle("mlp", run_model(out, feeds("mlp")))
    code, _, err = _run(capsys, "convert", TEXT / "model.pdmodel", tmp_path / "ours")
    assert code == 0, err
    code, _, err = _run(capsys, "convert", tmp_path / "ours", out, "--layout", "fluid")
    assert code == 0, err
    assert not (out / "__params__").exists()
    assert_matches_paddle("text", run_model(out, feeds("text")))
    code, stdout, err = _run(capsys, "run", out, "--feeds", TEXT / "feeds.npz")
    assert code == 0 and "softmax_0.tmp_0  shape=[3, 3]" in stdout, err


def test_convert_refuses_a_file_of_a_saved_directory(capsys, tmp_path):
    """A bare program written over DIR/model.pb would load nowhere: DIR loads its CURRENT."""
    out = tmp_path / "out"
    _mlp_in_paddle_ir(out)
    code, _, err = _run(capsys, "convert", FIXTURES / "train" / "main.pdmodel",
                        out / MODEL_FILENAME)
    assert code == 1 and "committed in gen-000001" in err, err
    assert_matches_paddle("mlp", run_model(out, feeds("mlp")))


def test_convert_a_training_program_without_params(capsys, tmp_path):
    code, out, err = _run(capsys, "convert", FIXTURES / "train" / "main.pdmodel",
                          tmp_path / "main.pb")
    assert code == 0, err
    program = io.load_program(tmp_path / "main.pb")
    assert sum(op.type == "adam" for op in program.desc.blocks[0].ops) == 6


def test_save_inference_model_in_paddles_formats(tmp_path):
    scope = Scope()
    program, feed_names, fetches = io.load_inference_model(str(MLP / "model"), scope=scope)
    for fmt, loaded_from in (("paddle", tmp_path / "p" / "model.pdmodel"),
                             ("fluid", tmp_path / "f")):
        io.save_inference_model(str(loaded_from.parent if fmt == "paddle" else loaded_from),
                                feed_names, fetches, main_program=program, scope=scope,
                                format=fmt)
        assert_matches_paddle("mlp", run_model(loaded_from, feeds("mlp")))


def test_view_hands_netron_a_paddle_copy(tmp_path):
    seen = []

    def launcher(path):  # stands in for Netron: what would it be given?
        seen.append(path)
        desc = ppb.ProgramDesc.FromString(open(path, "rb").read())
        assert [op.type for op in desc.blocks[0].ops][0] == "feed"
        assert open(path[: -len(".pdmodel")] + ".pdiparams", "rb").read() == \
            (TEXT / "model.pdiparams").read_bytes()

    scope = Scope()
    program, names, fetches = io.load_inference_model(str(TEXT / "model"), scope=scope)
    io.save_inference_model(str(tmp_path / "ours"), names, fetches, main_program=program,
                            scope=scope)
    view_model(str(tmp_path / "ours"), launcher=launcher)
    assert len(seen) == 1 and seen[0].endswith("ours.pdmodel")
    view_model(str(TEXT / "model.pdmodel"), launcher=launcher)  # Paddle's: a private copy
    assert seen[1] != str(TEXT / "model.pdmodel") and seen[1].endswith("/model.pdmodel")


@pytest.mark.parametrize("layout", ["paddle", "fluid", "combined"])
def test_view_serves_a_private_copy_of_the_model_files_only(tmp_path, layout):
    """Netron serves the directory of the file it is given, to any local user: it gets a
    0700 directory holding the model's files and nothing else (issue 27 item 9)."""
    source = tmp_path / "model"
    if layout == "paddle":
        shutil.copytree(TEXT, source)
        given, files = source / "model.pdmodel", ["model.pdiparams", "model.pdmodel"]
    else:
        shutil.copytree(MLP / "fluid", source)
        if layout == "combined":  # fluid's __params__: records in sorted name order
            program = paddle_format.load_paddle_program(source / "__model__")
            names = sorted(v.name for v in program.list_vars() if v.persistable
                           and (source / v.name).is_file())
            tensor_io.save_combined(source / "__params__", {
                n: tensor_io.load_lod_tensor(source / n) for n in names})
            for n in names:
                (source / n).unlink()
        given = source
        files = sorted(p.name for p in source.iterdir())
    (source / "secret.txt").write_text("not for the browser")
    (source / "sub").mkdir()
    (source / "sub" / "notes.txt").write_text("nor this")
    served = []

    def launcher(path):
        directory = os.path.dirname(path)
        served.append(directory)
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
        assert sorted(os.listdir(directory)) == files
        for name in files:
            assert open(os.path.join(directory, name), "rb").read() == \
                (source / name).read_bytes()

    view_model(str(given), launcher=launcher)
    assert len(served) == 1 and not os.path.exists(served[0])  # removed once Netron stops


def test_view_help_says_the_server_is_loopback_only_and_unauthenticated(capsys):
    with pytest.raises(SystemExit):
        main(["view", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "127.0.0.1 only (loopback) and without authentication" in text


def test_view_of_a_bare_program_writes_the_program_alone(tmp_path):
    io.save_program(tmp_path / "main.pb", paddle_format.load_paddle_program(
        FIXTURES / "train" / "main.pdmodel"))
    written = paddle_copy(str(tmp_path / "main.pb"), str(tmp_path / "copy"))
    assert written.endswith("main.pdmodel")
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["main.pdmodel"]


def test_view_without_netron_says_how_to_get_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "netron", None)  # makes `import netron` fail
    code, _, err = _run(capsys, "view", MLP / "model.pdmodel")
    assert code == 1 and "pip install 'paddle-ir[view]'" in err


@pytest.mark.parametrize("path", ["mlp/fluid", "text/model.pdmodel", "conv/model",
                                  "mobilenet_v1/fluid", "encoder/model.pdmodel",
                                  "train/main.pdmodel", "train/startup.pdmodel"])
def test_check_passes_every_fixture(capsys, path):
    code, out, _ = _run(capsys, "check", FIXTURES / path)
    assert code == 0, out
    assert "(Paddle)" in out and ": OK (" in out
    # Paddle declares some unread auxiliary outputs loosely; they are notes, not problems.
    assert all(line.startswith("note:") or "(Paddle)" in line for line in out.splitlines())


def test_run_paddles_training_program_with_its_startup(capsys, tmp_path):
    train = FIXTURES / "train"
    with np.load(train / "io.npz") as data:
        np.save(tmp_path / "x.npy", data["x.0"])
        np.save(tmp_path / "label.npy", data["label.0"])
        first_loss = float(data["loss.0"].reshape(-1)[0])
    common = ["--feed", f"x={tmp_path / 'x.npy'}", "--feed", f"label={tmp_path / 'label.npy'}",
              "--fetch", "mean_0.tmp_0", "--steps", "2"]
    code, out, err = _run(capsys, "run", train / "main.pdmodel", "--params",
                          train / "init.pdiparams", *common)
    assert code == 0, err
    assert f"step 1/2  mean_0.tmp_0={first_loss:.6g}" in out
    code, out, err = _run(capsys, "run", train / "main.pdmodel", "--startup",
                          train / "startup.pdmodel", *common)
    assert code == 0, err  # Paddle's own initializers, run by paddle-ir
    assert "step 2/2  mean_0.tmp_0=" in out
