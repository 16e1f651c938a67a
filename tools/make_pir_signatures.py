"""Learn, from paddlepaddle 3.x itself, how each PIR op in paddle-ir's table is spelt:
its attributes (name, encoded kind, Paddle's default), operand and result counts. The
PIR writer (paddle_ir/paddle_format/pir/write.py) needs them exactly: Paddle's loader
reads attributes as given and its kernels crash on a missing or mistyped one.

    .venv/bin/python tools/make_pir_signatures.py PADDLE_PYTHON [OUT]

For every entry of op_table.OPS this builds a one-op old-IR program (paddle-ir's
registry defaults for the attributes), has Paddle's own translator
(paddle.base.libpaddle.pir.translate_to_pir) turn it into PIR, serializes that with
Paddle's serializer and keeps the op's encoding. It writes
paddle_ir/paddle_format/pir/signatures.py (generated data; do not edit by hand).
"""

from __future__ import annotations

import json
import os
import pprint
import subprocess
import sys
import tempfile

from paddle_ir.core.attrs import to_attr_proto
from paddle_ir.ops import registry
from paddle_ir.paddle_format.convert import to_paddle
from paddle_ir.paddle_format.pir.op_table import OPS, PirOp
from paddle_ir.proto import framework_pb2 as pb
from paddle_ir.proto import paddle_framework_pb2 as ppb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "paddle_ir", "paddle_format", "pir", "signatures.py")

# Input shapes where the default (rank 4, [2, 3, 8, 8]) does not make a valid op.
SHAPES = {
    ("matmul_v2", "X"): [2, 8], ("matmul_v2", "Y"): [8, 4],
    ("conv2d", "Filter"): [4, 3, 3, 3], ("depthwise_conv2d", "Filter"): [3, 1, 3, 3],
    ("conv2d_transpose", "Filter"): [3, 4, 3, 3],
    ("batch_norm", "Mean"): [3], ("batch_norm", "Variance"): [3],
    ("batch_norm", "Scale"): [3], ("batch_norm", "Bias"): [3],
    ("instance_norm", "Scale"): [3], ("instance_norm", "Bias"): [3],
    ("group_norm", "Scale"): [3], ("group_norm", "Bias"): [3],
    ("layer_norm", "Scale"): [8], ("layer_norm", "Bias"): [8],
    ("lookup_table_v2", "Ids"): [2, 5], ("lookup_table_v2", "W"): [10, 4],
    ("gather", "Index"): [2], ("gather_nd", "Index"): [2, 1], ("index_select", "Index"): [2],
    ("one_hot_v2", "X"): [2, 5],
    ("bmm", "X"): [2, 3, 4], ("bmm", "Y"): [2, 4, 5], ("dot", "X"): [2, 4],
    ("dot", "Y"): [2, 4], ("kron", "X"): [2, 3], ("kron", "Y"): [2, 2], ("mv", "X"): [3, 4],
    ("mv", "Vec"): [4], ("addmm", "Input"): [2, 4], ("addmm", "X"): [2, 3],
    ("addmm", "Y"): [3, 4], ("prelu", "Alpha"): [1], ("index_sample", "X"): [2, 8],
    ("index_sample", "Index"): [2, 3], ("take_along_axis", "Index"): [2, 3, 8, 8],
    ("diag_v2", "X"): [4], ("masked_select", "Mask"): [2, 3, 8, 8],
    ("meshgrid", "X"): [3], ("conv3d", "Input"): [1, 3, 4, 4, 4],
    ("conv3d", "Filter"): [2, 3, 3, 3, 3], ("conv3d_transpose", "Input"): [1, 3, 4, 4, 4],
    ("conv3d_transpose", "Filter"): [3, 2, 3, 3, 3], ("pool3d", "X"): [1, 3, 4, 4, 4],
    ("depthwise_conv2d_transpose", "Filter"): [3, 1, 3, 3],
    ("trilinear_interp_v2", "X"): [1, 3, 4, 4, 4], ("linear_interp_v2", "X"): [1, 3, 8],
    ("box_coder", "PriorBox"): [4, 4], ("box_coder", "PriorBoxVar"): [4, 4],
    ("box_coder", "TargetBox"): [4, 4], ("prior_box", "Image"): [1, 3, 32, 32],
    ("roi_align", "ROIs"): [2, 4], ("roi_align", "RoisNum"): [2],
    ("yolo_box", "X"): [1, 14, 4, 4], ("yolo_box", "ImgSize"): [1, 2],
    ("multiclass_nms3", "BBoxes"): [1, 6, 4], ("multiclass_nms3", "Scores"): [1, 3, 6],
    ("matrix_nms", "BBoxes"): [1, 6, 4], ("matrix_nms", "Scores"): [1, 3, 6],
    ("pad3d", "X"): [1, 3, 4, 4, 4], ("expand_as_v2", "Y"): [2, 3, 8, 8],
    ("rnn", "Input"): [5, 2, 4], ("increment", "X"): [1], ("fill_constant", "ValueTensor"): [1],
    ("set_value", "ValueTensor"): [1], ("einsum", "Operands"): [2, 3],
    ("sequence_pool", "X"): [6, 4], ("sequence_conv", "X"): [6, 4],
    ("sequence_conv", "Filter"): [12, 3], ("hierarchical_sigmoid", "X"): [5, 3],
    ("hierarchical_sigmoid", "W"): [5, 3], ("hierarchical_sigmoid", "Label"): [5, 1],
    ("hierarchical_sigmoid", "Bias"): [5, 1],
    ("yolov3_loss", "X"): [1, 27, 4, 4], ("yolov3_loss", "GTBox"): [1, 2, 4],
    ("yolov3_loss", "GTLabel"): [1, 2], ("yolov3_loss", "GTScore"): [1, 2],
    ("deformable_conv", "Input"): [1, 4, 5, 5], ("deformable_conv", "Offset"): [1, 18, 5, 5],
    ("deformable_conv", "Filter"): [2, 4, 3, 3], ("deformable_conv", "Mask"): [1, 9, 5, 5],
}
# Duplicable inputs of several shapes: (old type, slot) -> one shape per tensor.
LIST_SHAPES = {("rnn", "PreState"): [[1, 2, 3], [1, 2, 3]],
               ("rnn", "WeightList"): [[12, 4], [12, 3], [12], [12]]}
