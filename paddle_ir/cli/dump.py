"""`paddle-ir dump`: show a program or a parameter file.

A program (`.pb`, or a model or job directory) prints as

    text    the readable listing: variables (type, shape, dtype, lod_level,
            persistable) and ops as `{Out=[...]} = type(inputs={...}, attr = ...)`
            with the line that created each op
    proto   protobuf text format
    json    protobuf JSON (field names as in framework.proto)
    dot     a Graphviz graph; `-o FILE.svg` (or .png, .pdf) renders it with `dot`

A parameter file (records of tensors, no names; told apart from a program by
its leading zero version word) prints as a table of its records: name (when a
program beside it, model.pb or main.pb, or --program, names its
persistables), type, shape, dtype, LoD and byte size. `.selected_rows` and
`.csr` siblings list their sparse records.
"""

from __future__ import annotations

import argparse
import os
import sys

from paddle_ir.cli import paddle_input
from paddle_ir.cli.feeds import UsageError
from paddle_ir.cli.locate import saved_files
from paddle_ir.core import tensor_io
from paddle_ir.core.atomic import check_output_path, open_regular, temporary_name
from paddle_ir.core.dtypes import dtype_name
from paddle_ir.core.errors import PaddleIRError
from paddle_ir.framework.printer import block_to_string, program_to_string
from paddle_ir.model_files.params_file import (
    CSR_SUFFIX,
    MAIN_FILENAME,
    MODEL_FILENAME,
    SELECTED_ROWS_SUFFIX,
    persistable_names,
    read_saved,
    scan_records,
)
from paddle_ir.model_files.program_file import load_program
from paddle_ir.proto import framework_pb2 as pb

_RENDERED = {".svg": "svg", ".png": "png", ".pdf": "pdf"}
_SPARSE_SUFFIXES = {SELECTED_ROWS_SUFFIX: pb.VarDesc.SELECTED_ROWS,
                    CSR_SUFFIX: pb.VarDesc.CSR}


def add_parser(subparsers, common) -> None:
    p = subparsers.add_parser(
        "dump", parents=[common], help="print a program or a parameter file",
        description=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", help="a .pb file, a model or job directory, or a parameter file")
    p.add_argument("--format", choices=("text", "proto", "json", "dot"), default="text",
                   help="output format for a program (default: text)")
    p.add_argument("--block", type=int, metavar="N", help="only block N of the program")
    p.add_argument("--optimized", action="store_true",
                   help="show an inference program as `paddle-ir run` runs it, after the "
                        "load-time passes (batch_norm folding, dropout and identity removal)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE (a regular file, replaced atomically; - is stdout) "
                        "instead of stdout (dot: .svg/.png/.pdf render)")
    p.add_argument("--program", metavar="FILE.pb",
                   help="the program whose persistables name a parameter file's records")
    paddle_input.add_format_option(p, "--input-format")
    p.set_defaults(handler=dump_command)


# --- what PATH is ------------------------------------------------------------------------


def load_program_at(path: str):
    """The program PATH names: a .pb, or the committed program of a model or job directory."""
    if os.path.isdir(path):
        return read_saved(path, lambda d: load_program(saved_files(d).program, d))
    return load_program(path)


def _load_any(path: str, model_format: str = "auto"):
    """A paddle-ir program file, or a Paddle model (converted)."""
    paddle = paddle_input.paddle_model(path, model_format)
    if paddle is not None:
        from paddle_ir.paddle_format import load_paddle_program

        return load_paddle_program(paddle.program_file)
    return load_program_at(path)


def _is_parameter_file(path: str) -> bool:
    if path.endswith((".pb", ".pdmodel")) or not os.path.isfile(path):
        return False
    if any(path.endswith(s) for s in _SPARSE_SUFFIXES):
        return True
    with open_regular(path) as f:
        head = f.read(4)
    # Every record starts with a u32 version 0; a ProgramDesc never starts with a 0 byte.
    return head == b"" or head == b"\0\0\0\0"


# --- programs ------------------------------------------------------------------------------


def render_program(desc: pb.ProgramDesc, fmt: str, block: int | None) -> str:
    if block is not None and not 0 <= block < len(desc.blocks):
        raise PaddleIRError(f"--block {block}: the program has blocks 0..{len(desc.blocks) - 1}")
    if fmt == "text":
        return block_to_string(desc.blocks[block]) + "\n" if block is not None else \
            program_to_string(desc)
    if fmt == "dot":
        from paddle_ir.analysis.graphviz import program_to_dot

        return program_to_dot(desc, block)
    message = desc.blocks[block] if block is not None else desc
    # The protobuf text and JSON printers load only for these formats (start-up).
    if fmt == "proto":
        from google.protobuf import text_format

        return text_format.MessageToString(message)
    from google.protobuf import json_format

    return json_format.MessageToJson(message, preserving_proto_field_name=True, indent=2,
                                     sort_keys=False) + "\n"


def _render_dot(source: str, output: str, fmt: str) -> None:
    import shutil
    import subprocess

    dot = shutil.which("dot")
    if dot is None:
        raise PaddleIRError(
            f"rendering {output} needs Graphviz's `dot` program, which is not on PATH; "
            f"install Graphviz, or write the DOT source with -o {os.path.splitext(output)[0]}.dot")
    check_output_path(output)
    tmp = temporary_name(output)
    try:
        done = subprocess.run([dot, f"-T{fmt}", "-o", tmp], input=source.encode(),
                              capture_output=True, check=False)
        if done.returncode != 0:
            raise PaddleIRError(f"`dot -T{fmt}` failed: {done.stderr.decode().strip()}")
        os.replace(tmp, output)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7f] if chr(c) not in "\n\t"}
