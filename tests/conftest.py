import pytest

from paddle_ir.framework import unique_name
from paddle_ir.ops.registry import load_all

# The registry loads op modules on demand. Tests that swap the registry for a copy
# (monkeypatch) would keep the ops that load meanwhile out of the real one, so the suite
# loads them all up front; tests/ops/test_op_index.py tests loading on demand in fresh
# interpreters.
load_all()


@pytest.fixture(autouse=True)
def fresh_names():
    """Every test names its variables from fc_0 on, so messages are predictable."""
    with unique_name.guard():
        yield