INT_INPUTS = {"Ids", "Index", "RoisNum", "ImgSize", "Label", "GTLabel"}
BOOL_INPUTS = {"Mask"}
ATTRS = {  # attribute values an op needs to be valid at all
    "group_norm": {"groups": 1}, "reshape2": {"shape": [2, -1]},
    "transpose2": {"axis": [0, 2, 1, 3]}, "squeeze2": {"axes": []},
    "unsqueeze2": {"axes": [0]}, "expand_v2": {"shape": [2, 3, 8, 8]},
    "tile": {"repeat_times": [1, 2]}, "slice": {"axes": [1], "starts": [0], "ends": [1]},
    "split": {"num": 3, "axis": 1}, "one_hot_v2": {"depth": 4}, "top_k_v2": {"k": 2},
    "cast": {"in_dtype": pb.FP32, "out_dtype": pb.FP64}, "pool2d": {"ksize": [2, 2]},
    "fill_any_like": {"dtype": -1}, "arg_max": {"axis": 1}, "arg_min": {"axis": 1},
    "concat": {"axis": 1}, "fill_constant": {"shape": [2], "dtype": pb.FP32},
    # non-empty lists, so that Paddle shows their element kind
    "conv2d_transpose": {"output_padding": [0, 0]},
    "depthwise_conv2d_transpose": {"output_padding": [0, 0], "groups": 3},
    "flip": {"axis": [1]}, "roll": {"shifts": [1], "axis": [1]}, "logsumexp": {"axis": [1]},
    "frobenius_norm": {"dim": [1, 2]}, "pixel_unshuffle": {"downscale_factor": 2},
    "pixel_shuffle": {"upscale_factor": 1}, "channel_shuffle": {"groups": 3},
    "repeat_interleave": {"Repeats": 2}, "expand_as_v2": {"target_shape": [2, 3, 8, 8]},
    "pad3d": {"paddings": [1, 1, 1, 1, 1, 1]}, "pool3d": {"ksize": [2, 2, 2]},
    "max_pool2d_with_index": {"ksize": [2, 2]}, "lrn": {"n": 3},
    **{f"{k}_interp_v2": {"scale": [2.0] * n, "out_w": 4}
       for k, n in (("linear", 1), ("bilinear", 2), ("trilinear", 3), ("bicubic", 2),
                    ("nearest", 2))},
    "box_coder": {"variance": [0.1, 0.1, 0.2, 0.2]},
    "prior_box": {"min_sizes": [4.0], "max_sizes": [8.0], "aspect_ratios": [1.0]},
    "conv3d_transpose": {"output_padding": [0, 0, 0], "output_size": [6, 6, 6]},
    "roi_align": {"pooled_height": 2, "pooled_width": 2},
    "rnn": {"mode": "LSTM", "input_size": 4, "hidden_size": 3, "num_layers": 1,
            "is_test": True},
    "yolo_box": {"anchors": [1, 2], "class_num": 2}, "unfold": {"kernel_sizes": [2, 2]},
    # non-empty lists again; values as Paddle 3 writes them (SCALARS)
    "set_value": {"axes": [1], "starts": [0], "ends": [1], "steps": [1], "decrease_axes": [1],
                  "none_axes": [0], "shape": [1], "values": [0.5]},
    "einsum": {"equation": "ij->ji"}, "sequence_pool": {"pooltype": "SUM"},
    "hierarchical_sigmoid": {"num_classes": 6},
    "yolov3_loss": {"anchors": [10, 13, 16, 30, 33, 23], "anchor_mask": [0, 1, 2],
                    "class_num": 4, "downsample_ratio": 8},
    "deformable_conv": {"paddings": [1, 1]},
}
# Attributes Paddle's translator wants that paddle-ir's old op has no spec for (the value
# paddle-ir implements): (kind, value).
EXTRA_ATTRS = {"pixel_shuffle": {"data_format": ("string", "NCHW")},
               "prelu": {"data_format": ("string", "NCHW")},
               "thresholded_relu": {"value": ("float", 0.0)}}
