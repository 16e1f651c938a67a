"""increment (ops/controlflow/increment.py): Out = X + step in X's dtype."""

import numpy as np

from tests.op_test import check_grad, check_op


def test_increment_adds_the_step_in_the_counters_dtype():
    check_op("increment", {"X": np.array([3], np.int64)}, {"step": 2.0},
             {"Out": np.array([5], np.int64)})
    check_op("increment", {"X": np.array([0.5], np.float32)}, {"step": -1.5},
             {"Out": np.array([-1.0], np.float32)})
    check_grad("increment", {"X": np.array([0.25])}, {"step": 3.0})
