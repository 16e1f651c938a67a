import pytest

from paddle_ir import unique_name


@pytest.fixture(autouse=True)
def fresh_names():
    """Every test names its variables from fc_0 on, so messages are predictable."""
    with unique_name.guard():
        yield
