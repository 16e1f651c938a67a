"""Outputs only to regular files, inputs only from regular files, feeds that cannot change a
model, bounded parsing, names writers can write and readers read (issue 16, items 3-8)."""

import io as stdio
import os
import shutil
import socket
import stat
import time
import zipfile

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import io
from paddle_ir.cli import feeds as feed_files
from paddle_ir.cli import npyfile
from paddle_ir.cli.dump import escape_controls
from paddle_ir.cli.main import main
from paddle_ir.cli.values import describe_value
from paddle_ir.core import atomic, savedir
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.errors import (
    FeedError,
    FetchError,
    InputFileError,
    InvalidProgramError,
    OutputPathError,
    ProgramFormatError,
    ResourceLimitError,
)
from paddle_ir.proto import framework_pb2 as pb
from tests.example_programs import affine_feed, build_affine


@pytest.fixture
def model(tmp_path):
    """An inference model directory and a feed file for it."""
    main_program, startup, names = build_affine()
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    dirname = tmp_path / "model"
    io.save_inference_model(dirname, ["x"], [names["y"]], None, main_program, scope)
    feed = tmp_path / "x.npy"
    np.save(feed, affine_feed())
    return dirname, feed, names


def run_cli(capsys, *args) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


# --- outputs ---------------------------------------------------------------------------


def _specials(tmp_path) -> dict:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    (tmp_path / "target.npz").write_bytes(b"keep")
    os.symlink(tmp_path / "target.npz", tmp_path / "link.npz")
    (tmp_path / "adir").mkdir()
    return {"a FIFO": fifo, "a socket": sock_path, "a symbolic link": tmp_path / "link.npz",
            "a directory": tmp_path / "adir"}, sock


def test_out_and_dump_o_write_only_regular_files(model, tmp_path, capsys):
    dirname, feed, _ = model
    specials, sock = _specials(tmp_path)
    try:
        for kind, path in specials.items():
            before = os.lstat(path)
            for args in (("run", dirname, "--feed", f"x={feed}", "--out", path),
                         ("dump", dirname, "-o", path)):
                status, _, err = run_cli(capsys, *args)
                assert status == 1 and "[OutputPathError]" in err, err
                assert f"cannot write {path}: it is {kind}" in err, err
                after = os.lstat(path)
                assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
        assert (tmp_path / "target.npz").read_bytes() == b"keep"  # nothing written through
        status, _, err = run_cli(capsys, "dump", dirname, "-o", tmp_path / "no" / "such.txt")
        assert status == 1 and "its directory" in err and "does not exist" in err
    finally:
        sock.close()


def test_a_character_device_is_named_as_such():
    assert atomic._kind(stat.S_IFCHR | 0o666) == "a character device"
    assert atomic._kind(stat.S_IFBLK | 0o660) == "a block device"


def test_out_dash_writes_the_npz_to_stdout_and_the_listing_to_stderr(model, capfdbinary):
    dirname, feed, names = model
    assert main(["run", str(dirname), "--feed", f"x={feed}", "--out", "-"]) == 0
    out, err = capfdbinary.readouterr()
    with zipfile.ZipFile(stdio.BytesIO(out)) as archive:
        assert archive.namelist() == [f"{names['y']}.npy"]
    assert names["y"].encode() in err and b"shape=[2, 3]" in err


def test_inputs_must_be_regular_files(model, tmp_path, capsys):
    dirname, feed, _ = model
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # a reader that opened it blocking would hang here forever
    start = time.monotonic()
    for args in (("run", dirname, "--feed", f"x={fifo}"), ("run", dirname, "--feeds", fifo),
                 ("run", fifo), ("dump", fifo), ("check", fifo),
                 ("run", dirname / "model.pb", "--params", fifo, "--feed", f"x={feed}")):
        status, _, err = run_cli(capsys, *args)
        assert status == 1 and f"{fifo} is a FIFO (named pipe)" in err, (args, err)
        assert "reads only regular files" in err
    assert time.monotonic() - start < 30
    with pytest.raises(InputFileError, match="is a directory; paddle-ir reads only regular"):
        io.load_program(tmp_path)


def test_a_link_out_of_a_model_directory_is_not_followed(model, tmp_path):
    dirname, _, _ = model
    committed = savedir.committed_dir(dirname)
    outside = tmp_path / "elsewhere"
    os.replace(os.path.join(committed, "params"), outside)
    os.symlink(outside, os.path.join(committed, "params"))
    with pytest.raises(InputFileError, match="is a symbolic link to .*elsewhere, outside"):
        io.load_inference_model(dirname, scope=pir.Scope())
    os.unlink(os.path.join(committed, "params"))
    os.replace(outside, os.path.join(committed, "inner"))
    os.symlink("inner", os.path.join(committed, "params"))  # inside: fine
    io.load_inference_model(dirname, scope=pir.Scope())


