"""sequence_topk_avg_pooling (+ grad) against a loop written from Paddle 1.8's kernel rules.

The reference picks each row's top values by repeated "first largest" search
(Paddle's get_topk_pos), one item, channel and row at a time; the op sorts
whole blocks. Paddle 3.3.1 no longer has the op.
"""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError, ShapeInferenceError
from tests.op_test import check_grad, check_op


def ref_topk_avg(x, rows, cols, topks, channels):
    out_rows, max_k = sum(rows), topks[-1]
    out = np.zeros((out_rows, channels * len(topks)))
    pos = np.full((out_rows, channels, max_k), -1)
    x_start = row_start = 0
    for r_n, c_n in zip(rows, cols, strict=True):
        for j in range(channels):
            for r in range(r_n):
                start = x_start + (j * r_n + r) * c_n
                values = [float(v) for v in x[start:start + c_n]]
                taken = []
                for _ in range(min(max_k, c_n)):
                    best = None
                    for col, v in enumerate(values):
                        if col not in taken and (best is None or v > values[best]):
                            best = col
                    taken.append(best)
                pos[row_start + r, j, :len(taken)] = taken
                for m, k in enumerate(topks):
                    out[row_start + r, j * len(topks) + m] = sum(
                        values[col] for col in taken[:k]) / k
        x_start += channels * r_n * c_n
        row_start += r_n
    return out, pos


def make_inputs(rows, cols, channels, dtype=np.float64, seed=0, values=None):
    rng = np.random.RandomState(seed)
    sizes = [channels * r * c for r, c in zip(rows, cols, strict=True)]
    data = rng.uniform(-1, 1, sum(sizes)) if values is None else np.asarray(values, np.float64)
    return {
        "X": pir.create_lod_tensor(data.reshape(-1, 1).astype(dtype), [sizes]),
        "ROW": pir.create_lod_tensor(np.zeros((sum(rows), 1), dtype), [rows]),
        "COLUMN": pir.create_lod_tensor(np.zeros((sum(cols), 1), dtype), [cols]),
    }


@pytest.mark.parametrize("rows, cols, channels, topks", [
    ([2, 3], [4, 2], 1, [1, 3]),          # the second item's rows are shorter than k = 3
    ([1, 2, 2], [5, 3, 6], 3, [1, 2, 5]),
    ([2, 0, 1], [3, 4, 0], 2, [2]),        # an item without rows, one without columns
])
def test_matches_the_reference(rows, cols, channels, topks):
    inputs = make_inputs(rows, cols, channels)
    want, want_pos = ref_topk_avg(np.asarray(inputs["X"]).reshape(-1), rows, cols, topks,
                                  channels)
    result = check_op("sequence_topk_avg_pooling", inputs,
                      {"topks": topks, "channel_num": channels},
                      {"Out": pir.create_lod_tensor(want, [rows]),
                       "pos": want_pos.reshape(-1).astype(np.int32)})
    assert result["Out"][0].lod() == [list(np.cumsum([0] + rows))]


def test_ties_go_to_the_lower_column_float32():
    inputs = make_inputs([1], [4], 1, dtype=np.float32, values=[0.5, 2.0, 0.5, 2.0])
    check_op("sequence_topk_avg_pooling", inputs, {"topks": [1, 2, 3], "channel_num": 1},
             {"Out": pir.create_lod_tensor(np.array([[2.0, 2.0, 1.5]], np.float32), [[1]]),
              "pos": np.array([1, 3, 0], np.int32)})


@pytest.mark.parametrize("rows, cols, channels, topks", [
    ([2, 3], [4, 2], 2, [1, 3]),
    ([1, 2], [5, 3], 1, [2, 2, 4]),
])
def test_gradient(rows, cols, channels, topks):
    check_grad("sequence_topk_avg_pooling", make_inputs(rows, cols, channels, seed=4),
               {"topks": topks, "channel_num": channels}, wrt=("X",), out_slot="Out")


@pytest.mark.parametrize("attrs, message", [
    ({"topks": [], "channel_num": 1}, r"topks must not be empty"),
    ({"topks": [3, 1], "channel_num": 1}, r"topks must each be in 1..topks\[-1\]"),
    ({"topks": [0, 2], "channel_num": 1}, r"topks must each be in 1..topks\[-1\]"),
    ({"topks": [1], "channel_num": 0}, r"channel_num must be > 0, got 0"),
])
def test_rejects_bad_attributes(attrs, message):
    with pytest.raises(ShapeInferenceError, match=message):
        check_op("sequence_topk_avg_pooling", make_inputs([1], [2], 1), attrs)


def test_rejects_sizes_that_do_not_match_rows_times_columns():
    inputs = make_inputs([2], [3], 1)
    inputs["COLUMN"] = pir.create_lod_tensor(np.zeros((2, 1)), [[2]])
    with pytest.raises(KernelError, match=r"X's sequence 0 must hold channel_num \* rows \* "
                                          r"columns = 1 \* 2 \* 2 = 4 values, got 6"):
        check_op("sequence_topk_avg_pooling", inputs, {"topks": [1], "channel_num": 1})


def test_rejects_different_batch_sizes_and_dense_or_wide_input():
    inputs = make_inputs([2, 1], [3, 1], 1)
    inputs["ROW"] = pir.create_lod_tensor(np.zeros((3, 1)), [[3]])
    with pytest.raises(KernelError, match=r"same number of sequences .* got 2, 1 and 2"):
        check_op("sequence_topk_avg_pooling", inputs, {"topks": [1], "channel_num": 1})
    inputs = make_inputs([2], [3], 1)
    inputs["ROW"] = np.zeros((2, 1))
    with pytest.raises(ShapeInferenceError, match=r"Input\(ROW\) of sequence_topk_avg_pooling"):
        check_op("sequence_topk_avg_pooling", inputs, {"topks": [1], "channel_num": 1})
    inputs = make_inputs([1], [2], 1)
    inputs["X"] = pir.create_lod_tensor(np.zeros((1, 2)), [[1]])
    with pytest.raises(ShapeInferenceError, match=r"X must be \[N\] or \[N, 1\]"):
        check_op("sequence_topk_avg_pooling", inputs, {"topks": [1], "channel_num": 1})
