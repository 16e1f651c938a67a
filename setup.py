"""Generate the protobuf bindings from proto/framework.proto while building.

pyproject.toml carries the metadata; this hook exists only so that
`pip install .` compiles the schema with grpcio-tools instead of shipping
hand-written or stale bindings.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).parent
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


setup(cmdclass={"build_py": BuildPyWithProto})
