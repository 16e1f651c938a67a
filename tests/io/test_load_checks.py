"""Loads are checked the same way everywhere (issue 16, item 8): a program run from memory
gets the block-tree checks a loaded file gets, with the same error and never a
RecursionError or IndexError, once per program version; `check` reports an unknown
ProgramDesc version as the loaders do; a model file linked out of its directory is refused
by run, check and dump; dump escapes terminal controls in every format; feed errors carry
one prefix."""

import os

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import io
from paddle_ir.cli.main import main
from paddle_ir.core import savedir
from paddle_ir.core.errors import ProgramFormatError
from paddle_ir.executor import runner as runner_module
from paddle_ir.proto import framework_pb2 as pb
from tests.example_programs import affine_feed, build_affine


def _loop():
    """(main, startup, counter): `while i < 3: i += 1`, the body in block 1."""
    main_program, startup = pir.Program(), pir.Program()
    with pir.program_guard(main_program, startup):
        i = pir.layers.fill_constant([1], "int64", 0)
        n = pir.layers.fill_constant([1], "int64", 3)
        cond = pir.layers.less_than(i, n)
        loop = pir.layers.While(cond)
        with loop.block():
            pir.layers.increment(i, in_place=True)
            pir.layers.less_than(i, n, cond=cond)
    return main_program, startup, i


def _sub_block_attr(desc: pb.ProgramDesc) -> pb.OpDesc.Attr:
    op = next(op for op in desc.blocks[0].ops if op.type == "while")
    return next(a for a in op.attrs if a.name == "sub_block")


def _break(desc: pb.ProgramDesc, how: str) -> None:
    if how == "itself":
        _sub_block_attr(desc).block_idx = 0
    elif how == "past the end":
        _sub_block_attr(desc).block_idx = 7
    elif how == "negative":
        _sub_block_attr(desc).block_idx = -1
    elif how == "parent is itself":
        desc.blocks[1].parent_idx = 1
    elif how == "parent is later":
        extra = desc.blocks.add(idx=2, parent_idx=0)
        desc.blocks[1].parent_idx = 2
        del extra.ops[:]
    elif how == "wrong idx":
        desc.blocks[1].idx = 5


HOW = ["itself", "past the end", "negative", "parent is itself", "parent is later",
       "wrong idx"]


def _loaded_error(desc: pb.ProgramDesc, tmp_path) -> str:
    path = tmp_path / "p.pb"
    path.write_bytes(desc.SerializeToString())
    with pytest.raises(ProgramFormatError) as info:
        io.load_program(path)
    prefix = f"{path}: "
    message = info.value.message
    return message[len(prefix):] if message.startswith(prefix) else message


@pytest.mark.parametrize("how", HOW)
def test_a_program_in_memory_gets_the_checks_of_a_loaded_file(how, tmp_path):
    main_program, startup, counter = _loop()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    _break(main_program.desc, how)
    expected = _loaded_error(main_program.desc, tmp_path)
    for program in (main_program, main_program.desc):  # a Program, and a bare ProgramDesc
        with pytest.raises(ProgramFormatError) as info:
            pir.Executor().run(program, fetch_list=[counter.name], scope=scope)
        assert info.value.message == expected
        assert "Recursion" not in str(info.value) and "IndexError" not in str(info.value)


def test_a_sound_program_in_memory_runs_and_is_checked_once_per_plan(monkeypatch):
    calls = []
    real = runner_module.check_block_tree
    monkeypatch.setattr(runner_module, "check_block_tree",
                        lambda desc: calls.append(1) or real(desc))
    main_program, startup, counter = _loop()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    calls.clear()
    for _ in range(3):
        assert exe.run(main_program, fetch_list=[counter.name], scope=scope)[0].item() == 3
    assert len(calls) == 1  # cached runs cost nothing


