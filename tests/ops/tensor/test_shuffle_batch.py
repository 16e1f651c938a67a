"""shuffle_batch (ops/tensor/shuffle_batch.py): a permutation of the rows, reproducible from
a seed, with the gradient following ShuffleIdx."""

import numpy as np

from tests.op_test import check_grad, check_op


def test_shuffle_batch_permutes_rows_and_a_seed_repeats_it():
    x = np.arange(24, dtype=np.float64).reshape(2, 4, 3)
    seed = np.array([7], np.int64)
    first = check_op("shuffle_batch", {"X": x, "Seed": seed})
    again = check_op("shuffle_batch", {"X": x, "Seed": seed})
    perm = np.asarray(first["ShuffleIdx"][0])
    np.testing.assert_array_equal(np.sort(perm), np.arange(8))
    np.testing.assert_array_equal(np.asarray(first["Out"][0]).reshape(8, 3),
                                  x.reshape(8, 3)[perm])
    np.testing.assert_array_equal(perm, np.asarray(again["ShuffleIdx"][0]))
    assert not np.array_equal(perm, np.arange(8))
    assert int(np.asarray(first["SeedOut"][0])[0]) != 7


def test_shuffle_batch_gradient():
    x = np.random.RandomState(0).randn(6, 2)
    check_grad("shuffle_batch", {"X": x, "Seed": np.array([3], np.int64)})
