"""Rows of docs/errors.md that no other test file covers, and the check that every row is backed.

Each test here is one row (or a few) of the bad-input catalogue: the input,
the error class and the message. `test_every_catalogue_row_names_a_test`
reads docs/errors.md and fails if a row names a test that does not exist.
"""

import ast
import os
import re
import struct
import subprocess
import sys

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.cli import feeds
from paddle_ir.core import tensor_io
from paddle_ir.core.errors import (
    FeedError,
    InvalidLoDError,
    InvalidSelectedRowsError,
    NanInfError,
    ProgramFormatError,
    ShapeInferenceError,
    TensorFormatError,
)
from paddle_ir.proto import framework_pb2 as pb

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _model(tmp_path):
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 3
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 3])
        y = pir.layers.fc(pir.layers.fc(x, 4, act="relu"), 2)
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    pir.save_inference_model(tmp_path / "model", ["x"], [y], main_program=main, scope=scope)
    return main, tmp_path / "model"


# --- program files ------------------------------------------------------------------------


def test_a_program_truncated_anywhere_is_a_format_error(tmp_path):
    main, model = _model(tmp_path)
    data = (model / "model.pb").read_bytes()
    for cut in range(1, len(data), max(1, len(data) // 97)):
        with pytest.raises(ProgramFormatError):
            pir.Program.parse(data[:cut])


def test_block_index_and_duplicate_variables():
    desc = pb.ProgramDesc(blocks=[pb.BlockDesc(idx=0, parent_idx=-1),
                                  pb.BlockDesc(idx=7, parent_idx=0)])
    with pytest.raises(ProgramFormatError, match=r"block #1 says its idx is 7"):
        pir.Program.parse(desc.SerializeToString())
    block = pb.BlockDesc(idx=0, parent_idx=-1)
    block.vars.add(name="x", type=pb.VarDesc.LOD_TENSOR)
    block.vars.add(name="x", type=pb.VarDesc.LOD_TENSOR)
    with pytest.raises(ProgramFormatError, match=r"block 0 declares 'x' twice"):
        pir.Program.parse(pb.ProgramDesc(blocks=[block]).SerializeToString())


def test_a_parameter_file_given_as_a_program(tmp_path):
    main, model = _model(tmp_path)
    with pytest.raises(ProgramFormatError, match=r"model/params: (the bytes are not a "
                                                 r"paddle-ir ProgramDesc|the ProgramDesc)"):
        pir.io.load_program(model / "params")


def test_a_shape_that_overflows_int64_at_build_time():
    with pir.program_guard(pir.Program(), pir.Program()):
        with pytest.raises(ShapeInferenceError, match=r"output Out \(fill_constant_0\.tmp_0\) "
                                                      r"would have shape \[1099511627776, "
                                                      r"1099511627776\], which overflows"):
            pir.layers.fill_constant([2**40, 2**40], "float32", 1.0)


# --- parameter files -----------------------------------------------------------------------


def test_a_saved_model_with_its_params_cut_anywhere_fails_to_load(tmp_path):
    main, model = _model(tmp_path)
    params = (model / "params").read_bytes()
    for cut in range(len(params)):
        (model / "params").write_bytes(params[:cut])
        with pytest.raises(TensorFormatError):
            pir.load_inference_model(model, scope=pir.Scope())


def test_extra_and_missing_records(tmp_path):
    main, model = _model(tmp_path)
    params = (model / "params").read_bytes()
    (model / "params").write_bytes(params + tensor_io.serialize_lod_tensor(np.ones(2)))
    with pytest.raises(TensorFormatError, match=r"has \d+ bytes after its 4 expected records; "
                                                r"it holds more variables than the program"):
        pir.load_inference_model(model, scope=pir.Scope())
    first = tensor_io.read_lod_tensor(open(model / "params", "rb"))
    (model / "params").write_bytes(tensor_io.serialize_lod_tensor(first))
    with pytest.raises(TensorFormatError, match=r"ends after 1 of 4 records; missing from "
                                                r"'fc_0.w_0' on"):
        pir.load_inference_model(model, scope=pir.Scope())


def test_a_tensor_desc_that_promises_more_data_than_its_record_holds():
    raw = bytearray(tensor_io.serialize_lod_tensor(np.ones((2, 2), np.float32)))
    desc = pb.TensorDesc(data_type=pb.FP32, dims=[2, 3]).SerializeToString()
    at = 4 + 8 + 4
    struct.pack_into("<i", raw, at, len(desc))
    raw[at + 4:at + 4 + len(desc)] = desc
    with pytest.raises(TensorFormatError, match=r"truncated: tensor data \[2, 3\] float32 "
                                                r"needs 24 bytes .* only 16 remain"):
        tensor_io.deserialize_lod_tensor(bytes(raw))


# --- feeds ---------------------------------------------------------------------------------


def test_a_lod_that_does_not_fit_the_rows_of_its_feed(tmp_path):
    np.save(tmp_path / "words.npy", np.zeros((3, 1), np.int64))
    files, lods = feeds.parse_feed_options([f"words={tmp_path / 'words.npy'}"],
                                           ["words=[[2,2]]"])
    with pytest.raises(InvalidLoDError, match=r"the last LoD level ends at 4, but the tensor "
                                              r"has 3 rows"):
        feeds.collect_feeds(files, None, lods)


def test_a_dense_array_fed_to_a_selected_rows_variable():
    main = pir.Program()
    main.global_block().create_var(name="g", shape=[10, 2], type=pir.VarType.SELECTED_ROWS)
    with pytest.raises(FeedError, match=r"feed 'g' must be a SelectedRows, got ndarray"):
        pir.Executor().run(main, feed={"g": np.ones((10, 2), np.float32)}, scope=pir.Scope())
    wrong = pir.SelectedRows([1], np.ones((1, 2), np.float32), 3)
    with pytest.raises(FeedError, match=r"feed 'g' has shape \[3, 2\], but the variable is "
                                        r"declared with shape \[10, 2\]"):
        pir.Executor().run(main, feed={"g": wrong}, scope=pir.Scope())


# --- SelectedRows --------------------------------------------------------------------------


def test_height_zero_holds_no_row():
    with pytest.raises(InvalidSelectedRowsError, match=r"row 0 is out of range \[0, 0\)"):
        pir.SelectedRows([0], np.ones((1, 2)), 0)
    empty = pir.SelectedRows([], np.zeros((0, 2)), 0)
    assert empty.shape == (0, 2) and empty.to_dense().shape == (0, 2)


# --- the NaN/Inf check -----------------------------------------------------------------------


def test_an_inf_producing_program_under_the_check_names_the_op():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [2], append_batch_size=False)
        out = pir.layers.scale(pir.layers.log(x), 2.0)
    with np.errstate(all="ignore"), pytest.raises(
            NanInfError, match=r"(?s)\[NanInf\] block 0, op #0 log .*output 'log_0.tmp_0' of "
                               r"log contains Inf.*hint: the first op"):
        pir.Executor(check_nan_inf=True).run(main, feed={"x": np.array([1, 0], np.float32)},
                                             fetch_list=[out], scope=pir.Scope())


# --- the catalogue itself ----------------------------------------------------------------------


def _tests_in(path: str) -> set[str]:
    tree = ast.parse(open(os.path.join(ROOT, path)).read())
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_catalogue_row_names_a_test():
    text = open(os.path.join(ROOT, "docs", "errors.md")).read()
    rows = [line for line in text.splitlines() if re.match(r"\| *\d+ *\|", line)]
    assert len(rows) >= 40, f"{len(rows)} rows"
    numbers = [int(re.match(r"\| *(\d+)", row).group(1)) for row in rows]
    assert numbers == list(range(1, len(rows) + 1)), "rows are numbered 1..n"
    for row in rows:
        refs = re.findall(r"`(tests/[\w/]+\.py)::(\w+)", row)
        assert refs, f"row without a test: {row}"
        for path, name in refs:
            assert name in _tests_in(path), f"{path}::{name} does not exist ({row[:60]})"


_FORBIDDEN_BUILTINS = {"eval", "exec", "compile", "__import__"}
# The one module allowed to import by name: Fluid's module paths under paddle_ir.fluid
# resolve to paddle-ir modules through a fixed table (only names the user's own import
# statement gives, only ever into paddle_ir.*), never to a name read from a file.
_IMPORTS_BY_NAME = {os.path.join("paddle_ir", "fluid", "modules.py")}
_FORBIDDEN_MODULES = {"pickle", "cPickle", "dill", "marshal", "shelve", "importlib", "yaml"}
# Files that import modules by a name they compute from a fixed table of paddle-ir's own
# modules (never from input): the lazy fluid.transpiler, Fluid's module paths (modules.py);
# and segments.py, which loads scipy's compiled CSR loop by its fixed name from its file.
_IMPORTLIB_ALLOWED = {os.path.join("paddle_ir", "__init__.py"),
                      os.path.join("paddle_ir", "fluid", "modules.py"),
                      os.path.join("paddle_ir", "core", "segments.py")}


# The one dynamic import: the registry imports an op's module, by a name from the committed
# table ops/_index.py (never from the op type it is asked for).
_OP_LOADER = os.path.join("ops", "registry.py")


def _imports_importlib(node) -> bool:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names] == ["importlib"]
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr == "import_module"