def test_a_program_changed_after_a_run_is_checked_when_a_new_plan_is_made():
    """Changing a desc in place does not bump the program's version: the next plan made
    (here for another fetch list) still checks the tree, before running a bad index."""
    main_program, startup, counter = _loop()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    assert exe.run(main_program, fetch_list=[counter.name], scope=scope)[0].item() == 3
    _break(main_program.desc, "past the end")
    with pytest.raises(ProgramFormatError, match="refers to block 7, which is not a sub-block"):
        exe.run(main_program, fetch_list=[], scope=scope)


def _cli(capsys, *args) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_check_reports_an_unknown_program_version_as_the_loaders_warn(tmp_path, capsys):
    main_program, _, _ = _loop()
    main_program.desc.version.version = 99
    path = tmp_path / "p.pb"
    path.write_bytes(main_program.desc.SerializeToString())
    status, out, _ = _cli(capsys, "check", path)
    assert status == 0
    assert (f"{path}: warning: declares ProgramDesc version 99, which paddle-ir does not "
            f"know") in out
    with pytest.warns(UserWarning, match="declares ProgramDesc version 99"):
        io.load_program(path)


@pytest.fixture
def model(tmp_path):
    main_program, startup, names = build_affine()
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    dirname = tmp_path / "model"
    io.save_inference_model(dirname, ["x"], [names["y"]], None, main_program, scope)
    feed = tmp_path / "x.npy"
    np.save(feed, affine_feed())
    return dirname, feed


@pytest.mark.parametrize("command", ["run", "check", "dump"])
def test_a_program_file_linked_out_of_its_directory_is_refused(model, tmp_path, capsys,
                                                               command):
    dirname, feed = model
    committed = savedir.committed_dir(dirname)
    outside = tmp_path / "elsewhere.pb"
    os.replace(os.path.join(committed, "model.pb"), outside)
    os.symlink(outside, os.path.join(committed, "model.pb"))
    args = [command, dirname] + (["--feed", f"x={feed}"] if command == "run" else [])
    status, out, err = _cli(capsys, *args)
    assert status != 0 and out == ""
    assert "model.pb is a symbolic link to" in err and "outside" in err


@pytest.mark.parametrize("fmt", ["text", "dot", "proto", "json"])
def test_dump_escapes_terminal_controls_in_every_format(tmp_path, capsys, fmt):
    program = pir.Program()
    program.global_block().create_var(name="evil\x1b]0;owned\x07\x9b2J", shape=[1])
    (tmp_path / "p.pb").write_bytes(program.serialize())
    status, out, _ = _cli(capsys, "dump", tmp_path / "p.pb", "--format", fmt)
    assert status == 0 and "evil" in out
    assert not any(ch in out for ch in "\x1b\x07\x9b")


def _feed_files(tmp_path) -> dict:
    np.save(tmp_path / "int.npy", np.ones((2, 3), np.int32))
    np.save(tmp_path / "wide.npy", np.ones((2, 5), np.float32))
    (tmp_path / "garbage.npy").write_bytes(b"xx")
    np.savez(tmp_path / "deep.npz", x=affine_feed(), **{"x.lod": np.array("[" * 5000)})
    np.savez(tmp_path / "huge.npz", x=affine_feed(), **{"x.lod": np.array("[[10e30]]")})
    return {"dtype": ["--feed", f"x={tmp_path / 'int.npy'}"],
            "shape": ["--feed", f"x={tmp_path / 'wide.npy'}"],
            "not npy": ["--feed", f"x={tmp_path / 'garbage.npy'}"],
            "deep lod": ["--feeds", tmp_path / "deep.npz"],
            "huge lod": ["--feeds", tmp_path / "huge.npz"],
            "missing": []}


@pytest.mark.parametrize("case", ["dtype", "shape", "not npy", "deep lod", "huge lod",
                                  "missing"])
def test_feed_errors_carry_one_prefix(model, tmp_path, capsys, case):
    dirname, _ = model
    status, _, err = _cli(capsys, "run", dirname, *_feed_files(tmp_path)[case])
    assert status != 0
    first = err.splitlines()[0]
    assert first.startswith("paddle-ir: error: [")
    assert first.count("Error]") == 1, first
    assert "Traceback" not in err
