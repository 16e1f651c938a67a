"""The build step that compiles proto/framework.proto into paddle_ir/proto/framework_pb2.py.

pyproject.toml names `BuildPyWithProto` as setuptools' build_py command, so
`pip install .` compiles the schema with grpcio-tools instead of shipping
hand-written or stale bindings (`make proto` does the same for a checkout).
"""

from pathlib import Path

from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent.parent
PROTO = HERE / "proto" / "framework.proto"
OUT_DIR = HERE / "paddle_ir" / "proto"


def generate_bindings() -> None:
    target = OUT_DIR / "framework_pb2.py"
    if target.exists() and target.stat().st_mtime >= PROTO.stat().st_mtime:
        return
    from grpc_tools import protoc  # build-time dependency (pyproject build-system)

    args = ["protoc", f"-I{PROTO.parent}", f"--python_out={OUT_DIR}", str(PROTO)]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed to compile {PROTO}")


class BuildPyWithProto(build_py):
    def run(self):
        generate_bindings()
        super().run()

