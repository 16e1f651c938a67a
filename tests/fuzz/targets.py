"""Fuzz targets: what paddle-ir does with a file from someone else, and the inputs to try.

A target takes one input and must either succeed or raise a `PaddleIRError`;
anything else (a struct.error, an IndexError from numpy, a MemoryError, a
RecursionError, an AssertionError of a round-trip check below) is a bug.

    program        Program.parse, the printer, DOT, and the checker (static + inference)
    lod_tensor     a LoDTensor record, from bytes and from a stream; the value round-trips
    selected_rows  a SelectedRows record, likewise
    csr            a CSRTensor record, likewise
    params         io.load_vars with a dense file and its .selected_rows/.csr siblings,
                   tensor_io.load_combined and the dump scanners
    feeds          .npy and .npz feed files (allow_pickle=False), then the executor's
                   feed checks against declared variables; `NAME.lod` entries carry
                   generated LoD texts
    lod            `--lod` JSON texts (deep nesting, huge and negative numbers, garbage),
                   parsed and applied to a feed
"""

from __future__ import annotations

import io as _stdio
import math
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from paddle_ir import io as pio
from paddle_ir.analysis.checker import check_bytes, check_program
from paddle_ir.analysis.graphviz import program_to_dot
from paddle_ir.cli import feeds as feed_files
from paddle_ir.core import tensor_io
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.errors import FeedError
from paddle_ir.core.lod_tensor import LoDTensor, create_lod_tensor
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.executor import Executor, Scope
from paddle_ir.framework import Program
from paddle_ir.framework.printer import program_to_string
from paddle_ir.model_files.params_file import CSR_SUFFIX, SELECTED_ROWS_SUFFIX
from paddle_ir.proto import framework_pb2 as pb
from tests.fuzz import corpus
from tests.fuzz.mutate import mutate_bytes, mutate_message, retarget_op


@dataclass(frozen=True)
class Target:
    name: str
    strategy: st.SearchStrategy
    run: Callable


# --- programs ----------------------------------------------------------------------------


@st.composite
def program_inputs(draw) -> bytes:
    seeds = corpus.programs()
    desc = pb.ProgramDesc()
    desc.CopyFrom(seeds[draw(st.integers(0, len(seeds) - 1))])
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.integers(0, 2)) == 0:
            retarget_op(draw, desc)
        else:
            mutate_message(draw, desc)
    data = desc.SerializePartialToString()
    if draw(st.integers(0, 3)) == 0:
        for _ in range(draw(st.integers(1, 3))):
            data = mutate_bytes(draw, data)
    return data


def run_program(data: bytes) -> None:
    problems = check_bytes(data)
    program = Program.parse(data)
    program_to_string(program.desc)
    program_to_dot(program.desc)
    again = check_program(program.desc)
    assert [str(p) for p in again] == [str(p) for p in problems], "check_bytes != check_program"


# --- tensor records ------------------------------------------------------------------------


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


@st.composite
def tensor_desc_bytes(draw) -> bytes:
    """A TensorDesc, sometimes with an unknown data_type, odd dims, or none at all."""
    data_type = draw(st.one_of(st.sampled_from(list(pb.DataType.values())),
                               st.sampled_from([7, 19, 25, 99, 2**31 - 1, -1])))
    dims = draw(st.lists(st.one_of(st.integers(0, 5), st.sampled_from(
        [-1, -7, 2**31, 2**40, 2**62, 2**63 - 1])), max_size=draw(st.sampled_from([4, 4, 40]))))
    out = b""
    if draw(st.integers(0, 9)):
        out += b"\x08" + _varint(data_type)
    if draw(st.booleans()):  # packed dims
        packed = b"".join(_varint(d) for d in dims)
        out += b"\x12" + _varint(len(packed)) + packed if dims else b""
    else:
        out += b"".join(b"\x10" + _varint(d) for d in dims)
    return out


@st.composite
def dense_record(draw) -> bytes:
    desc = draw(tensor_desc_bytes())
    desc_size = len(desc) if draw(st.integers(0, 5)) else draw(st.sampled_from(
        [-1, 0, 2**31 - 1, len(desc) + 1]))
    return (b"\0\0\0\0" + desc_size.to_bytes(4, "little", signed=True) + desc
            + draw(st.binary(max_size=64)))


