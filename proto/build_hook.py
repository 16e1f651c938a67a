"""The build step that compiles the schemas in proto/ into paddle_ir/proto/*_pb2.py.

framework.proto is paddle-ir's schema; paddle_framework.proto is PaddlePaddle's,
used to read and write Paddle's model files.

pyproject.toml names `BuildPyWithProto` as setuptools' build_py command, so
`pip install .` compiles the schema with grpcio-tools instead of shipping
hand-written or stale bindings (`make proto` does the same for a checkout).
"""

from pathlib import Path

from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent.parent
PROTOS = (HERE / "proto" / "framework.proto", HERE / "proto" / "paddle_framework.proto")
OUT_DIR = HERE / "paddle_ir" / "proto"


def generate_bindings() -> None:
    for proto in PROTOS:
        target = OUT_DIR / f"{proto.stem}_pb2.py"
        if target.exists() and target.stat().st_mtime >= proto.stat().st_mtime:
            continue
        from grpc_tools import protoc  # build-time dependency (pyproject build-system)

        args = ["protoc", f"-I{proto.parent}", f"--python_out={OUT_DIR}", str(proto)]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc failed to compile {proto}")


class BuildPyWithProto(build_py):
    def run(self):
        generate_bindings()
        super().run()

