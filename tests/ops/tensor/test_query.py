"""The query ops (ops/tensor/query.py: shape size isfinite isinf isnan and their _v2)."""

import numpy as np

from tests.op_test import check_op


def test_shape_and_size():
    x = np.zeros((2, 3, 5), np.float32)
    check_op("shape", {"Input": x}, {}, {"Out": np.array([2, 3, 5], np.int32)})
    check_op("size", {"Input": x}, {}, {"Out": np.array([30], np.int64)})


def test_isfinite_isinf_isnan():
    ok = np.array([1.0, -2.0])
    bad = np.array([1.0, np.inf, np.nan])
    check_op("isfinite", {"X": ok}, {}, {"Out": np.array([True])})
    check_op("isfinite", {"X": bad}, {}, {"Out": np.array([False])})
    check_op("isinf", {"X": bad}, {}, {"Out": np.array([True])})
    check_op("isnan", {"X": ok}, {}, {"Out": np.array([False])})
    check_op("isnan", {"X": bad}, {}, {"Out": np.array([True])})


def test_isnan_isinf_isfinite_v2():
    x = np.array([1.0, np.nan, np.inf, -np.inf, 0.0], np.float32)
    check_op("isnan_v2", {"X": x}, {}, {"Out": np.array([0, 1, 0, 0, 0], bool)})
    check_op("isinf_v2", {"X": x}, {}, {"Out": np.array([0, 0, 1, 1, 0], bool)})
    check_op("isfinite_v2", {"X": x}, {}, {"Out": np.array([1, 0, 0, 0, 1], bool)})
    check_op("isfinite_v2", {"X": np.arange(3)}, {}, {"Out": np.ones(3, bool)})
