"""The bindings in use are exactly what grpcio-tools makes of proto/framework.proto."""

import subprocess
import sys
from pathlib import Path

from google.protobuf import descriptor_pb2

from paddle_ir.proto import framework_pb2 as pb

ROOT = Path(__file__).resolve().parents[2]


def test_loaded_bindings_match_a_fresh_compile(tmp_path):
    out = tmp_path / "framework.desc"
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT / 'proto'}",
         f"--descriptor_set_out={out}", str(ROOT / "proto" / "framework.proto")],
        check=True)
    fresh = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file[0]
    _drop_json_names(fresh.message_type)  # protoc adds them to descriptor sets only
    # The generated module embeds the descriptor protoc serialized for it.
    loaded = descriptor_pb2.FileDescriptorProto.FromString(pb.DESCRIPTOR.serialized_pb)
    assert loaded == fresh, "regenerate the bindings with `make proto`"


def _drop_json_names(messages):
    for message in messages:
        for field in message.field:
            field.ClearField("json_name")
        _drop_json_names(message.nested_type)


def test_seed_field_numbers_are_kept():
    fields = {f.name: f.number for f in pb.VarDesc.DESCRIPTOR.fields}
    assert {k: fields[k] for k in ("name", "type", "lod_desc", "selected_rows_desc",
                                   "persistable")} == {
        "name": 1, "type": 2, "lod_desc": 3, "selected_rows_desc": 4, "persistable": 5}
    assert {f.name: f.number for f in pb.TensorDesc.DESCRIPTOR.fields} == {
        "data_type": 1, "dims": 2}
    assert {f.name: f.number for f in pb.LodTensorDesc.DESCRIPTOR.fields} == {
        "tensor": 1, "lod_level": 2}
    assert pb.VarDesc.LOD_TENSOR == 0 and pb.VarDesc.SELECTED_ROWS == 1
    lod_level = pb.LodTensorDesc.DESCRIPTOR.fields_by_name["lod_level"]
    assert lod_level.type == lod_level.TYPE_INT32


def test_data_type_numbers_are_paddles():
    assert {name: pb.DataType.Value(name) for name in pb.DataType.keys()} == {
        "BOOL": 0, "INT16": 1, "INT32": 2, "INT64": 3, "FP16": 4, "FP32": 5, "FP64": 6,
        "UINT8": 20, "INT8": 21, "BF16": 22, "COMPLEX64": 23, "COMPLEX128": 24}


def test_attr_type_numbers_are_paddles():
    assert pb.AttrType.Value("BLOCK") == 8 and pb.AttrType.Value("LONGS") == 11
    assert pb.AttrType.Value("FLOAT64") == 15
    attr_fields = {f.name: f.number for f in pb.OpDesc.Attr.DESCRIPTOR.fields}
    assert attr_fields["block_idx"] == 12 and attr_fields["l"] == 13
    assert attr_fields["float64"] == 19


def test_unknown_dims_are_stored_as_minus_one():
    desc = pb.TensorDesc(data_type=pb.FP32, dims=[-1, 640, 480])
    assert list(pb.TensorDesc.FromString(desc.SerializeToString()).dims) == [-1, 640, 480]
