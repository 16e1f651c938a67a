"""The layers import one way only: any package can be imported first, in a fresh process."""

import subprocess
import sys

import pytest

FIRST_IMPORTS = ["paddle_ir.ops", "paddle_ir.executor", "paddle_ir", "paddle_ir.core.errors",
                 "paddle_ir.ops.context", "paddle_ir.executor.plan", "paddle_ir.framework",
                 "paddle_ir.variable", "paddle_ir.operator", "paddle_ir.layers",
                 "paddle_ir.cli.main"]


@pytest.mark.parametrize("module", FIRST_IMPORTS)
def test_importing_first_works(module):
    code = (f"import {module}\n"
            "import paddle_ir as pir\n"
            "from paddle_ir.ops.registry import registered_op_types\n"
            "assert 'sgd' in registered_op_types() and pir.Program and pir.Executor\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_public_name_resolves():
    import paddle_ir as pir

    for name in pir.__all__:
        assert getattr(pir, name) is not None, name
