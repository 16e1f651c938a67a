"""What the systems' modules share: platform facts and the chain lengths."""

from __future__ import annotations

import platform

import numpy as np


def base_versions() -> dict:
    return {"python": platform.python_version(), "numpy": np.__version__}
