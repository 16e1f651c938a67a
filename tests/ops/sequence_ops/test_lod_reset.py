"""lod_reset / lod_append: target_lod is offsets (as in Paddle), Y's LoD or Y's values."""

import numpy as np
import pytest

import paddle_ir as pir
from tests.op_test import check_grad, check_op

X = np.arange(1, 7, dtype=np.float32).reshape(6, 1)


def test_target_lod_is_offsets_paddles_example():
    # X = [1..6] with lod [[0, 2, 6]], target_lod = [0, 4, 6] -> Out.lod = [[0, 4, 6]]
    x = pir.create_lod_tensor(X, [[2, 4]])
    got = check_op("lod_reset", {"X": x}, {"target_lod": [0, 4, 6]},
                   {"Out": pir.create_lod_tensor(X, [[4, 2]])})
    assert got["Out"][0].lod() == [[0, 4, 6]]


def test_x_without_lod_gets_one():
    check_op("lod_reset", {"X": X}, {"target_lod": [0, 1, 1, 6]},
             {"Out": pir.create_lod_tensor(X, [[1, 0, 5]])})


def test_y_with_lod_gives_its_whole_lod():
    y = pir.create_lod_tensor(np.zeros((6, 1), np.float32), [[1, 1], [2, 4]])
    check_op("lod_reset", {"X": pir.create_lod_tensor(X, [[6]]), "Y": y}, {},
             {"Out": pir.create_lod_tensor(X, [[1, 1], [2, 4]])})


def test_y_without_lod_gives_offsets_by_value():
    y = np.array([0, 3, 6], np.int32)
    check_op("lod_reset", {"X": X, "Y": y}, {}, {"Out": pir.create_lod_tensor(X, [[3, 3]])})


def test_append_adds_a_level_below():
    # X's last level now counts sequences of the new level, which counts rows.
    x = pir.LoDTensor(X, [[0, 2, 6]])
    new_level = [0, 1, 1, 2, 4, 5, 6]
    check_op("lod_reset", {"X": x}, {"target_lod": new_level, "append": True},
             {"Out": pir.LoDTensor(X, [[0, 2, 6], new_level])})


def test_lengths_given_as_target_lod_fail_with_the_offsets_hint():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [6, 1], append_batch_size=False)
        with pytest.raises(pir.ProgramError, match=(
                r"(?s)target_lod \[2, 4\] must end at X's row count 6.*lengths \[2, 3\] are "
                r"offsets \[0, 2, 5\]")):
            pir.layers.lod_reset(x, target_lod=[2, 4])


def test_a_bad_y_lod_fails_at_run_time():
    y = np.array([0, 3, 2, 6], np.int64)
    with pytest.raises(pir.ProgramError, match=(
            r"(?s)lod_reset \(X=x.*, Y=y.*the LoD from the values of Y does not fit X \(6 "
            r"rows\): LoD level 0 decreases")):
        check_op("lod_reset", {"X": X, "Y": y}, {}, {})


def test_layers_set_lod_levels():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 1], lod_level=1)
        y2 = pir.layers.data("y2", [-1, 1], lod_level=2)
        offsets = pir.layers.data("offsets", [-1], dtype="int32")
        assert pir.layers.lod_reset(x, target_lod=[0, 1]).lod_level == 1
        assert pir.layers.lod_reset(x, y=y2).lod_level == 2
        assert pir.layers.lod_reset(x, y=offsets).lod_level == 1
        assert pir.layers.lod_append(x, [0, 1, 2]).lod_level == 2
        with pytest.raises(ValueError, match="needs y or target_lod"):
            pir.layers.lod_reset(x)


def test_gradient_is_dout_with_x_lod():
    x = pir.create_lod_tensor(np.random.RandomState(0).rand(6, 2), [[3, 3]])
    check_grad("lod_reset", {"X": x}, {"target_lod": [0, 1, 6]})