@st.composite
def lod_record(draw) -> bytes:
    levels = draw(st.lists(st.lists(st.integers(0, 9), max_size=5), max_size=3))
    out = b"\0\0\0\0" + len(levels).to_bytes(8, "little")
    for level in levels:
        out += (8 * len(level)).to_bytes(8, "little")
        out += b"".join(v.to_bytes(8, "little") for v in level)
    return out + draw(dense_record())


@st.composite
def selected_rows_record(draw) -> bytes:
    rows = draw(st.lists(st.integers(-2, 12), max_size=5))
    height = draw(st.sampled_from([0, 1, 3, 10, -1, 2**63 - 1]))
    return (b"\0\0\0\0" + len(rows).to_bytes(8, "little")
            + b"".join(r.to_bytes(8, "little", signed=True) for r in rows)
            + height.to_bytes(8, "little", signed=True) + draw(dense_record()))


@st.composite
def csr_record(draw) -> bytes:
    height = draw(st.sampled_from([0, 1, 2, 3, -1, 2**40]))
    width = draw(st.sampled_from([0, 1, 4, -2, 2**62]))
    indptr = draw(st.lists(st.integers(-1, 6), max_size=5))
    indices = draw(st.lists(st.integers(-1, 6), max_size=5))
    return (b"\0\0\0\0" + height.to_bytes(8, "little", signed=True)
            + width.to_bytes(8, "little", signed=True) + len(indices).to_bytes(8, "little")
            + b"".join(v.to_bytes(8, "little", signed=True) for v in indptr + indices)
            + draw(dense_record()))


def record_inputs(seeds: Callable, generated: st.SearchStrategy) -> st.SearchStrategy:
    @st.composite
    def inputs(draw) -> bytes:
        if draw(st.integers(0, 2)) == 0:
            data = draw(generated)
        else:
            pool = seeds()
            data = pool[draw(st.integers(0, len(pool) - 1))]
        for _ in range(draw(st.integers(0, 3))):
            data = mutate_bytes(draw, data)
        return data

    return inputs()


def _same_value(a, b) -> bool:
    if isinstance(a, LoDTensor):
        return (a.dtype == b.dtype and a.shape == b.shape and a.lod() == b.lod()
                and a.numpy().tobytes() == b.numpy().tobytes())
    if isinstance(a, SelectedRows):
        return (a.height == b.height and a.rows.tolist() == b.rows.tolist()
                and a.value.dtype == b.value.dtype and a.value.shape == b.value.shape
                and a.value.tobytes() == b.value.tobytes())
    return (a.shape == b.shape and a.data.dtype == b.data.dtype
            and a.indptr.tolist() == b.indptr.tolist()
            and a.indices.tolist() == b.indices.tolist() and a.data.tobytes() == b.data.tobytes())


def _record_runner(deserialize, read, serialize):
    def run(data: bytes) -> None:
        try:
            value = deserialize(data)
        except Exception as exc:
            # The stream reader must reject what the bytes reader rejects (it may stop
            # before trailing bytes, which only the whole-record reader sees).
            stream = _stdio.BytesIO(data)
            try:
                read(stream)
            except type(exc):
                pass
            else:
                assert stream.tell() < len(data), f"stream reader accepted it: {exc}"
            raise
        streamed = read(_stdio.BytesIO(data))
        assert _same_value(value, streamed), "bytes and stream readers disagree"
        again = deserialize(serialize(value))
        assert _same_value(value, again), "the value does not round-trip"

    return run


# --- parameter files -------------------------------------------------------------------------


def params_program() -> Program:
    program = Program()
    block = program.global_block()
    block.create_var(name="a", shape=[3, 4], persistable=True)
    block.create_var(name="b", shape=[-1], dtype="int64", lod_level=1, persistable=True)
    block.create_var(name="g", shape=[10, 2], type=pb.VarDesc.SELECTED_ROWS, persistable=True)
    block.create_var(name="c", shape=[3, 5], type=pb.VarDesc.CSR, persistable=True)
    return program


