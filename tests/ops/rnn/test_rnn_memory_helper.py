"""rnn_memory_helper (ops/rnn/rnn_memory_helper.py): the identity, its LoD and gradient."""

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from tests.op_test import check_grad, check_op


def test_rnn_memory_helper_is_the_identity_with_its_gradient():
    x = LoDTensor(np.random.RandomState(0).rand(5, 3))
    x.set_recursive_sequence_lengths([[2, 3]])
    got = check_op("rnn_memory_helper", {"X": x}, {}, {"Out": np.array(x)})["Out"][0]
    assert got.recursive_sequence_lengths() == [[2, 3]]
    check_grad("rnn_memory_helper", {"X": np.random.RandomState(1).rand(4, 2)})


def test_without_an_output_gradient_the_input_gets_zeros():
    from paddle_ir.ops.registry import get_op_def

    kernel = next(iter(get_op_def("rnn_memory_helper_grad").kernels.values())).fn
    x = np.ones((2, 3))
    np.testing.assert_array_equal(kernel({"dtype": 5}, x, x, None), np.zeros((2, 3)))