# --- feeds cannot change a model -------------------------------------------------------


def test_run_feeds_only_the_feed_targets_unless_allowed(model, tmp_path, capsys):
    dirname, _, names = model
    np.savez(tmp_path / "f.npz", x=affine_feed(), **{names["b"]: np.full(3, 100, np.float32)})
    status, _, err = run_cli(capsys, "run", dirname, "--feeds", tmp_path / "f.npz")
    assert status == 1
    assert f"{names['b']!r} is not one of the program's feed targets ['x']" in err
    assert "--allow-any-feed" in err
    status, out, _ = run_cli(capsys, "run", dirname, "--feeds", tmp_path / "f.npz",
                             "--allow-any-feed")
    assert status == 0 and "[[200." in out  # b = 100 overrides the saved bias


def test_a_fed_parameter_is_copied_not_aliased():
    """Training updates a fed parameter in place; the caller's array must not change."""
    main_program, startup = pir.Program(), pir.Program()
    with pir.program_guard(main_program, startup):
        x = pir.layers.data("x", [-1, 3])
        loss = pir.layers.mean(pir.layers.fc(x, 1))
        pir.optimizer.SGD(0.5).minimize(loss)
    weight = main_program.global_block().all_parameters()[0].name
    scope, exe = pir.Scope(), pir.Executor()
    exe.run(startup, scope=scope)
    mine = np.ones((3, 1), np.float32)
    mine.setflags(write=False)  # a read-only feed is fine
    for _ in range(2):
        exe.run(main_program, feed={"x": affine_feed(), weight: mine}, fetch_list=[loss],
                scope=scope)
    np.testing.assert_array_equal(mine, np.ones((3, 1), np.float32))
    writable = np.ones((3, 1), np.float32)
    exe.run(main_program, feed={"x": affine_feed(), weight: writable}, scope=scope)
    np.testing.assert_array_equal(writable, np.ones((3, 1), np.float32))


def test_a_tensor_set_from_an_array_is_a_copy():
    """`get_tensor().set(array)` copies, as Fluid's does: the next optimizer step updates
    the parameter, never the caller's array (issue 27 item 5)."""
    main_program, startup = pir.Program(), pir.Program()
    with pir.program_guard(main_program, startup):
        x = pir.layers.data("x", [-1, 3])
        loss = pir.layers.mean(pir.layers.fc(x, 1, bias_attr=False))
        pir.optimizer.SGD(0.5).minimize(loss)
    weight = main_program.global_block().all_parameters()[0].name
    scope, exe = pir.Scope(), pir.Executor()
    exe.run(startup, scope=scope)
    mine = np.ones((3, 1), np.float32)
    scope.find_var(weight).get_tensor().set(mine, pir.CPUPlace())
    feed = affine_feed()
    exe.run(main_program, feed={"x": feed}, fetch_list=[loss], scope=scope)
    np.testing.assert_array_equal(mine, np.ones((3, 1), np.float32))
    # SGD on mean(x @ w): w -= 0.5 * mean over the batch of x, written independently
    expected = np.ones((3, 1), np.float32) - 0.5 * feed.mean(axis=0).reshape(3, 1)
    np.testing.assert_allclose(scope.find_var(weight).get_tensor().numpy(), expected,
                               rtol=1e-6)


# --- names that would leave the directory ----------------------------------------------


@pytest.mark.parametrize("filename", ["../x", "{abs}", "sub/../../x", "..", "a\\b", "x\0"])
def test_a_save_or_load_name_that_leaves_the_directory_is_refused(tmp_path, filename):
    filename = filename.format(abs=tmp_path / "x")
    main_program, startup, _ = build_affine()
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    dirname = tmp_path / "save"
    with pytest.raises(OutputPathError, match="as a file of .*save: it .*; a save writes only "
                                              "inside its directory"):
        io.save_vars(None, dirname, main_program, filename=filename, scope=scope)
    assert not (tmp_path / "x").exists() and not dirname.exists()
    io.save_vars(None, dirname, main_program, filename="all", scope=scope)
    with pytest.raises(InputFileError, match="cannot load .* from a file of .*save: it"):
        io.load_vars(None, dirname, main_program, filename=filename, scope=pir.Scope())
    with pytest.raises(InputFileError, match="cannot load .* from a file of .*save: it"):
        io.load_persistables(None, dirname, main_program, scope=pir.Scope(), filename=filename)


