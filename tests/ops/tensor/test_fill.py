"""fill_constant with shape and value tensors (ops/tensor/fill.py)."""

import numpy as np

from tests.op_test import check_op

# --- fill_constant with shape tensors ---------------------------------------------------

def test_fill_constant_shape_and_value_tensors():
    parts = [("d0", np.array([2], np.int32)), ("d1", np.array([3], np.int64))]
    check_op("fill_constant", {"ShapeTensorList": parts}, {"dtype": 5, "value": 1.5},
             {"Out": np.full((2, 3), 1.5, np.float32)})
    check_op("fill_constant", {"ShapeTensor": np.array([4], np.int64),
                               "ValueTensor": np.array([7.0], np.float32)},
             {"dtype": 3, "shape": [9]}, {"Out": np.full(4, 7, np.int64)})
