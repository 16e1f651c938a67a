"""sequence_expand against the examples of Paddle's documentation.

Source: paddle.static.nn.sequence_expand (fluid.layers.sequence_expand in 1.x),
https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/static/nn/sequence_expand_en.html
and its Chinese twin (sequence_expand_cn.html), whose Case 1 states the output
LoD as offsets, [[0, 2, 4, 6, 8]], i.e. lengths [[2, 2, 2, 2]]. Letters a, b,
c, d are rows 1, 2, 3, 4 here.
"""

import numpy as np
import pytest

import paddle_ir as pir
from tests.op_test import check_grad, check_op

A, B, C, D = 1.0, 2.0, 3.0, 4.0


def column(*values, dtype=np.float32):
    return np.array(values, dtype=dtype).reshape(-1, 1)


def test_case_1_x_with_lod_expands_whole_sequences_by_y_level_0():
    # x.lod = [[2, 2]], x = [a, b, c, d]; y.lod = [[2, 2], [3, 3, 1, 1]]; ref_level = 0
    x = pir.create_lod_tensor(column(A, B, C, D), [[2, 2]])
    y = pir.create_lod_tensor(np.zeros((8, 1), np.float32), [[2, 2], [3, 3, 1, 1]])
    want = pir.create_lod_tensor(column(A, B, A, B, C, D, C, D), [[2, 2, 2, 2]])
    got = check_op("sequence_expand", {"X": x, "Y": y}, {"ref_level": 0}, {"Out": want})
    assert got["Out"][0].lod() == [[0, 2, 4, 6, 8]]
    assert got["Out"][0].shape == (8, 1)


def test_case_2_x_without_lod_repeats_rows_and_gives_no_lod():
    # x = [a, b, c] (a plain tensor); y.lod = [[2, 0, 3]]; ref_level = -1
    x = column(A, B, C)
    y = pir.create_lod_tensor(np.zeros((5, 1), np.float32), [[2, 0, 3]])
    want = pir.LoDTensor(column(A, A, C, C, C))  # an empty LoD: checked as such
    got = check_op("sequence_expand", {"X": x, "Y": y}, {"ref_level": -1}, {"Out": want})
    assert got["Out"][0].lod() == []


def test_ref_level_minus_1_is_y_last_level():
    x = pir.create_lod_tensor(column(A, B, C), [[1, 2, 0, 0]])
    y = pir.create_lod_tensor(np.zeros((4, 1), np.float32), [[2, 2], [1, 0, 2, 1]])
    # Y's last level [1, 0, 2, 1]: [a] once, [b, c] dropped, [] twice, [] once.
    want = pir.create_lod_tensor(column(A), [[1, 0, 0, 0]])
    check_op("sequence_expand", {"X": x, "Y": y}, {}, {"Out": want})


def test_wider_rows_and_integer_data():
    x = pir.create_lod_tensor(np.arange(12, dtype=np.int64).reshape(3, 2, 2), [[1, 2]])
    y = pir.create_lod_tensor(np.zeros((5, 1), np.float32), [[3, 2]])
    rows = [0, 0, 0, 1, 2, 1, 2]
    want = pir.create_lod_tensor(x.numpy()[rows], [[1, 1, 1, 2, 2]])
    check_op("sequence_expand", {"X": x, "Y": y}, {}, {"Out": want})


def test_layer_sets_lod_level_from_x():
    with pir.program_guard(pir.Program(), pir.Program()):
        x_seq = pir.layers.data("x_seq", [-1, 3], lod_level=1)
        x_rows = pir.layers.data("x_rows", [-1, 3])
        y = pir.layers.data("y", [-1, 1], lod_level=2)
        assert pir.layers.sequence_expand(x_seq, y, ref_level=0).lod_level == 1
        assert pir.layers.sequence_expand(x_rows, y).lod_level == 0


@pytest.mark.parametrize("with_lod", [True, False])
def test_gradient_sums_over_the_copies(with_lod):
    rng = np.random.RandomState(3)
    if with_lod:
        x = pir.create_lod_tensor(rng.rand(5, 2), [[2, 0, 3]])
    else:
        x = rng.rand(3, 2)
    y = pir.create_lod_tensor(np.zeros((6, 1)), [[2, 1, 3]])
    check_grad("sequence_expand", {"X": x, "Y": y}, {})


def test_mismatched_sequence_counts_fail_at_run_time_naming_the_variables():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [-1, 1], lod_level=1)
        y = pir.layers.data("y", [-1, 1], lod_level=1)
        out = pir.layers.sequence_expand(x, y)
    feed = {"x": pir.create_lod_tensor(column(A, B, C), [[1, 2]]),
            "y": pir.create_lod_tensor(column(A, B, C), [[1, 1, 1]])}
    pattern = (r"(?s)\[KernelError\] block 0, op #0 sequence_expand \(X=x.*, Y=y.*\).*"
               r"X holds 2 sequences but the reference LoD level of Y holds 3.*"
               r"hint: feed X as create_lod_tensor\(data, \[\[lengths\]\]\) with 3 lengths")
    exe = pir.Executor()
    with pytest.raises(pir.ProgramError, match=pattern):
        exe.run(main, feed=feed, fetch_list=[out])
    # The same on a cached plan: a good batch first, then the bad one.
    exe = pir.Executor()
    good = dict(feed, x=pir.create_lod_tensor(column(A, B, C), [[1, 1, 1]]))
    exe.run(main, feed=good, fetch_list=[out])
    with pytest.raises(pir.ProgramError, match=pattern):
        exe.run(main, feed=feed, fetch_list=[out])


def test_rows_without_lod_must_match_y_sequences():
    x = column(A, B)
    y = pir.create_lod_tensor(np.zeros((3, 1), np.float32), [[1, 1, 1]])
    with pytest.raises(pir.ProgramError, match=r"(?s)X has 2 rows but the reference LoD level "
                                                r"of Y holds 3 sequences.*create_lod_tensor"):
        check_op("sequence_expand", {"X": x, "Y": y}, {}, {})


def test_build_time_checks():
    with pir.program_guard(pir.Program(), pir.Program()):
        x = pir.layers.data("x", [-1, 1], lod_level=2)
        y1 = pir.layers.data("y1", [-1, 1], lod_level=1)
        y0 = pir.layers.data("y0", [-1, 1])
        with pytest.raises(pir.ProgramError, match="at most 1 LoD level, got lod_level 2"):
            pir.layers.sequence_expand(x, y1)
        x1 = pir.layers.data("x1", [-1, 1], lod_level=1)
        with pytest.raises(pir.ProgramError, match=r"ref_level must be -1 or in \[0, 1\)"):
            pir.layers.sequence_expand(x1, y1, ref_level=1)
        with pytest.raises(pir.ProgramError,
                           match=r"The LoD level Input\(Y\) of sequence_expand should be larger "
                                 r"than 0, but 'y0' has lod_level 0"):
            pir.layers.sequence_expand(x1, y0)
