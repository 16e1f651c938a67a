"""Persistable names a one-file-per-variable layout cannot hold are refused at save time
(paddle_ir/model_files/layouts.py), naming the variable and the layout, before anything
is written; names every layout holds still save and load."""

import os

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import io, paddle_format
from paddle_ir.core.errors import InvalidProgramError, OutputPathError, SavedDirectoryError
from paddle_ir.proto import framework_pb2 as pb

BAD = ["__params__", "__model__", "../x", "a/b", "/etc/passwd", "..", ".", "", "params",
       "model.pb", "persistables.names", "model.pdiparams", "CURRENT", "gen-000001",
       ".tmp-w-0123456789abcdef", "n" * 256]


def _program(names):
    """A program declaring float32 [2] persistables `names` (as a loaded file may: the
    builder refuses some of these names, a ProgramDesc read from a file does not)."""
    desc = pir.Program().desc
    for name in names:
        var = desc.blocks[0].vars.add(name=name, type=pb.VarDesc.LOD_TENSOR, persistable=True)
        var.lod_desc.tensor.data_type = pb.FP32
        var.lod_desc.tensor.dims.extend([2])
    program = pir.Program.from_desc(desc)
    scope = pir.Scope()
    for i, name in enumerate(names):
        scope.var(name).value = pir.LoDTensor(np.full(2, i, np.float32))
    return program, scope


def _save(how, dirname, program, scope):
    if how == "fluid":
        paddle_format.write_paddle_model(dirname, program, scope, layout="fluid")
    else:
        io.save_persistables(None, dirname, program, scope, filename=None)


@pytest.mark.parametrize("how", ["fluid", "per-variable"])
@pytest.mark.parametrize("name", BAD)
def test_a_name_the_layout_cannot_hold_is_refused(tmp_path, how, name):
    program, scope = _program(["fc_0.w_0", name])
    with pytest.raises((InvalidProgramError, OutputPathError)) as caught:
        _save(how, tmp_path / "m", program, scope)
    assert repr(name[:80]) in caught.value.message
    if isinstance(caught.value, OutputPathError):
        # a name that would leave the directory: io/checkpoint refuses it as any save name,
        # before the layout's own check (tests/io/test_hostile_files.py)
        assert how == "per-variable" and "a save writes only inside its directory" in \
            caught.value.message
    else:
        assert "cannot be saved in the" in caught.value.message
        assert ("fluid layout" if how == "fluid" else "per-variable") in caught.value.message
    assert not (tmp_path / "m").exists() or os.listdir(tmp_path / "m") == []
    assert not (tmp_path / "x").exists()


def test_a_parameter_named_params_in_a_fluid_inference_model(tmp_path):
    """Before: format="fluid" wrote a model that could not load ("ends after 1 of 3
    records"); now the save says which variable and which layout."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 3])
        out = pir.layers.fc(x, 2, param_attr=pir.ParamAttr(name="__params__"))
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    with pytest.raises(InvalidProgramError, match="'__params__' cannot be saved in the fluid"):
        io.save_inference_model(tmp_path, ["x"], [out], main_program=main, scope=scope,
                                format="fluid")
    io.save_inference_model(tmp_path, ["x"], [out], main_program=main, scope=scope,
                            format="paddle")  # a combined file holds any name
    program, _, _ = io.load_inference_model(tmp_path, scope=pir.Scope())
    assert "__params__" in io.persistable_names(program)


@pytest.mark.parametrize("how", ["fluid", "per-variable"])
def test_names_every_layout_holds_round_trip(tmp_path, how):
    names = ["fc_0.w_0", "x@GRAD@RENAME@1", "learning_rate_0", "@LR_DECAY_COUNTER@",
             "a..b", "名前"]
    program, scope = _program(names)
    _save(how, tmp_path / "m", program, scope)
    loaded = pir.Scope()
    if how == "fluid":
        paddle_format.load_paddle_params(paddle_format.locate(tmp_path / "m"), program, loaded)
    else:
        io.load_persistables(None, tmp_path / "m", program, loaded, filename=None)
    for i, name in enumerate(names):
        np.testing.assert_array_equal(loaded.find_var(name).value.numpy(), np.full(2, i))


@pytest.mark.parametrize("filename", ["../x", "sub/x", "", "CURRENT"])
def test_a_combined_file_name_must_be_a_plain_name(tmp_path, filename):
    """save_vars(filename=...) is a staged save too: its name is checked as every save's
    (before, "../x" wrote above the save directory)."""
    program, scope = _program(["fc_0.w_0"])
    # a path out of the directory is refused by io/checkpoint's name check, a name of the
    # save directory's own files (CURRENT) by the staged save
    with pytest.raises((OutputPathError, SavedDirectoryError),
                       match="cannot save a file named|a save writes only inside its directory"):
        io.save_vars(None, tmp_path / "d", program, vars=["fc_0.w_0"], filename=filename,
                     scope=scope)
    assert not (tmp_path / "x").exists()
