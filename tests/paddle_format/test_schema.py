"""Paddle's schema (proto/paddle_framework.proto): its bindings are a fresh compile of it,
and it says what PaddlePaddle's framework.proto says (PADDLE_FORMAT.md's numbers)."""

import subprocess
import sys
from pathlib import Path

from google.protobuf import descriptor_pb2

from paddle_ir.proto import paddle_framework_pb2 as ppb

ROOT = Path(__file__).resolve().parents[2]


def _drop_json_names(messages):
    for message in messages:
        for field in message.field:
            field.ClearField("json_name")
        _drop_json_names(message.nested_type)


def test_paddle_bindings_match_a_fresh_compile(tmp_path):
    out = tmp_path / "paddle.desc"
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT / 'proto'}",
         f"--descriptor_set_out={out}", str(ROOT / "proto" / "paddle_framework.proto")],
        check=True)
    fresh = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file[0]
    _drop_json_names(fresh.message_type)
    loaded = descriptor_pb2.FileDescriptorProto.FromString(ppb.DESCRIPTOR.serialized_pb)
    assert loaded == fresh, "regenerate the bindings with `make proto`"
    assert loaded.package == "paddle.framework.proto"


def _numbers(message) -> dict[str, int]:
    return {f.name: f.number for f in message.DESCRIPTOR.fields}


def test_field_numbers_are_paddles():
    assert _numbers(ppb.ProgramDesc) == {"blocks": 1, "version": 4, "op_version_map": 5}
    assert _numbers(ppb.BlockDesc) == {"idx": 1, "parent_idx": 2, "vars": 3, "ops": 4,
                                       "forward_block_idx": 5}
    assert _numbers(ppb.VarDesc) == {"name": 1, "type": 2, "persistable": 3,
                                     "need_check_feed": 4, "is_parameter": 5,
                                     "stop_gradient": 6, "attrs": 7}
    assert _numbers(ppb.OpDesc) == {"inputs": 1, "outputs": 2, "type": 3, "attrs": 4,
                                    "is_target": 5}
    attr = _numbers(ppb.OpDesc.Attr)
    assert (attr["b"], attr["block_idx"], attr["l"], attr["var_name"], attr["float64"],
            attr["scalars"]) == (10, 12, 13, 17, 19, 21)
    assert _numbers(ppb.VarType) == {"type": 1, "selected_rows": 2, "lod_tensor": 3,
                                     "tensor_array": 4, "reader": 5, "tuple": 7, "string": 8,
                                     "strings": 9, "vocab": 10, "sparse_coo": 11,
                                     "sparse_csr": 12}
    assert _numbers(ppb.VarType.LoDTensorDesc) == {"tensor": 1, "lod_level": 2}


def test_enum_numbers_are_paddles():
    types = ppb.VarType.Type
    assert (types.Value("LOD_TENSOR"), types.Value("SELECTED_ROWS"),
            types.Value("FEED_MINIBATCH"), types.Value("FETCH_LIST"),
            types.Value("STEP_SCOPES"), types.Value("LOD_TENSOR_ARRAY"),
            types.Value("RAW"), types.Value("BF16"), types.Value("SPARSE_CSR")) == \
        (7, 8, 9, 10, 11, 13, 17, 22, 31)
    assert ppb.AttrType.Value("FLOAT64") == 15 and ppb.AttrType.Value("SCALARS") == 17


def test_negative_ints_are_ten_byte_varints():
    block = ppb.BlockDesc(idx=0, parent_idx=-1)
    assert block.SerializeToString() == b"\x08\x00\x10" + b"\xff" * 9 + b"\x01"
