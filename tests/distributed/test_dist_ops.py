"""The array ops around parameter serving, against numpy written here."""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.distributed_ops import dist_split as ops


def test_split_ids_gives_each_shard_its_distinct_ids_sorted():
    ids = np.array([[7], [2], [7], [4], [9], [0]], dtype=np.int64)
    more = np.array([[3]], dtype=np.int64)
    parts = ops.split_ids_dense({"num_shards": 3}, [ids, more])
    assert [p.reshape(-1).tolist() for p in parts] == [[0, 3, 9], [4, 7], [2]]
    assert all(p.shape[1:] == (1,) and p.dtype == np.int64 for p in parts)
    with pytest.raises(KernelError, match="negative id -1"):
        ops.split_ids_dense({"num_shards": 2}, [np.array([[-1]])])


def test_split_ids_of_a_selected_rows_keeps_global_rows_order_and_duplicates():
    grad = SelectedRows(np.array([5, 2, 5, 4]), np.arange(8.0).reshape(4, 2), height=6)
    even, odd = ops.split_ids_selected_rows({"num_shards": 2}, [grad])
    assert even.rows.tolist() == [2, 4] and odd.rows.tolist() == [5, 5]
    np.testing.assert_array_equal(odd.value, [[0, 1], [4, 5]])
    assert even.height == odd.height == 6
    # the shards densify back to the gradient
    np.testing.assert_array_equal(even.to_dense() + odd.to_dense(), grad.to_dense())


def test_merge_ids_inverts_split_and_prefetch():
    rng = np.random.RandomState(0)
    table = rng.randn(20, 3)
    ids = rng.randint(0, 20, (11, 1)).astype(np.int64)
    shards = ops.split_ids_dense({"num_shards": 3}, [ids])
    rows = [table[s.reshape(-1)] for s in shards]
    plain = {"padding_idx": -1, "trailing_one": True}
    (out,) = ops.merge_ids_kernel(plain, [ids], list(shards), rows)
    np.testing.assert_array_equal(out, table[ids.reshape(-1)])
    padding = {"padding_idx": int(ids[0, 0]), "trailing_one": True}
    (padded,) = ops.merge_ids_kernel(padding, [ids], list(shards), rows)
    expected = table[ids.reshape(-1)]
    expected[ids.reshape(-1) == ids[0, 0]] = 0
    np.testing.assert_array_equal(padded, expected)
    with pytest.raises(KernelError, match="no shard answered id 99"):
        ops.merge_ids_kernel(plain, [np.array([[99]])], list(shards), rows)
    # lookup_table_v2's ids of any shape: Out = Ids.shape + [D]
    grid = ids.reshape(-1)[:10].reshape(2, 5)
    (out_v2,) = ops.merge_ids_kernel({"padding_idx": -1, "trailing_one": False}, [grid],
                                     list(shards), rows)
    np.testing.assert_array_equal(out_v2, table[grid])


def test_interleave_rows_rebuilds_a_mod_sharded_table():
    table = np.arange(21.0).reshape(7, 3)
    shards = [table[k::3] for k in range(3)]
    np.testing.assert_array_equal(ops.interleave_rows_kernel({}, shards), table)
    with pytest.raises(KernelError, match="shard 0 of 2 holds 3 rows"):
        ops.interleave_rows_kernel({}, [table[:3], table[:1]])


def test_split_byref_views_consecutive_rows():
    x = np.arange(12.0).reshape(6, 2)
    a, b = ops.split_byref_kernel({"sections": [4, 2]}, x)
    np.testing.assert_array_equal(np.concatenate([a, b]), x)
    assert np.shares_memory(a, x)  # by reference: no copy of the gradient


def test_sparse_table_grad_is_the_lookup_gradient_without_the_table():
    ids = np.array([[3], [1], [3]], dtype=np.int64)
    dout = np.arange(6.0).reshape(3, 2)
    grad = ops.sparse_table_grad_kernel({"height": 5, "padding_idx": 1}, ids, dout)
    assert grad.rows.tolist() == [3, 3] and grad.height == 5
    dense = np.zeros((5, 2))
    np.add.at(dense, [3, 3], dout[[0, 2]])
    np.testing.assert_array_equal(grad.to_dense(), dense)


def test_split_selected_rows_cuts_contiguous_row_blocks_renumbered_from_zero():
    grad = SelectedRows(np.array([9, 0, 4, 5, 4, 2]), np.arange(12.0).reshape(6, 2), height=10)
    parts = ops.split_selected_rows_kernel({"height_sections": [4, 2, 4]}, grad)
    assert [p.rows.tolist() for p in parts] == [[0, 2], [0, 1, 0], [3]]
    assert [p.height for p in parts] == [4, 2, 4]
    np.testing.assert_array_equal(parts[1].value, [[4, 5], [6, 7], [8, 9]])
    # the blocks stacked back are the gradient, densified (duplicates add up)
    np.testing.assert_array_equal(np.concatenate([p.to_dense() for p in parts]),
                                  grad.to_dense())
    with pytest.raises(KernelError, match=r"add up to 9, but X's height is 10"):
        ops.split_selected_rows_kernel({"height_sections": [4, 5]}, grad)


def test_split_selected_rows_in_a_program_picks_its_sparse_kernel():
    import paddle_ir as pir
    from paddle_ir.framework.variable import VarType

    main = pir.Program()
    block = main.global_block()
    x = block.create_var("g", [6, 3], "float32", type=VarType.SELECTED_ROWS)
    outs = [block.create_var(f"g.block{i}", [3, 3], "float32", type=VarType.SELECTED_ROWS)
            for i in range(2)]
    block.append_op("split_selected_rows", inputs={"X": [x]}, outputs={"Out": outs},
                    attrs={"height_sections": [3, 3]})
    grad = SelectedRows(np.array([5, 1, 3]), np.ones((3, 3), np.float32), height=6)
    exe = pir.Executor()
    for _ in range(2):  # the second run reuses the plan (the cached path)
        low, high = exe.run(main, feed={"g": grad}, fetch_list=outs, return_numpy=False)
        assert low.rows.tolist() == [1] and high.rows.tolist() == [2, 0]
    parsed = pir.Program.parse(main.serialize())  # and it round-trips as a program
    assert parsed.global_block().ops[0].attr("height_sections") == [3, 3]
    bad = pir.Program()
    b = bad.global_block()
    x = b.create_var("g", [6, 3], "float32", type=VarType.SELECTED_ROWS)
    with pytest.raises(pir.PaddleIRError, match=r"height_sections \[4, 4\] must add up to "
                                                r"X's height 6"):
        b.append_op("split_selected_rows", inputs={"X": [x]},
                    outputs={"Out": [b.create_var("o1", type=VarType.SELECTED_ROWS),
                                     b.create_var("o2", type=VarType.SELECTED_ROWS)]},
                    attrs={"height_sections": [4, 4]})
