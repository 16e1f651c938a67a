"""erf and expit (the logistic sigmoid) from scipy.special, imported on first use.

Importing scipy.special costs more start-up time than the rest of paddle-ir
together (about 0.15 s idle, much more on a loaded machine), and most
programs never call these; the ops that do (gelu, erf, some losses) go
through here.
"""

from __future__ import annotations

import numpy as np


def erf(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    from scipy.special import erf as scipy_erf

    return scipy_erf(x, out=out)


def expit(x: np.ndarray) -> np.ndarray:
    from scipy.special import expit as scipy_expit

    return scipy_expit(x)