def test_a_variable_saved_one_file_each_must_have_a_plain_name(tmp_path):
    main_program, startup, names = build_affine()
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    block = main_program.global_block()
    escaping = block.create_var(name="../escaped", shape=[3], dtype="float32")
    scope.var(escaping.name).value = pir.LoDTensor(np.zeros(3, np.float32))
    with pytest.raises(OutputPathError, match="cannot save '../escaped' as a file of"):
        io.save_vars(None, tmp_path / "save", main_program, vars=[escaping], scope=scope)
    assert not (tmp_path / "escaped").exists()
    with pytest.raises(InputFileError, match="cannot load '../escaped' from a file of"):
        io.load_vars(None, tmp_path, main_program, vars=[escaping], scope=scope)


def test_a_variable_file_linked_out_of_its_directory_is_not_followed(tmp_path):
    main_program, startup, names = build_affine()
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    dirname = tmp_path / "vars"
    io.save_vars(None, dirname, main_program, scope=scope)
    # a directory of per-variable files as Fluid writes it: plain files, no generation
    # (paddle-ir's staged save adds one, and its loader would read that instead)
    for entry in os.listdir(dirname):
        if entry in ("CURRENT", "LOCK") or entry.startswith("gen-"):
            target = dirname / entry
            shutil.rmtree(target) if target.is_dir() else os.unlink(target)
    os.replace(dirname / names["w"], tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", dirname / names["w"])
    with pytest.raises(InputFileError, match="is a symbolic link to .*elsewhere, outside"):
        io.load_vars(None, dirname, main_program, scope=pir.Scope())
    os.unlink(dirname / names["w"])
    os.mkfifo(dirname / names["w"])
    with pytest.raises(InputFileError, match="is a FIFO .named pipe.; paddle-ir reads only"):
        io.load_vars(None, dirname, main_program, scope=pir.Scope())


# --- bounded parsing -------------------------------------------------------------------


@pytest.mark.parametrize("text, message", [
    ("[" * 5000 + "]" * 5000, "nests lists 5000 deep"),
    ("[[100000000000000000000]]", "lists of ints from 0 to 2\\*\\*62"),
    ("[[" + "1" * 5000 + "]]", "is not JSON"),
    ("[" + "[1]," * 33 + "[1]]", "34 LoD levels; a LoD has at most 32"),
])
def test_lod_json_has_bounded_depth_and_range(text, message):
    with pytest.raises(feed_files.UsageError, match=message):
        feed_files.parse_lod(text)


def test_an_npz_lod_entry_is_parsed_with_the_same_bounds(tmp_path):
    path = tmp_path / "f.npz"
    np.savez(path, x=np.zeros((3, 1), np.float32), **{"x.lod": np.asarray("[" * 3000)})
    with pytest.raises(FeedError, match="x.lod: .* nests lists 3000 deep"):
        feed_files.load_npz(str(path))


def test_an_npz_may_not_inflate_beyond_the_absolute_cap(tmp_path, monkeypatch):
    path = tmp_path / "f.npz"
    np.savez_compressed(path, x=np.zeros(1000, np.float64))
    monkeypatch.setattr(npyfile, "MAX_NPZ_BYTES", 4000)
    with pytest.raises(FeedError, match="declares 8128 bytes of arrays, more than the 4000"):
        npyfile.load_npz_entries(str(path))


def test_run_timeout_stops_a_long_run(model, capsys):
    dirname, feed, _ = model
    start = time.monotonic()
    status, _, err = run_cli(capsys, "run", dirname, "--feed", f"x={feed}", "--steps",
                             "100000000", "--timeout", "0.5")
    assert status == 1 and "[ResourceLimitError]" in err and "--timeout 0.5 s" in err
    assert time.monotonic() - start < 60


def test_a_csr_fetch_is_previewed_without_densifying():
    huge = CSRTensor(np.arange(1, 21, dtype=np.float32), np.arange(20), np.r_[0, np.full(
        10**6, 20)], (10**6, 10**7))  # dense: 40 TB
    text = describe_value("f", huge)
    assert "(0, 0)=1 (0, 1)=2" in text and "... (8 more)" in text


# --- names and what writers write ------------------------------------------------------


@pytest.mark.parametrize("name, persistable, message", [
    ("a\0b", False, "may not contain a NUL"),
    ("n" * 4097, False, "at most 4096 characters"),
    ("dir/w", True, "may not contain / or"),
    ("..", True, "may not contain / or"),
    ("é" * 128, True, "at most 255 bytes"),
])
def test_variable_names_are_checked_when_created(name, persistable, message):
    block = pir.Program().global_block()
    with pytest.raises(InvalidProgramError, match=message):
        block.create_var(name=name, shape=[1], persistable=persistable)
    block.create_var(name="save_infer_model/scale_0.tmp_0", shape=[1])  # Paddle's own


def test_more_than_32_dims_are_refused_when_built_and_when_saved(tmp_path):
    program = pir.Program()
    block = program.global_block()
    with pytest.raises(InvalidProgramError, match="has 33 dims; paddle-ir reads and writes"):
        block.create_var(name="deep", shape=[1] * 33)
    block.create_var(name="p", shape=[-1], persistable=True)
    scope = pir.Scope()
    scope.var("p").value = pir.LoDTensor(np.zeros((1,) * 33, np.float32))
    with pytest.raises(InvalidProgramError, match="'p' has 33 dims; paddle-ir saves tensors "
                                                  "of at most 32"):
        io.save_persistables(None, tmp_path, program, scope)
    assert not (tmp_path / "CURRENT").exists()


@pytest.mark.parametrize("name, message", [
    ("a\0b", "NUL character or a path separator"),
    ("x.lod", "ends in .lod, which --feeds reads as a part of another value"),
    ("g.rows", "ends in .rows"),
])
def test_out_refuses_names_it_could_not_read_back(name, message):
    with pytest.raises(FetchError, match=message):
        feed_files.npz_bytes({name: np.zeros(2)})


def test_out_refuses_a_fetch_name_too_long_for_a_zip_member(tmp_path, capsys):
    """A zip member's name holds at most 65535 bytes; numpy's savez failed with a
    struct.error (issue 27 item 13)."""
    main_program, startup, names = build_affine()
    long = "y" * 70000
    for block in main_program.desc.blocks:
        for var in block.vars:
            if var.name == names["y"]:
                var.name = long
        for op in block.ops:
            for slot in list(op.inputs) + list(op.outputs):
                slot.arguments[:] = [long if a == names["y"] else a for a in slot.arguments]
    io.save_program(tmp_path / "p.pb", pir.Program.from_desc(main_program.desc))
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    io.save_persistables(None, tmp_path / "ck", main_program, scope)
    np.save(tmp_path / "x.npy", affine_feed())
    status, _, err = run_cli(capsys, "run", tmp_path / "p.pb", "--load", tmp_path / "ck",
                             "--feed", f"x={tmp_path / 'x.npy'}", "--fetch", long,
                             "--out", tmp_path / "o.npz")
    assert status == 1 and "[FetchError] cannot write fetched value 'yyy" in err
    assert "it is 70000 bytes long, and a zip member's name" in err and len(err) < 1000
    assert not (tmp_path / "o.npz").exists()


def test_out_never_pickles_a_container():
    from paddle_ir.core.rank_table import LoDRankTable

    table = LoDRankTable.__new__(LoDRankTable)
    with pytest.raises(FetchError, match="it is a LoDRankTable, which --feeds cannot read"):
        feed_files.npz_bytes({"table": table})


# --- loads are checked alike -----------------------------------------------------------


def _with_sub_block():
    program = pir.Program()
    with pir.program_guard(program, pir.Program()):
        x = pir.layers.data("x", [-1, 1])
        cond = pir.layers.fill_constant([1], "bool", True)
        branch = pir.layers.ConditionalBlock([cond])
        with branch.block():
            pir.layers.assign(x)
    return program


def test_a_loaded_program_has_valid_block_attributes(tmp_path):
    program = _with_sub_block()
    desc = program.desc
    op = next(op for op in desc.blocks[0].ops if op.type == "conditional_block")
    attr = next(a for a in op.attrs if a.type == pb.BLOCK)
    for bad in (5, 0):
        attr.block_idx = bad
        (tmp_path / "p.pb").write_bytes(desc.SerializeToString())
        with pytest.raises(ProgramFormatError, match=f"attribute 'sub_block' refers to block "
                                                     f"{bad}, which is not a sub-block"):
            io.load_program(tmp_path / "p.pb")


def test_an_unknown_program_version_is_warned_about(tmp_path):
    program = _with_sub_block()
    program.desc.version.version = 99
    (tmp_path / "p.pb").write_bytes(program.desc.SerializeToString())
    with pytest.warns(UserWarning, match="declares ProgramDesc version 99, which paddle-ir "
                                         "does not know"):
        io.load_program(tmp_path / "p.pb")


def test_dump_escapes_terminal_controls(tmp_path, capsys):
    program = pir.Program()
    program.global_block().create_var(name="evil\x1b]0;owned\x07\x9b2J", shape=[1])
    (tmp_path / "p.pb").write_bytes(program.serialize())
    status, out, _ = run_cli(capsys, "dump", tmp_path / "p.pb")
    assert status == 0 and "evil\\x1b]0;owned\\x07\\u009b2J" in out
    assert not any(ch in out for ch in "\x1b\x07\x9b")
    assert escape_controls("a\tb\nc") == "a\tb\nc"


def test_npz_value_errors_carry_one_prefix(tmp_path):
    path = tmp_path / "f.npz"
    np.savez(path, **{"g.rows": np.array([1]), "g.value": np.ones((1, 2)),
                      "g.height": np.array([3, 4])})
    with pytest.raises(FeedError) as info:
        feed_files.load_npz(str(path))
    assert str(info.value).count("[FeedError]") == 1
    assert str(info.value).count(str(path)) == 1


# --- inspection is linear: tests/analysis/test_inference_pass.py (call counts, not timing) -------


def _endless_loop():
    """A while loop whose body recomputes its condition from values it never changes."""
    program = pir.Program()
    with pir.program_guard(program, pir.Program()):
        i = pir.layers.fill_constant([1], "int64", 0)
        limit = pir.layers.fill_constant([1], "int64", 10)
        cond = pir.layers.less_than(i, limit)
        loop = pir.layers.While(cond, is_test=True)
        with loop.block():
            pir.layers.less_than(i, limit, cond=cond)  # i never grows
    return program


def test_while_loops_can_be_capped():
    program = _endless_loop()
    exe = pir.Executor(max_while_iterations=50)
    with pytest.raises(ResourceLimitError, match="ran 50 steps and its condition still "
                                                 "holds; the Executor's max_while_"):
        exe.run(program, scope=pir.Scope())


def _nested_loops(depth: int, steps: int, is_test: bool = True, hold: int = 0):
    """`depth` nested while loops of `steps` steps each (steps + steps**2 + ... body runs);
    each body also makes a float32 [hold] tensor when `hold`."""
    program = pir.Program()
    with pir.program_guard(program, pir.Program()):
        limit = pir.layers.fill_constant([1], "int64", steps)

        def level(d):
            i = pir.layers.fill_constant([1], "int64", 0)
            cond = pir.layers.less_than(i, limit)
            loop = pir.layers.While(cond, is_test=is_test)
            with loop.block():
                if hold:
                    pir.layers.fill_constant([hold], "float32", 1.0)
                if d > 1:
                    level(d - 1)
                pir.layers.increment(i, in_place=True)
                pir.layers.less_than(i, limit, cond=cond)

        level(depth)
    return program


def test_nested_loops_count_together_against_the_cap():
    """A cap on each loop's steps would not stop 60 nested two-step loops (2**60 runs): the
    steps of all the loops of one run count together (issue 27 item 12)."""
    program = _nested_loops(3, 4)  # 4 + 16 + 64 = 84 body runs
    pir.Executor(max_while_iterations=84).run(program, scope=pir.Scope())
    pir.Executor(max_while_iterations=84).run(program, scope=pir.Scope())  # a new count
    with pytest.raises(ResourceLimitError, match="would take step 51 of this run's loops "
                                                 r"\(nested loops multiply\); the "
                                                 "Executor's max_while_iterations is 50"):
        pir.Executor(max_while_iterations=50).run(program, scope=pir.Scope())
    pir.Executor().run(program, scope=pir.Scope())  # the Python API: no cap unless set


def test_run_caps_loops_by_default_and_says_how_to_lift_it(tmp_path, capsys):
    from paddle_ir.cli.run import DEFAULT_MAX_LOOP_ITERATIONS

    io.save_program(tmp_path / "loop.pb", _endless_loop())
    status, _, err = run_cli(capsys, "run", tmp_path / "loop.pb", "--max-loop-iterations",
                             "100")
    assert status == 1 and "ran 100 steps and its condition still holds" in err
    assert "--max-loop-iterations N; 0 lifts it" in err
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "--max-loop-iterations N" in out and "(default 1,000,000; 0: no cap" in \
        " ".join(out.split())
    assert DEFAULT_MAX_LOOP_ITERATIONS == 1_000_000
    io.save_program(tmp_path / "nested.pb", _nested_loops(3, 4))
    status, _, err = run_cli(capsys, "run", tmp_path / "nested.pb",
                             "--max-while-iterations", "50")  # the older spelling
    assert status == 1 and "would take step 51" in err
    assert run_cli(capsys, "run", tmp_path / "nested.pb", "--max-loop-iterations", "0")[0] == 0


def test_a_training_loops_step_scopes_count_against_the_budget():
    """In training mode a loop keeps each step's scope for the backward pass: an endless
    one grew without bound (+20 MB/s); its scopes count against the budget together."""
    program = _nested_loops(1, 10**9, is_test=False, hold=1024)  # 4 KiB kept per step
    exe = pir.Executor(memory_budget=1 << 20)
    with pytest.raises(ResourceLimitError, match=r"keeps each step's scope for the backward "
                                                 r"pass: \d+ steps hold 1.0 MiB, more than "
                                                 r"the memory budget of 1.0 MiB"):
        exe.run(program, scope=pir.Scope())
    short = _nested_loops(1, 10, is_test=False, hold=1024)
    exe.run(short, scope=pir.Scope())  # 40 KiB kept: within the budget


def test_check_warns_about_a_loop_whose_body_never_writes_its_condition(tmp_path, capsys):
    from paddle_ir.cli.check import loop_warnings

    program = _endless_loop()
    assert loop_warnings(program.desc) == []  # the body recomputes it (from constants)
    body = program.desc.blocks[1]
    del body.ops[:]  # a loaded program whose body writes nothing
    (tmp_path / "loop.pb").write_bytes(program.desc.SerializeToString())
    status, out, _ = run_cli(capsys, "check", tmp_path / "loop.pb")
    assert "warning: block 0, op #" in out and "no op of its body (block 1) writes its " \
                                                 "condition 'less_than_0.tmp_0'" in out


def test_allocations_sized_by_attributes_or_feeds_are_checked_against_the_budget():
    program = pir.Program()
    with pir.program_guard(program, pir.Program()):
        big = pir.layers.fill_constant([2**20, 2**20], "float32", 1.0)
    with pytest.raises(ResourceLimitError, match=r"fill_constant would allocate 4096.0 GiB "
                                                 r"for 'fill_constant_0.tmp_0' "
                                                 r"\(shape \[1048576, 1048576\], float32\) "
                                                 r"from attributes shape=\[1048576, 1048576\], "
                                                 r"more than the memory budget"):
        pir.Executor().run(program, fetch_list=[big], scope=pir.Scope())

    program = pir.Program()
    block = program.global_block()
    lengths = block.create_var(name="lengths", shape=[-1], dtype="int64")
    mask = block.create_var(name="mask", shape=[-1, -1], dtype="int64")
    block.append_op("sequence_mask", inputs={"X": lengths}, outputs={"Y": mask},
                    attrs={"maxlen": -1, "out_dtype": int(pb.INT64)})
    exe = pir.Executor(memory_budget=10**6)
    with pytest.raises(ResourceLimitError, match="sequence_mask would allocate .* from maxlen"):
        exe.run(program, feed={"lengths": np.array([10**10, 3])}, fetch_list=[mask],
                scope=pir.Scope())
    out, = exe.run(program, feed={"lengths": np.array([2, 3])}, fetch_list=[mask],
                   scope=pir.Scope())
    np.testing.assert_array_equal(out, [[1, 1, 0], [1, 1, 1]])


def test_a_negative_standard_deviation_is_said_plainly():
    program = pir.Program()
    block = program.global_block()
    out = block.create_var(name="noise", shape=[2], dtype="float32")
    # The op's InferShape says it (numpy would only say "scale < 0"), at build time.
    with pytest.raises(pir.core.errors.ShapeInferenceError,
                       match="std must be >= 0 .*, got -1"):
        block.append_op("gaussian_random", outputs={"Out": out},
                        attrs={"shape": [2], "std": -1.0, "dtype": int(pb.FP32)})


def test_running_out_of_memory_is_one_line(monkeypatch, capsys):
    from paddle_ir.cli import dump

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(dump, "load_program_at", exhausted)
    status, _, err = run_cli(capsys, "dump", "any.pb")
    assert status == 1
    assert err == ("paddle-ir: error: [ResourceLimitError] out of memory: the input is too "
                   "large for this machine (--memory-budget bounds what one tensor may take)\n")