# Attributes of paddle-ir's op that Paddle 3 programs leave out and its translator cannot
# take at their defaults (set_value's older typed value lists: Paddle reads bool_values
# as ints).
OMITTED = {"set_value": {"bool_values", "fp32_values", "int32_values", "int64_values",
                         "fp64_values"}}
# Old ops whose attributes pick a second PIR op: (old type, attributes, the PIR op).
VARIANTS = [("tril_triu", {"lower": True, "diagonal": 0}, "pd_op.tril"),
            ("split", {"num": 0, "sections": [1, 2], "axis": 1}, "pd_op.split"),
            ("slice", {"axes": [1], "starts": [0], "ends": [1], "infer_flags": [1],
                       "decrease_axis": [1]}, "pd_op.slice"),
            ("set_value", {"axes": [1], "starts": [0], "ends": [1], "steps": [1],
                           "decrease_axes": [1], "none_axes": [0], "dtype": pb.FP32},
             "pd_op.set_value_with_tensor")]


def one_op_program(old_type: str, entry, given: dict | None = None) -> pb.ProgramDesc:
    opdef = registry.get_op_def(old_type)
    desc = pb.ProgramDesc()
    block = desc.blocks.add(idx=0, parent_idx=-1)
    op = block.ops.add(type=old_type)

    def var(name, shape, dtype=pb.FP32):
        v = block.vars.add(name=name)
        v.type = pb.VarDesc.LOD_TENSOR
        v.lod_desc.tensor.data_type = dtype
        v.lod_desc.tensor.dims.extend(shape)
        return name

    feeds = []
    slots = [a for a in entry.inputs if isinstance(a, str)]
    for slot in slots:
        count = 2 if old_type in ("concat", "stack", "meshgrid") else 1
        shapes = LIST_SHAPES.get((old_type, slot))
        if shapes:
            names = [var(f"{slot}_{k}", shape) for k, shape in enumerate(shapes)]
            feeds += names
            op.inputs.add(parameter=slot, arguments=names)
            continue
        names = [var(f"{slot}_{k}", SHAPES.get((old_type, slot), [2, 3, 8, 8]),
                     pb.INT64 if slot in INT_INPUTS else pb.BOOL if slot in BOOL_INPUTS
                     else pb.FP32) for k in range(count)]
        feeds += names
        op.inputs.add(parameter=slot, arguments=names)
    fetches = []
    for slot in opdef.outputs:
        count = 3 if old_type == "split" else 2 if old_type in ("unbind", "meshgrid") or (
            old_type, slot.name) == ("rnn", "State") else 1
        names = [var(f"{slot.name}_{k}", []) for k in range(count)]
        op.outputs.add(parameter=slot.name, arguments=names)
        fetches.append(names[0])
    given = ATTRS.get(old_type, {}) if given is None else given
    for spec in opdef.attrs:
        value = given.get(spec.name, spec.default)
        if value is registry.REQUIRED or value is None or spec.name in OMITTED.get(old_type, ()):
            continue
        op.attrs.append(to_attr_proto(spec.name, spec.kind, value))
    for name, (kind, value) in EXTRA_ATTRS.get(old_type, {}).items():
        op.attrs.append(to_attr_proto(name, kind, value))
    desc.feed_target_names.extend(feeds)
    desc.fetch_target_names.extend(fetches[:1])
    return desc


