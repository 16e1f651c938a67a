"""Write the "Operators" section of docs/fluid_coverage.md: Paddle 1.8's op types against ours.

    python -m tools.gen_op_coverage

The reference is tests/data/paddle18_operators.tsv: the forward op types of Paddle 1.8's
paddle/fluid/operators/ (its REGISTER_OPERATOR / REGISTER_OP_CPU_KERNEL lines), each with its
kind (cpu, fused, gpu_only, mkldnn_only, distributed, reader) and source file; facts only (the
file's header says how it was compiled).
What paddle-ir registers is read from ops/_index.py (itself generated from the registrations).
Every CPU op type left out needs a reason in LEFT_OUT; tests/project/test_op_coverage.py fails
when the section is stale, a reason is missing or stale, or coverage falls below the floor.
"""

from __future__ import annotations

from pathlib import Path

from tools.doc_sections import replace_section, section

ROOT = Path(__file__).resolve().parents[1]
FACTS_TSV = ROOT / "tests" / "data" / "paddle18_operators.tsv"
DOC = ROOT / "docs" / "fluid_coverage.md"
TITLE = "Operators"
COMMAND = "python -m tools.gen_op_coverage"

# The kinds listed apart, each with why paddle-ir does not count them.
KIND_REASONS = {
    "fused": "ops a fusion pass writes into an optimized inference program; paddle-ir's own "
             "passes fuse exactly (docs/architecture.md), and a Paddle file holding them is "
             "refused naming the op",
    "gpu_only": "CUDA (or NCCL/TensorRT) kernels only; paddle-ir runs on the CPU",
    "mkldnn_only": "oneDNN int8 kernels only, inserted by Paddle's int8 inference passes",
    "distributed": "parameter-server and collective internals; paddle-ir's own distributed "
                   "runtime (docs/distributed.md) registers the send/recv family it uses",
    "reader": "the C++ reader pipeline; programs are fed from Python (DataFeeder, DataLoader)",
}

_DETECTION_TRAINING = ("a detection training-target, evaluation or rarely used post-processing "
                       "op; not implemented yet (issue 26)")
_QUANT_TRAINING = "a quantize-aware-training op; not implemented yet (issue 26)"
_NOT_YET = "not implemented yet (issue 26)"
_RENAMED = ("registered here as `{0}`; a Paddle file naming `{1}` is not mapped to it yet")

# CPU op types left out, each with its reason. Anything not listed fails the test.
LEFT_OUT: dict[str, str] = {
    **{op: _DETECTION_TRAINING for op in (
        "generate_mask_labels", "generate_proposal_labels", "locality_aware_nms",
        "mine_hard_examples", "retinanet_detection_output", "retinanet_target_assign",
        "roi_perspective_transform", "rpn_target_assign", "detection_map",
        "deformable_psroi_pooling")},
    **{op: _QUANT_TRAINING for op in (
        "fake_quantize_dequantize_moving_average_abs_max", "dequantize_log")},
    "feed": "not an op here: the Paddle-format reader turns feed ops into the program's feed "
            "targets and the executor feeds them (paddle_format/convert.py)",
    "fetch": "not an op here: the Paddle-format reader turns fetch ops into the program's "
             "fetch targets and the executor returns them (paddle_format/convert.py)",
    "read_from_array": _RENAMED.format("array_read", "read_from_array"),
    "write_to_array": _RENAMED.format("array_write", "write_to_array"),
    "lod_array_length": _RENAMED.format("array_length", "lod_array_length"),
    "coalesce_tensor": "packs gradients into one buffer for multi-device all-reduce; each "
                       "variable here is its own numpy array",
    "enqueue": "blocking queues between programs run concurrently; paddle-ir runs one program "
               "at a time",
    "dequeue": "blocking queues between programs run concurrently; paddle-ir runs one program "
               "at a time",
    "queue_generator": "blocking queues between programs run concurrently; paddle-ir runs one "
                       "program at a time",
    "get_places": "the device list of the removed ParallelDo; paddle-ir has one CPU place",
    "py_func": "runs Python callables registered in the building process; such a program "
               "cannot be serialized, loaded and run elsewhere",
    "run_program": "dygraph-to-static's runner of a captured program; dygraph is out of scope",
    "lite_engine": "runs a Paddle-Lite subgraph engine, not a kernel",
    **{op: _NOT_YET for op in (
        "data_norm", "delete_var", "merge_lod_tensor",
        "pyramid_hash", "recurrent", "save", "save_combine",
        "split_lod_tensor")},
}
# The share of CPU op types that must stay registered (the target is 95%).
FLOOR = 0.85


def paddle_ops() -> list[tuple[str, str, str]]:
    """(op_type, kind, source) rows of Paddle 1.8's operator library."""
    rows = []
    for line in FACTS_TSV.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        op_type, kind, source = line.split("\t")
        rows.append((op_type, kind, source))
    return rows


def registered() -> set[str]:
    """Every op type paddle-ir registers (ops/_index.py, generated from the registrations)."""
    from paddle_ir.ops._index import MODULE_OPS  # the table, not the op modules

    return {op for ops in MODULE_OPS.values() for op in ops}


def coverage() -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(cpu rows, cpu rows not registered)."""
    have = registered()
    cpu = [r for r in paddle_ops() if r[1] == "cpu"]
    return cpu, [r for r in cpu if r[0] not in have]


def render() -> str:
    rows = paddle_ops()
    have = registered()
    cpu, missing = coverage()
    share = (len(cpu) - len(missing)) / len(cpu)
    lines = [
        f"# {TITLE}",
        "",
        f"Generated by `{COMMAND}` (tools/gen_op_coverage.py); do not edit by hand. The",
        "reference is the forward op types of Paddle 1.8's `paddle/fluid/operators/`",
        "(tests/data/paddle18_operators.tsv: op type, kind, source file; its header says how",
        "it was compiled); what paddle-ir registers is ops/_index.py.",
        "",
        f"- Paddle 1.8 op types: {len(rows)}",
        f"- with a CPU kernel (not fused, GPU-only, oneDNN-only, distributed or reader): "
        f"{len(cpu)}",
        f"- of those registered here: {len(cpu) - len(missing)} ({100.0 * share:.1f}%)",
        "",
        "## CPU op types left out",
        "",
        "| op type | Paddle source | reason |",
        "|---|---|---|",
    ]
    for op_type, _, source in sorted(missing):
        reason = LEFT_OUT.get(op_type, "**no reason recorded**")
        lines.append(f"| `{op_type}` | {source.removeprefix('paddle/fluid/operators/')} "
                     f"| {reason} |")
    lines += ["", "## Listed apart", "", "| kind | op types (registered here in bold) | reason |",
              "|---|---|---|"]
    for kind, reason in KIND_REASONS.items():
        names = sorted(r[0] for r in rows if r[1] == kind)
        shown = ", ".join(f"**`{n}`**" if n in have else f"`{n}`" for n in names)
        lines.append(f"| {kind} | {shown} | {reason} |")
    lines += ["", "## CPU op types registered", ""]
    lines.append(", ".join(f"`{r[0]}`" for r in sorted(cpu) if r[0] in have))
    return "\n".join(lines) + "\n"


def main() -> None:
    text = DOC.read_text() if DOC.exists() else ""
    DOC.write_text(replace_section(text, TITLE, render()))
    print(f"wrote the {TITLE!r} section of {DOC}")


__all__ = ["COMMAND", "DOC", "FLOOR", "KIND_REASONS", "LEFT_OUT", "TITLE", "coverage",
           "paddle_ops", "registered", "render", "section"]

if __name__ == "__main__":
    main()
