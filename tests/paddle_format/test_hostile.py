"""Damaged and hostile Paddle model files fail with paddle-ir's errors, never with anything
else, and nothing outside the model directory is read."""

import os
import shutil
import time

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import io, paddle_format
from paddle_ir.cli.main import main
from paddle_ir.core import tensor_io
from paddle_ir.core.errors import InputFileError, PaddleIRError
from paddle_ir.model_files import program_file
from paddle_ir.passes.prune import prune
from tests.example_programs import build_affine
from tests.paddle_helpers import FIXTURES


def test_flipped_and_cut_bytes_give_paddle_ir_errors(tmp_path):
    data = bytearray((FIXTURES / "text" / "model.pdmodel").read_bytes())
    rng = np.random.default_rng(0)
    path = tmp_path / "damaged.pdmodel"
    outcomes = {"loaded": 0, "refused": 0}
    for trial in range(300):
        damaged = bytearray(data)
        if trial % 3 == 0:
            damaged = damaged[: rng.integers(0, len(damaged))]
        else:
            for pos in rng.integers(0, len(damaged), size=rng.integers(1, 4)):
                damaged[pos] = int(rng.integers(0, 256))
        path.write_bytes(bytes(damaged))
        try:
            program = paddle_format.load_paddle_program(path)
            paddle_format.to_paddle(program.desc)  # what loads can be written back
            outcomes["loaded"] += 1
        except PaddleIRError:
            outcomes["refused"] += 1
    assert outcomes["refused"] > 50 and outcomes["loaded"] > 10, outcomes


# --- every reader stays inside the model directory (issue 27 items 7 and 10) -----------------


def _saved_model(tmp_path, layout: str):
    """An affine model saved in a Paddle layout under tmp_path/model; (dir, names, scope)."""
    main, startup, names = build_affine()
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    pruned = prune(main, ["x"], [names["y"]])
    directory = tmp_path / "model"
    if layout == "paddle":
        paddle_format.write_paddle_model(directory / "model", pruned, scope)
    else:
        paddle_format.write_paddle_model(directory, pruned, scope, layout="fluid")
        if layout == "combined":  # fluid's __params__: the records in sorted name order
            persistables = sorted([names["w"], names["b"]])
            tensor_io.save_combined(directory / "__params__",
                                    {n: tensor_io.load_lod_tensor(directory / n)
                                     for n in persistables})
            for n in persistables:
                os.unlink(directory / n)
    # As Paddle writes it: plain files only. paddle-ir's staged save also leaves CURRENT and
    # the generation the top-level files link to, and its readers read the generation,
    # where these tests' links would never be met.
    for entry in os.listdir(directory):
        if entry in ("CURRENT", "LOCK") or entry.startswith("gen-"):
            target = directory / entry
            shutil.rmtree(target) if target.is_dir() else os.unlink(target)
    return directory, names, scope


def _load(directory):
    return paddle_format.load_inference_model(directory, scope=pir.Scope())


def _move_out(path, outside):
    os.replace(path, outside)
    os.symlink(outside, path)


@pytest.mark.parametrize("layout, file", [
    ("paddle", "model.pdiparams"), ("paddle", "model.pdmodel"), ("fluid", "__model__"),
    ("fluid", "w"), ("combined", "__params__")])
def test_a_file_linked_out_of_a_paddle_model_directory_is_refused(tmp_path, layout, file):
    directory, names, _ = _saved_model(tmp_path, layout)
    _load(directory)  # whole, it loads
    name = names.get(file, file)
    _move_out(directory / name, tmp_path / "elsewhere")
    with pytest.raises(InputFileError, match=f"{name} is a symbolic link to .*elsewhere, "
                                             f"outside .*model; paddle-ir does not follow"):
        _load(directory)
    os.unlink(directory / name)  # a link that stays inside is followed
    os.replace(tmp_path / "elsewhere", directory / "inner")
    os.symlink("inner", directory / name)
    _load(directory)


def _rename_var(program_file, old: str, new: str) -> None:
    """Rename a variable everywhere in a Paddle ProgramDesc file."""
    desc = paddle_format.parse_paddle_program(program_file.read_bytes(), str(program_file))
    for block in desc.blocks:
        for var in block.vars:
            if var.name == old:
                var.name = new
        for op in block.ops:
            for slot in list(op.inputs) + list(op.outputs):
                slot.arguments[:] = [new if a == old else a for a in slot.arguments]
    program_file.write_bytes(desc.SerializeToString())


@pytest.mark.parametrize("hostile", ["../outside/{w}", "{abs}", "sub/{w}", "..", "a\\b"])
def test_a_fluid_parameter_named_with_a_path_is_refused(tmp_path, hostile):
    directory, names, scope = _saved_model(tmp_path, "fluid")
    w = names["w"]
    (tmp_path / "outside").mkdir()
    (directory / "sub").mkdir()
    planted = np.full(3, 123.0, np.float32)  # a valid record where the name would lead
    for target in (tmp_path / "outside" / w, directory / "sub" / w):
        tensor_io.save_lod_tensor(target, planted)
    name = hostile.format(w=w, abs=tmp_path / "outside" / w)
    _rename_var(directory / "__model__", w, name)
    with pytest.raises(InputFileError, match="declares a persistable variable named .* it is "
                                             "not a plain file name"):
        _load(directory)


def test_a_message_never_quotes_a_file_outside_the_model(tmp_path):
    directory, names, _ = _saved_model(tmp_path, "fluid")
    secret = tmp_path / "secret"
    secret.write_bytes(b"root:x:0:0:SECRET-LINE\n")
    depth = len(directory.parts)
    _rename_var(directory / "__model__", names["w"], "../" * depth + str(secret)[1:])
    with pytest.raises(InputFileError) as caught:
        _load(directory)
    text = str(caught.value)
    word = int.from_bytes(b"root", "little")  # how a tensor reader would quote the bytes
    assert "SECRET" not in text and "root:" not in text and str(word) not in text


def test_a_fifo_or_device_as_the_program_is_refused_without_blocking(tmp_path, capsys):
    directory, _, _ = _saved_model(tmp_path, "paddle")
    os.unlink(directory / "model.pdmodel")
    os.mkfifo(directory / "model.pdmodel")  # opened blocking, this would hang the reader
    start = time.monotonic()
    with pytest.raises(InputFileError, match="model.pdmodel is a FIFO .named pipe.; paddle-ir "
                                             "reads only regular files"):
        _load(directory)
    assert main(["run", str(directory / "model.pdmodel")]) == 1
    assert "is a FIFO" in capsys.readouterr().err
    assert time.monotonic() - start < 30
    os.unlink(directory / "model.pdmodel")
    os.symlink("/dev/zero", directory / "model.pdmodel")  # read to the end, it never ends
    with pytest.raises(InputFileError, match="is a symbolic link to /dev/zero, outside"):
        _load(directory)
    with pytest.raises(InputFileError, match="is a character device; paddle-ir reads only"):
        paddle_format.load_paddle_program("/dev/zero")


def test_reads_are_bounded_by_a_format_limit(tmp_path, monkeypatch):
    directory, _, _ = _saved_model(tmp_path, "paddle")
    size = os.path.getsize(directory / "model.pdmodel")
    monkeypatch.setattr(program_file, "MAX_PROGRAM_BYTES", size - 1)
    with pytest.raises(InputFileError, match=f"holds {size} bytes, more than a ProgramDesc can "
                                             f"\\({size - 1} bytes\\); it is not one"):
        _load(directory)
    with pytest.raises(InputFileError, match="more than a ProgramDesc can"):
        io.load_program(directory / "model.pdmodel")