def _values_as_scalars(desc) -> None:
    """set_value's values as Paddle 3 writes them, SCALARS of FLOAT64 (paddle-ir's own
    float64s would reach the translator as an unknown kind and be dropped), under
    set_value's op version 4 (before it, Paddle's converter rebuilds values from the
    typed lists)."""
    desc.op_version_map.pair.add(op_name="set_value").op_version.version = 4
    for op in desc.blocks[0].ops:
        for attr in op.attrs:
            if attr.name == "values":
                numbers = list(attr.float64s) or [0.5]
                attr.Clear()
                attr.name, attr.type = "values", ppb.SCALARS
                attr.scalars.extend(ppb.Scalar(type=ppb.Scalar.FLOAT64, r=v) for v in numbers)


TRANSLATE = r"""
import json, sys
import paddle
from paddle.base import core
out = {}
for path in sys.argv[1:]:
    try:
        desc = core.ProgramDesc(open(path, "rb").read())
        program = paddle.base.libpaddle.pir.translate_to_pir(desc)
        core.serialize_pir_program(program, path + ".json", 1, True, False, True)
        out[path] = json.load(open(path + ".json"))
    except Exception as exc:  # reported per op by the caller
        out[path] = str(exc).splitlines()[0][:300]
json.dump(out, sys.stdout)
"""


def missing_in_paddle(paddle_python: str) -> dict[str, str]:
    """paddle-ir's forward ops the writer does not cover for which Paddle's translator
    has no PIR op at all (it names the pd_op it looked for): Paddle 3 dropped them, so
    no entry can ever be written. Ops it refuses for another reason are not listed."""
    from paddle_ir.paddle_format.pir.write import writable_ops

    covered = set(writable_ops())
    types = [t for t in registry.registered_op_types()
             if t not in covered and not t.endswith("_grad") and "@" not in t]
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for k, old_type in enumerate(types):
            opdef = registry.get_op_def(old_type)
            slots = tuple(s.name for s in opdef.inputs if not s.dispensable)
            path = os.path.join(tmp, f"{k}.pb")
            with open(path, "wb") as f:
                f.write(to_paddle(one_op_program(old_type, PirOp(old_type, slots), {}))
                        .SerializeToString())
            paths[path] = old_type
        done = subprocess.run([paddle_python, "-c", TRANSLATE, *paths], capture_output=True,
                              text=True, check=True)
        results = json.loads(done.stdout)
    marker = "should have corresponding OpInfo "
    return {paths[p]: doc.split(marker, 1)[1].split()[0] for p, doc in results.items()
            if isinstance(doc, str) and marker in doc}