_CONTROL.update({c: f"\\u{c:04x}" for c in range(0x80, 0xa0)})  # C1 controls (CSI ...)


def escape_controls(text: str) -> str:
    """Names from a file may hold terminal escape sequences: show them, never send them."""
    return text.translate(_CONTROL)


def _emit(text: str, output: str | None) -> None:
    text = escape_controls(text)
    if output is None or output == "-":
        sys.stdout.write(text)
    else:
        tensor_io.atomic_write(output, lambda out: out.write(text.encode()))


# --- parameter files -----------------------------------------------------------------------


def _names_for(path: str, var_type: int, program_path: str | None, count: int):
    """(names or None, a note saying where names came from or why there are none)."""
    if program_path is None:
        directory = os.path.dirname(path)
        beside = [os.path.join(directory, n) for n in (MODEL_FILENAME, MAIN_FILENAME)]
        if path.endswith(".pdiparams"):  # Paddle's PREFIX.pdiparams beside PREFIX.pdmodel
            beside.insert(0, path[: -len(".pdiparams")] + ".pdmodel")
        elif os.path.basename(path) == "__params__":  # fluid 1.x's combined file
            beside.insert(0, os.path.join(directory, "__model__"))
        program_path = next((p for p in beside if os.path.exists(p)), None)
    if program_path is None:
        return None, "names unknown: no model.pb or main.pb beside it (use --program FILE.pb)"
    names = persistable_names(_load_any(program_path), var_type)
    if len(names) != count:
        return None, (f"names unknown: {program_path} declares {len(names)} such persistables "
                      f"but the file holds {count} records; it does not belong to that program")
    return names, f"names from {program_path}"


def describe_params(path: str, program_path: str | None) -> tuple[str, list[dict]]:
    var_type = next((t for s, t in _SPARSE_SUFFIXES.items() if path.endswith(s)),
                    pb.VarDesc.LOD_TENSOR)
    records = scan_records(path, var_type)
    names, note = _names_for(path, var_type, program_path, len(records))
    kind = pb.VarDesc.VarType.Name(var_type)
    rows = []
    for i, (size, value) in enumerate(records):
        row = {"index": i, "name": names[i] if names else "?", "type": kind,
               "shape": list(value.shape), "dtype": dtype_name(value.dtype), "bytes": size}
        if var_type == pb.VarDesc.LOD_TENSOR:
            row["lod"] = value.recursive_sequence_lengths()
        elif var_type == pb.VarDesc.SELECTED_ROWS:
            row["rows"] = int(value.rows.size)
        rows.append(row)
    total = sum(r["bytes"] for r in rows)
    header = f"{path}: {len(rows)} {kind} record(s), {total} bytes; {note}"
    return header, rows


def params_table(header: str, rows: list[dict]) -> str:
    columns = ["index", "name", "type", "shape", "dtype"]
    columns += [c for c in ("lod", "rows") if rows and c in rows[0]] + ["bytes"]
    cells = [[str(r[c]) for c in columns] for r in rows]
    titles = ["#" if c == "index" else c for c in columns]
    widths = [max([len(t)] + [len(row[k]) for row in cells]) for k, t in enumerate(titles)]
    lines = [header]
    for row in [titles] + cells:
        lines.append("  " + "  ".join(v.rjust(w) if c in ("index", "bytes") else v.ljust(w)
                                      for v, w, c in zip(row, widths, columns, strict=True))
                     .rstrip())
    return "\n".join(lines) + "\n"


# --- the command ---------------------------------------------------------------------------


def dump_command(args) -> int:
    if _is_parameter_file(args.path):
        if args.format not in ("text", "json") or args.block is not None:
            raise UsageError("a parameter file dumps as --format text or json, without --block")
        header, rows = describe_params(args.path, args.program)
        import json  # only `dump --format json` of parameters needs it

        text = (params_table(header, rows) if args.format == "text"
                else json.dumps({"file": args.path, "summary": header, "records": rows},
                                indent=2) + "\n")
        _emit(text, args.output)
        return 0
    program = _load_any(args.path, args.model_format)
    if args.optimized:
        from paddle_ir.passes.inference import optimize_inference

        program = optimize_inference(program)  # the rewrite alone: no values to fold
    text = render_program(program.desc, args.format, args.block)
    suffix = os.path.splitext(args.output or "")[1].lower()
    if args.format == "dot" and suffix in _RENDERED:
        _render_dot(escape_controls(text), args.output, _RENDERED[suffix])
    else:
        _emit(text, args.output)
    return 0