def params_seed() -> tuple[bytes, bytes, bytes]:
    rng = np.random.default_rng(1)
    dense = (tensor_io.serialize_lod_tensor(rng.random((3, 4)).astype(np.float32))
             + tensor_io.serialize_lod_tensor(
                 LoDTensor(np.arange(4, dtype=np.int64), [[0, 3, 4]])))
    sparse = tensor_io.serialize_selected_rows(SelectedRows([9, 0], np.ones((2, 2),
                                                                           np.float32), 10))
    csr = tensor_io.serialize_csr(CSRTensor(np.ones(2, np.float32), [4, 0], [0, 1, 1, 2],
                                            (3, 5)))
    return dense, sparse, csr


@st.composite
def params_inputs(draw) -> tuple:
    files = list(params_seed())
    for _ in range(draw(st.integers(1, 4))):
        k = draw(st.integers(0, 2))
        if files[k] is None or draw(st.integers(0, 15)) == 0:
            files[k] = None if files[k] is not None else b""
        else:
            files[k] = mutate_bytes(draw, files[k])
    return tuple(files)


_WORKDIR = None


def _workdir() -> str:
    global _WORKDIR
    if _WORKDIR is None:
        _WORKDIR = tempfile.mkdtemp(prefix="paddle-ir-fuzz-")
    return _WORKDIR


def run_params(files: tuple) -> None:
    base = os.path.join(_workdir(), "params")
    for suffix, data in zip(("", SELECTED_ROWS_SUFFIX, CSR_SUFFIX), files,
                            strict=True):
        path = base + suffix
        if data is None:
            if os.path.exists(path):
                os.unlink(path)
        else:
            with open(path, "wb") as f:
                f.write(data)
    program = params_program()
    errors = []
    for step in (lambda: tensor_io.load_combined(base, ["a", "b"]),
                 lambda: tensor_io.scan_combined(base),
                 lambda: pio.scan_records(base + SELECTED_ROWS_SUFFIX,
                                          pb.VarDesc.SELECTED_ROWS),
                 lambda: pio.scan_records(base + CSR_SUFFIX, pb.VarDesc.CSR),
                 lambda: pio.load_vars(base, program, Scope())):
        try:
            step()
        except FileNotFoundError:
            pass
        except Exception as exc:  # run every reader; report the first non-project error
            errors.append(exc)
    for exc in errors:
        if not _is_project_error(exc):
            raise exc
    if errors:
        raise errors[0]


# --- feed files ------------------------------------------------------------------------------


def _feed_program() -> Program:
    """Data variables of every kind and no ops: a run only checks the feeds."""
    program = Program()
    block = program.global_block()
    block.create_var(name="x", shape=[-1, 3])
    block.create_var(name="words", shape=[-1, 1], dtype="int64", lod_level=1)
    block.create_var(name="g", shape=[3, 2], dtype="float64", type=pb.VarDesc.SELECTED_ROWS)
    block.create_var(name="c", shape=[-1, 3], dtype="float64", type=pb.VarDesc.CSR)
    return program


_ENTRY_NAMES = ("x", "words", "words.lod", "x.lod", "g.rows", "g.value", "g.height",
                "c.data", "c.indices", "c.indptr", "c.shape", "other")
_ENTRY_DTYPES = ("float32", "float64", "int64", "int32", "bool", "uint8", ">f4", "<U12",
                 "complex64")


@st.composite
def npz_archive(draw) -> bytes:
    """An archive of small arrays under the names the feed grouping looks for."""
    entries = {}
    for name in draw(st.lists(st.sampled_from(_ENTRY_NAMES), max_size=6, unique=True)):
        dtype = np.dtype(draw(st.sampled_from(_ENTRY_DTYPES)))
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        if dtype.kind == "U":
            text = draw(st.one_of(
                st.sampled_from(["[[3, 1]]", "[[4]]", "[[1, 1], [2, 2]]", "[]", "[[-1, 5]]",
                                 "[[0.5]]", "{", "[[1, 2, 1]]"]), lod_texts()))
            entries[name] = np.full(shape, text, f"<U{max(1, len(text))}")
        else:
            entries[name] = np.asarray(draw(st.lists(st.integers(-2, 6),
                                                     min_size=math.prod(shape),
                                                     max_size=math.prod(shape)))
                                       ).astype(dtype).reshape(shape)
    buf = _stdio.BytesIO()
    np.savez(buf, **entries)
    return buf.getvalue()