def main(paddle_python: str, out: str = OUT) -> None:
    # A table entry per old type: the PIR ops the table maps to it.
    wanted: dict[str, list[str]] = {}
    for name, entry in OPS.items():
        wanted.setdefault(entry.type, []).append(name)
    extra = {"fill_constant": ["pd_op.full"]}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        builds = [(t, None, None) for t in sorted({*wanted, *extra})] + VARIANTS
        for k, (old_type, given, pir) in enumerate(builds):
            # a variant's own entry: its operands may differ (set_value_with_tensor's value)
            entry = OPS[pir or wanted[old_type][0]] if old_type in wanted else None
            desc = one_op_program(old_type, entry or PirOp(
                old_type, ()), given)
            path = os.path.join(tmp, f"{k}.pb")
            theirs = to_paddle(desc)
            if old_type == "set_value":
                _values_as_scalars(theirs)
            with open(path, "wb") as f:
                f.write(theirs.SerializeToString())
            paths[path] = (old_type, given is not None)
        done = subprocess.run([paddle_python, "-c", TRANSLATE, *paths], capture_output=True,
                              text=True, check=True)
        results = json.loads(done.stdout)
    signatures: dict[str, tuple] = {}
    for path, (old_type, variant) in paths.items():
        doc = results[path]
        if isinstance(doc, str):
            print(f"{old_type}: Paddle could not translate it: {doc}", file=sys.stderr)
            continue
        made = {}  # value id -> the dtype of the pd_op.full that made it
        for op in doc["program"]["regions"][0]["blocks"][0]["ops"]:
            name = op["#"]
            if name == "p" or not name.startswith("1."):
                continue
            full = "pd_op." + name[2:]
            attrs = tuple((a["N"], a["AT"]) for a in op.get("A", []))
            if full in ("pd_op.full", "pd_op.full_int_array"):
                made[op["O"][0]["%"]] = dict(attrs)["dtype"]["D"]
            operands = tuple(made.get(i["%"]) for i in op.get("I", []))
            if variant or full.rstrip("_") not in signatures:  # a variant's lists are fuller
                signatures[full.rstrip("_")] = {
                    "attrs": attrs, "operands": operands, "results": len(op.get("O", []))}
    for names in [*wanted.values(), *extra.values()]:
        for name in names:
            if name not in signatures:
                print(f"{name}: not produced by Paddle's translator", file=sys.stderr)
    with open(out, "w") as f:
        f.write('"""Generated by tools/make_pir_signatures.py from paddlepaddle 3.x; do not '
                'edit.\n\nPer PIR op: its attributes in Paddle\'s order, each (name, Paddle\'s '
                'encoded\ndefault), learnt from Paddle\'s own old-IR -> PIR translator.\n"""\n\n')
        f.write("ATTRS: dict[str, tuple[tuple[str, dict], ...]] = ")
        f.write(pprint.pformat({k: v["attrs"] for k, v in sorted(signatures.items())},
                               width=92, sort_dicts=True))
        f.write("\n\n# Per PIR op: how many operands Paddle gives it and, for an operand "
                "Paddle makes\n# with pd_op.full / full_int_array, that constant's dtype.\n")
        f.write("OPERANDS: dict[str, tuple[str | None, ...]] = ")
        f.write(pprint.pformat({k: v["operands"] for k, v in sorted(signatures.items())},
                               width=92, sort_dicts=True))
        f.write("\n\n# Per PIR op: how many results it has.\n")
        f.write("RESULTS: dict[str, int] = ")
        f.write(pprint.pformat({k: v["results"] for k, v in sorted(signatures.items())},
                               width=92, sort_dicts=True))
        f.write("\n\n# paddle-ir's ops Paddle 3's PIR has no op for (old op -> the PIR op "
                "Paddle's\n# translator looks for and does not have): never writable.\n")
        f.write("NO_PIR_OP: dict[str, str] = ")
        f.write(pprint.pformat(missing_in_paddle(paddle_python), width=92, sort_dicts=True))
        f.write("\n")
    print(f"wrote {out}: {len(signatures)} ops")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "python3", *sys.argv[2:3])