def test_the_registry_imports_only_op_modules_of_its_table():
    """An op type read from a file only looks up the table: a module name or any string
    that is not a registered op type imports nothing."""
    code = ("import sys\n"
            "from paddle_ir.ops import registry\n"
            "from paddle_ir.ops._index import MODULE_OPS\n"
            "before = set(sys.modules)\n"
            "for t in ['os', 'subprocess', 'paddle_ir.cli.main', 'paddle_ir.ops.nn.conv',\n"
            "          'conv', '../conv2d', 'conv2d ', '__import__']:\n"
            "    assert registry.get_op_def(t) is None, t\n"
            "assert set(sys.modules) == before, set(sys.modules) - before\n"
            "registry.get_op_def('conv2d')\n"
            "loaded = set(sys.modules) - before\n"
            "assert loaded <= set(MODULE_OPS) | {'paddle_ir.ops.nn', 'paddle_ir.ops.simple_op',\n"
            "                                    'paddle_ir.ops.nn.conv_math',\n"
            "                                    'paddle_ir.ops.nn.conv_bias',\n"
            "                                    'paddle_ir.ops.nn.depthwise_math'}, loaded\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_nothing_is_unpickled_evaluated_or_imported_by_name():
    """No module of paddle-ir can run what a file says: no pickle, eval, exec or dynamic import.

    `np.load` is refused too: feed files go through paddle_ir/cli/npyfile.py.
    """
    offenders = []
    for package in ("paddle_ir", "ops", "executor"):
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if not name.endswith(".py") or name.endswith("_pb2.py"):
                    continue
                path = os.path.join(folder, name)
                if os.path.relpath(path, ROOT) in _IMPORTS_BY_NAME:
                    continue
                for node in ast.walk(ast.parse(open(path).read())):
                    where = f"{os.path.relpath(path, ROOT)}:{getattr(node, 'lineno', 0)}"
                    if os.path.relpath(path, ROOT) == _OP_LOADER and _imports_importlib(node):
                        continue  # the registry's on-demand op loading (next test)
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        modules = [a.name for a in node.names] if isinstance(node, ast.Import) \
                            else [node.module or ""]
                        offenders += [f"{where} imports {m}" for m in modules
                                      if m.split(".")[0] in _FORBIDDEN_MODULES and not (
                                          m.split(".")[0] == "importlib"
                                          and os.path.relpath(path, ROOT) in _IMPORTLIB_ALLOWED)]
                    elif isinstance(node, ast.Call):
                        func = node.func
                        called = func.id if isinstance(func, ast.Name) else (
                            func.attr if isinstance(func, ast.Attribute) else "")
                        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(
                            func.value, ast.Name) else ""
                        if (isinstance(func, ast.Name) and called in _FORBIDDEN_BUILTINS) \
                                or (called == "import_module"
                                    and os.path.relpath(path, ROOT) not in _IMPORTLIB_ALLOWED):
                            offenders.append(f"{where} calls {called}")
                        elif called in ("load", "loads") and owner in ("np", "numpy", "pickle",
                                                                        "json5", "yaml"):
                            offenders.append(f"{where} calls {owner}.{called}")
                        for kw in node.keywords:
                            if kw.arg == "allow_pickle" and not (
                                    isinstance(kw.value, ast.Constant) and kw.value.value is False):
                                offenders.append(f"{where} passes allow_pickle={kw.value!r}")
    assert offenders == []
