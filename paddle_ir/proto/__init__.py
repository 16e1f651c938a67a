"""The generated protobuf bindings of proto/framework.proto.

`framework_pb2` is produced by grpcio-tools (`make proto`, or `pip install .`)
and is never edited by hand; tests/test_schema.py proves it matches the .proto.
"""

try:
    from paddle_ir.proto import framework_pb2
except ImportError as exc:  # pragma: no cover - only on a tree that was never built
    raise ImportError(
        "paddle_ir.proto.framework_pb2 is missing: generate it from "
        "proto/framework.proto with `make proto`"
    ) from exc

__all__ = ["framework_pb2"]