@st.composite
def feed_inputs(draw) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(["npy", "npz", "npz"]))
    if kind == "npz" and draw(st.booleans()):
        return kind, draw(npz_archive())
    pool = corpus.npy_files() if kind == "npy" else corpus.npz_files()
    data = pool[draw(st.integers(0, len(pool) - 1))]
    for _ in range(draw(st.integers(0, 3))):
        data = mutate_bytes(draw, data)
    return kind, data


def run_feeds(item: tuple[str, bytes]) -> None:
    kind, data = item
    path = os.path.join(_workdir(), f"feed.{kind}")
    with open(path, "wb") as f:
        f.write(data)
    values = {"x": feed_files.load_npy(path)} if kind == "npy" else feed_files.load_npz(path)
    program = _feed_program()
    declared = program.global_block().vars
    Executor().run(program, feed={n: v for n, v in values.items() if n in declared},
                   scope=Scope())


# --- LoD texts (--lod NAME=JSON, NAME.lod entries) ---------------------------------------------


_LOD_ATOMS = st.one_of(st.integers(-3, 8), st.integers(2**62 - 2, 2**64 + 2),
                       st.sampled_from(["1e400", "-0", "0.5", "true", "null", '"3"', "NaN",
                                        "9" * 5000, "[]", "{}"]))


@st.composite
def lod_texts(draw) -> str:
    """JSON-ish LoD texts: well formed, nested too deep, out of range, or mangled."""
    kind = draw(st.sampled_from(["levels", "deep", "mangled"]))
    if kind == "deep":
        depth = draw(st.integers(3, 6000))
        return "[" * depth + draw(st.sampled_from(["", "1", "[1]"])) + "]" * draw(
            st.integers(0, depth))
    levels = draw(st.lists(st.lists(_LOD_ATOMS, max_size=6), max_size=4))
    text = "[" + ",".join("[" + ",".join(str(a) for a in level) + "]" for level in levels) + "]"
    if kind == "mangled" and text:
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from(["", "]", "[", ",", "\0", "\udcff", "]]]"]))
    return text


def run_lod(text: str) -> None:
    try:
        lengths = feed_files.parse_lod(text)
    except feed_files.UsageError as exc:  # the CLI's clean refusal (exit 2)
        raise FeedError(str(exc)) from None
    rows = sum(lengths[-1]) if lengths and lengths[-1] else 0
    if rows <= 1000:  # applied to a feed of that many rows: the LoD's own checks
        create_lod_tensor(np.zeros((rows, 1), np.float32), lengths)
    create_lod_tensor(np.zeros((3, 1), np.float32), lengths)


# --- all ------------------------------------------------------------------------------------


def _is_project_error(exc: BaseException) -> bool:
    from paddle_ir.core.errors import PaddleIRError

    return isinstance(exc, PaddleIRError)


TARGETS = {t.name: t for t in (
    Target("program", program_inputs(), run_program),
    Target("lod_tensor", record_inputs(corpus.lod_records, lod_record()),
           _record_runner(tensor_io.deserialize_lod_tensor, tensor_io.read_lod_tensor,
                          tensor_io.serialize_lod_tensor)),
    Target("selected_rows", record_inputs(corpus.selected_rows_records, selected_rows_record()),
           _record_runner(tensor_io.deserialize_selected_rows, tensor_io.read_selected_rows,
                          tensor_io.serialize_selected_rows)),
    Target("csr", record_inputs(corpus.csr_records, csr_record()),
           _record_runner(tensor_io.deserialize_csr, tensor_io.read_csr,
                          tensor_io.serialize_csr)),
    Target("params", params_inputs(), run_params),
    Target("feeds", feed_inputs(), run_feeds),
    Target("lod", lod_texts(), run_lod),
)}
