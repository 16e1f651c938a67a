"""LoDTensor against the LoD design seed's worked examples."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import InvalidLoDError, PaddleIRError
from paddle_ir.core.lod_tensor import (
    LoDTensor,
    create_lod_tensor,
    create_random_int_lodtensor,
)

ARTICLES = [[3, 1, 2], [3, 2, 4, 1, 2, 3]]


def seed_tensor():
    return pir.create_lod_tensor(np.arange(15, dtype=np.float32).reshape(15, 1), ARTICLES)


def test_lengths_and_offsets_of_the_seed_example():
    t = seed_tensor()
    assert t.lod() == [[0, 3, 4, 6], [0, 3, 5, 9, 10, 12, 15]]
    assert t.recursive_sequence_lengths() == ARTICLES
    assert t.has_valid_recursive_sequence_lengths()
    assert t.shape == (15, 1) and t.dtype == np.float32 and t.lod_level == 2


def test_set_lod_with_offsets_gives_lengths_back():
    t = pir.LoDTensor(np.zeros((15, 1)))
    t.set_lod([[0, 3, 4, 6], [0, 3, 5, 9, 10, 12, 15]])
    assert t.recursive_sequence_lengths() == ARTICLES


def test_slice_2_is_one_article_of_two_sentences():
    s = seed_tensor().slice([2])
    assert s.numpy().ravel().tolist() == [10, 11, 12, 13, 14]
    assert s.recursive_sequence_lengths() == [[2], [2, 3]]
    assert s.lod() == [[0, 2], [0, 2, 5]]


def test_slice_2_0_is_the_first_sentence_of_the_third_article():
    s = seed_tensor().slice([2, 0])
    assert s.numpy().ravel().tolist() == [10, 11]
    assert s.recursive_sequence_lengths() == [[2]]
    assert s.slice([0]).numpy().ravel().tolist() == [10, 11]


def test_slice_of_slice_equals_direct_slice():
    t = seed_tensor()
    np.testing.assert_array_equal(t.slice([2]).slice([0, 1]).numpy(), t.slice([2, 1]).numpy())
    assert t.slice([0, 2]).numpy().ravel().tolist() == [5, 6, 7, 8]


def test_the_seeds_python_api_example():
    t = pir.create_lod_tensor(np.zeros((11, 1)), [[3, 1, 2], [2, 2, 1, 3, 1, 2]])
    assert t.lod() == [[0, 3, 4, 6], [0, 2, 4, 5, 8, 9, 11]]
    t.set_recursive_sequence_lengths([[3, 1, 7]])
    assert t.recursive_sequence_lengths() == [[3, 1, 7]]


def test_create_from_list_of_sequences():
    t = pir.create_lod_tensor([[1, 2, 3], [4]], [[3, 1]])
    assert t.dtype == np.int64 and t.shape == (4, 1)
    with pytest.raises(InvalidLoDError, match=r"lengths \[3, 1\]"):
        pir.create_lod_tensor([[1, 2, 3], [4]], [[2, 2]])


@pytest.mark.parametrize("lod, pattern", [
    ([[1, 3, 5]], r"level 0 must start at 0, but starts at 1"),
    ([[-1, 3, 5]], r"level 0 must start at 0, but starts at -1"),  # below 0 too
    ([[0, 3, 2, 5]], r"level 0 decreases at offset #2: 3 -> 2"),
    ([[0, 2, 2, 1]], r"level 0 decreases at offset #3: 2 -> 1"),  # after an empty sequence
    ([[0, 3, 4]], r"ends at 4, but the tensor has 5 rows"),
    ([[0, 1, 3], [0, 2, 5]], r"level 0 ends at 3, but level 1 holds 2 sequences"),
    ([[]], r"level 0 is empty"),
    ([[0.0, 5.0]], r"integer offsets"),
])
def test_invalid_lod_names_the_level_and_offset(lod, pattern):
    t = pir.LoDTensor(np.zeros((5, 2)))
    with pytest.raises(InvalidLoDError, match=pattern) as info:
        t.set_lod(lod)
    assert isinstance(info.value, PaddleIRError)
    assert str(info.value).startswith("[InvalidLoD]")


def test_negative_lengths_are_rejected():
    with pytest.raises(InvalidLoDError, match=r"lengths at level 0 must be >= 0"):
        pir.create_lod_tensor(np.zeros((2, 1)), [[3, -1]])


def test_empty_sequences_are_valid():
    t = pir.create_lod_tensor(np.zeros((3, 1)), [[2, 0, 1]])
    assert t.lod() == [[0, 2, 2, 3]]


def test_bad_branch_is_reported():
    t = seed_tensor()
    with pytest.raises(InvalidLoDError, match=r"branch index 3 at level 0 is out of range"):
        t.slice([3])
    with pytest.raises(InvalidLoDError, match=r"branch index 2 at level 1 is out of range"):
        t.slice([2, 2])
    with pytest.raises(InvalidLoDError, match=r"between 1 and 2 indices"):
        t.slice([0, 0, 0])


def test_zero_d_tensor_cannot_carry_lod():
    with pytest.raises(InvalidLoDError, match="0-D"):
        pir.LoDTensor(np.float32(1.0), [[0, 1]])


def test_np_array_of_a_tensor_is_a_snapshot_and_asarray_a_view():
    """Fluid programs snapshot parameters with np.array(var.get_tensor()); optimizers then
    update the tensor in place, so np.array must copy (numpy's copy=True), asarray not."""
    tensor = pir.LoDTensor()
    tensor.set(np.arange(3, dtype=np.float32))
    snapshot, view = np.array(tensor), np.asarray(tensor)
    as_double = np.array(tensor, dtype=np.float64)
    tensor.numpy()[0] = 7
    assert snapshot.tolist() == [0, 1, 2] and as_double.tolist() == [0, 1, 2]
    assert view.tolist() == [7, 1, 2]
    with pytest.raises(ValueError, match="without a copy"):
        np.asarray(tensor, dtype=np.float64, copy=False)


# --- LoDTensor ---------------------------------------------------------------------------------


def test_create_lod_tensor_from_id_sequences_with_two_levels():
    # 2 paragraphs of 2 and 1 sentences; the sentences hold 2, 1 and 3 word ids.
    t = pir.create_lod_tensor([[1, 2], [3], [4, 5, 6]], [[2, 1], [2, 1, 3]])
    assert t.numpy().dtype == np.int64 and t.shape == (6, 1)
    np.testing.assert_array_equal(t.numpy().ravel(), [1, 2, 3, 4, 5, 6])
    assert t.lod() == [[0, 2, 3], [0, 2, 3, 6]]
    assert t.slice([0, 1]).numpy().ravel().tolist() == [3]
    with pytest.raises(InvalidLoDError, match=r"sequences of lengths \[2, 1, 3\], but the last "
                                              r"level of recursive_seq_lens is \[2, 1\]"):
        pir.create_lod_tensor([[1, 2], [3], [4, 5, 6]], [[2, 1], [1, 1], [2, 1]])


def test_slice_rejects_negative_indices_at_every_level():
    t = pir.create_lod_tensor(np.arange(6, dtype=np.float32).reshape(6, 1), [[2, 1], [2, 1, 3]])
    with pytest.raises(InvalidLoDError, match=r"branch index -1 at level 0 is out of range"):
        t.slice([-1])
    with pytest.raises(InvalidLoDError, match=r"branch index -1 at level 1 is out of range "
                                              r"\[0, 1\)"):
        t.slice([1, -1])


def test_a_lod_with_more_than_256_sequences_is_valid():
    """Offsets compared as numbers, not as objects (ints above 256 are distinct objects)."""
    t = pir.create_lod_tensor(np.zeros((600, 1), np.float32), [[300], [2] * 300])
    assert t.lod()[0] == [0, 300] and t.lod()[1][-1] == 600
    assert t.has_valid_recursive_sequence_lengths()
    with pytest.raises(InvalidLoDError, match="level 0 ends at 299, but level 1 holds 300"):
        t.set_lod([[0, 299], list(range(0, 601, 2))])


@pytest.mark.parametrize("branch", [[3], [4], [-1]])
def test_slice_past_the_last_sequence_is_refused(branch):
    t = pir.create_lod_tensor(np.arange(6, dtype=np.float32).reshape(6, 1), [[2, 1, 3]])
    with pytest.raises(InvalidLoDError, match=rf"branch index {branch[0]} at level 0 is out of "
                                              r"range \[0, 3\)"):
        t.slice(branch)


# -- behaviours a fresh mutation sample found untested (issue 30) ---------------------------
def test_a_lod_given_before_the_data_is_valid_only_once_the_rows_match():
    t = LoDTensor()
    t.set_recursive_sequence_lengths([[2, 3]])  # Fluid lets the LoD come first
    assert not t.has_valid_recursive_sequence_lengths()  # 0 rows, the LoD says 5
    t.set(np.zeros((5, 1), np.float32))
    assert t.has_valid_recursive_sequence_lengths()
    with pytest.raises(InvalidLoDError):
        t.set(np.zeros((4, 1), np.float32))


def _four_levels() -> LoDTensor:
    # 2 documents > 3 paragraphs > 4 sentences > 6 words (one word per row)
    t = LoDTensor(np.arange(6, dtype=np.float32).reshape(6, 1))
    t.set_recursive_sequence_lengths([[1, 2], [1, 2, 1], [2, 1, 1, 1], [1, 1, 2, 1, 1]])
    return t


def test_slice_by_a_full_branch_of_four_indices_and_by_a_numpy_branch():
    t = _four_levels()
    # document 1 > its paragraph 1 (the third) > its sentence 0 (the fifth) > word 0
    one = t.slice([1, 1, 0, 0])
    assert one.numpy().ravel().tolist() == [5.0] and one.recursive_sequence_lengths() == [[1]]
    # document 1 > its paragraph 0 (the second): sentences 1-2, words 2-3, rows 2-4
    part = t.slice(np.array([1, 0]))
    assert part.numpy().ravel().tolist() == [2.0, 3.0, 4.0]
    assert part.recursive_sequence_lengths() == [[2], [1, 1], [2, 1]]
    np.testing.assert_array_equal(t.slice(np.array([0])).numpy().ravel(), [0.0, 1.0])
    with pytest.raises(InvalidLoDError, match=r"between 1 and 4 indices .* got \[0, 0, 0, 0, 0\]"):
        t.slice([0, 0, 0, 0, 0])


def test_slice_names_the_range_of_the_level_it_fails_at():
    # below level 0 the range is the chosen item's own children: article 1 holds one
    # sentence (sentences 3 to 4 of the batch), so its sentence 1 does not exist
    with pytest.raises(InvalidLoDError, match=r"index 1 at level 1 is out of range \[0, 1\)"):
        seed_tensor().slice([1, 1])
    t = _four_levels()
    for branch, words in [([1, 5], r"index 5 at level 1 is out of range \[0, 2\)"),
                          ([2], r"index 2 at level 0 is out of range \[0, 2\)"),
                          ([0, 0, -1], r"index -1 at level 2 is out of range \[0, 1\)")]:
        with pytest.raises(InvalidLoDError, match=words):
            t.slice(branch)


def test_create_lod_tensor_refuses_lengths_that_cut_the_sequences_elsewhere():
    with pytest.raises(InvalidLoDError, match=r"lengths \[2, 1\], but the last level .* \[3, 0\]"):
        create_lod_tensor([[1, 2], [3]], [[3, 0]])
    same = create_lod_tensor([[1, 2], [3]], [[2, 1]])
    assert same.numpy().ravel().tolist() == [1, 2, 3]


def test_create_random_int_lodtensor_without_a_lod_is_empty():
    t = create_random_int_lodtensor([], [2], low=0, high=9, seed=1)
    assert t.numpy().shape == (0, 2) and t.lod() == []
    u = create_random_int_lodtensor([[2, 1]], [2], low=3, high=3, seed=1)
    assert u.numpy().tolist() == [[3, 3]] * 3 and u.recursive_sequence_lengths() == [[2, 1]]


@pytest.mark.parametrize("data, seq, single", [([[1, 2], 3], 0, 1), ([3, [1, 2]], 1, 0),
                                               ([(1,), np.array([2]), 2.5], 0, 2)])
def test_create_lod_tensor_refuses_a_list_mixing_sequences_and_single_values(data, seq, single):
    """Wherever the odd item sits (first, last), a project error naming both items;
    before, a stray TypeError or numpy ValueError depending on the order."""
    with pytest.raises(InvalidLoDError, match=rf"the data mixes sequences and single values: "
                                              rf"item {seq} is a sequence \(\w+\), item "
                                              rf"{single} is not \(\w+\)"):
        pir.create_lod_tensor(data, [[len(data)]])


def test_repr_shows_the_lod_only_when_there_is_one():
    with_lod = pir.create_lod_tensor(np.arange(3, dtype=np.int64).reshape(3, 1), [[2, 1]])
    assert repr(with_lod) == "LoDTensor(shape=[3, 1], dtype=int64, lod=[[0, 2, 3]])"
    two = pir.create_lod_tensor(np.zeros((3, 2), np.float32), [[1, 1], [2, 1]])
    assert repr(two) == "LoDTensor(shape=[3, 2], dtype=float32, lod=[[0, 1, 2], [0, 2, 3]])"
    assert repr(pir.LoDTensor(np.zeros((2, 2), np.float32))) == \
        "LoDTensor(shape=[2, 2], dtype=float32)"


@pytest.mark.parametrize("dtype", ["float32", "int64", ">f4", "U3", "datetime64[s]"])
def test_asarray_with_the_tensor_s_own_dtype_shares_its_data(dtype):
    """np.asarray(t, dtype=t.dtype) is a view for every dtype, also those numpy makes a new
    dtype object for each time (byte-swapped, strings, datetimes), and copy=False works."""
    t = pir.LoDTensor(np.zeros(3, dtype))
    for copy in (None, False):
        view = t.__array__(np.dtype(dtype), copy=copy)
        assert np.shares_memory(view, t.numpy()) and view.dtype == np.dtype(dtype)
    assert np.shares_memory(np.asarray(t, dtype=dtype), t.numpy())
    assert not np.shares_memory(np.array(t, dtype=dtype), t.numpy())  # np.array copies


# -- behaviours the fresh samples of 20261129 and 20261130 found untested (issue 30) ---------
@pytest.mark.parametrize("lod, rows, pattern", [
    # levels below the first: each message names the level it found wrong
    ([[0, 2], [0, 1, 4], [0, 2, 3, 5]], 5, r"level 1 ends at 4, but level 2 holds 3 sequences"),
    ([[0, 1], [0, 2], [0, 1, 2], [0, 2, 3, 4]], 4,
     r"level 2 ends at 2, but level 3 holds 3 sequences"),
    # an empty level is named as such, not as "level 1 holds -1 sequences"
    ([[0, 1], []], 0, r"level 1 is empty"),
    # wherever it sits: the first level, one in the middle, the last of three
    ([[], [0, 2]], 2, r"level 0 is empty"),
    ([[0, 1], [], [0, 2]], 2, r"level 1 is empty"),
    ([[0, 1], [0, 1], []], 0, r"level 2 is empty"),
    ([[0, 2], [1, 2, 3]], 3, r"level 1 must start at 0, but starts at 1"),
    ([[0, 2], [0, 2, 3], [0, 3, 2, 4]], 4, r"level 2 decreases at offset #2: 3 -> 2"),
])
def test_invalid_lod_below_the_first_level_names_that_level(lod, rows, pattern):
    with pytest.raises(InvalidLoDError, match=pattern):
        LoDTensor(np.zeros((rows, 1), np.float32), lod)


def test_has_valid_recursive_sequence_lengths_answers_true_or_false():
    """A bool, as Paddle's answers: `is False` and `== False` hold for an invalid LoD."""
    t = LoDTensor()
    t.set_recursive_sequence_lengths([[2, 3]])  # no rows yet: the LoD does not fit
    assert t.has_valid_recursive_sequence_lengths() is False
    t.set(np.zeros((5, 1), np.float32))
    assert t.has_valid_recursive_sequence_lengths() is True


def test_the_tensor_owns_its_lod_as_fluid_s_set_lod_copies():
    """Offsets given as int64 arrays are copied: a later write to the caller's array must not
    reach the tensor's LoD, which was validated when it was set."""
    level0, level1 = np.array([0, 1, 2], np.int64), np.array([0, 2, 3], np.int64)
    t = LoDTensor(np.zeros((3, 1), np.float32), [level0, level1])
    level0[1], level1[1] = 5, 7
    assert t.lod() == [[0, 1, 2], [0, 2, 3]] and t.has_valid_recursive_sequence_lengths()
    u = LoDTensor(np.zeros((3, 1), np.float32))
    given = np.array([0, 3], np.int64)
    u.set_lod([given])
    given[1] = 2
    assert u.lod() == [[0, 3]]


def test_a_lod_set_on_a_one_dimensional_tensor_is_checked_against_its_rows():
    """Only a tensor not yet given data (LoDTensor()) takes a LoD before its rows are known;
    a 1-D tensor with data has rows like any other."""
    t = LoDTensor(np.arange(5, dtype=np.float32))
    with pytest.raises(InvalidLoDError, match=r"ends at 3, but the tensor has 5 rows"):
        t.set_lod([[0, 2, 3]])
    t.set_recursive_sequence_lengths([[2, 3]])
    assert t.lod() == [[0, 2, 5]] and t.has_valid_recursive_sequence_lengths()


def test_a_lod_that_does_not_fit_the_rows_names_where_its_last_level_ends():
    """With several levels, the rows are checked against the last level's last offset, and
    the message gives that offset (not the first level's, nor the level's start)."""
    with pytest.raises(InvalidLoDError, match=r"the last LoD level ends at 6, but the tensor "
                                              r"has 7 rows"):
        LoDTensor(np.zeros((7, 1), np.float32), [[0, 1, 3], [0, 2, 5, 6]])


def test_create_random_int_lodtensor_draws_from_0_and_1_by_default():
    """Without low and high the values are the defaults' range, both ends included."""
    t = create_random_int_lodtensor([[40, 60]], [3], seed=3)
    assert t.numpy().shape == (100, 3) and t.numpy().dtype == np.int64
    assert set(np.unique(t.numpy()).tolist()) == {0, 1}


def test_a_misspelled_attribute_is_refused_not_stored():
    t = LoDTensor(np.zeros((2, 1), np.float32))
    with pytest.raises(AttributeError):
        t.lod_levels = 2
    assert t.lod_level == 0


# -- each behaviour of the module pinned (issue 30: the class, not the sampled line) ----------
def test_a_level_that_is_not_a_flat_list_of_integers_is_named_by_its_index():
    t = LoDTensor(np.zeros((3, 1), np.float32))
    with pytest.raises(InvalidLoDError, match=r"LoD level 1 must be a 1-D list of integer "
                                              r"offsets, got \[\[0, 1\], \[1, 3\]\]"):
        t.set_lod([[0, 2], [[0, 1], [1, 3]]])
    with pytest.raises(InvalidLoDError, match=r"LoD level 1 must be a 1-D list of integer "
                                              r"offsets, got \[0, 1.5, 3\]"):
        t.set_lod([[0, 2], [0, 1.5, 3]])
    for bare in (0, 3):  # a level given as one integer, not a list of offsets
        with pytest.raises(InvalidLoDError, match=rf"LoD level 0 must be a 1-D list of integer "
                                                  rf"offsets, got {bare}$"):
            t.set_lod([bare])
    t.set_lod([np.array([0, 3], np.uint8)])  # unsigned offsets are integers too
    assert t.lod() == [[0, 3]] and t.offsets[0].dtype == np.int64


def test_negative_lengths_name_their_level():
    with pytest.raises(InvalidLoDError, match=r"recursive sequence lengths at level 1 must be "
                                              r">= 0, got \[2, -1\]"):
        create_lod_tensor(np.zeros((1, 1)), [[2], [2, -1]])


def test_lengths_may_be_numpy_arrays_and_a_level_may_hold_no_sequence():
    t = LoDTensor(np.zeros((5, 1), np.float32))
    t.set_recursive_sequence_lengths([np.array([2]), np.array([[3], [2]])])
    assert t.lod() == [[0, 2], [0, 3, 5]]
    empty = LoDTensor()
    empty.set_recursive_sequence_lengths([[]])  # no sequences: the one offset 0
    assert empty.lod() == [[0]] and empty.recursive_sequence_lengths() == [[]]


def test_shape_is_a_tuple_and_fluid_s_shape_call_gives_a_list():
    t = LoDTensor(np.zeros((2, 3), np.float32))
    assert t.shape == (2, 3) and isinstance(t.shape, tuple)
    assert t.shape() == [2, 3] and isinstance(t.shape(), list)
    with pytest.raises(AttributeError):  # a tuple: nothing can be stored on it
        t.shape.rank = 2


def test_a_tensor_not_yet_given_data_is_empty_float32_without_a_lod():
    t = LoDTensor()
    assert t.shape == (0,) and t.dtype == np.float32 and t.lod() == [] and t.lod_level == 0
    assert t.has_valid_recursive_sequence_lengths() is True


def test_set_copies_the_data_and_keeps_the_lod():
    t = create_lod_tensor(np.zeros((3, 1), np.float32), [[2, 1]])
    given = np.ones((3, 2), np.float64)
    t.set(given)
    given[0, 0] = 9.0
    assert t.numpy()[0, 0] == 1.0 and t.dtype == np.float64 and t.lod() == [[0, 2, 3]]
    with pytest.raises(InvalidLoDError, match=r"ends at 3, but the tensor has 2 rows"):
        t.set(np.zeros((2, 2)))
    assert t.shape == (3, 2)  # a refused set leaves the data as it was


def test_unchecked_wraps_the_given_array_and_offsets_as_they_are():
    array, offsets = np.zeros((3, 1), np.float32), (np.array([0, 3], np.int64),)
    t = LoDTensor.unchecked(array, offsets)
    assert t.numpy() is array and t.offsets is offsets and t.lod_level == 1
    assert LoDTensor.unchecked(array).lod() == []


def test_create_lod_tensor_from_a_lod_tensor_takes_its_data_and_the_new_lod():
    old = create_lod_tensor(np.arange(4, dtype=np.float32).reshape(4, 1), [[1, 3]])
    new = create_lod_tensor(old, [[2, 2]])
    assert new.lod() == [[0, 2, 4]] and new.numpy().ravel().tolist() == [0, 1, 2, 3]
    assert old.lod() == [[0, 1, 4]]


def test_id_sequences_may_be_tuples_or_arrays_and_flatten_to_one_int64_column():
    t = create_lod_tensor([(5, 6), np.array([[7], [8]], np.int32), [9]], [[2, 2, 1]])
    assert t.dtype == np.int64 and t.shape == (5, 1)
    assert t.numpy().ravel().tolist() == [5, 6, 7, 8, 9] and t.lod() == [[0, 2, 4, 5]]
    # no lengths given: the sequences are not checked against any, and no LoD is set
    flat = create_lod_tensor([[1, 2], [3]], [])
    assert flat.lod() == [] and flat.shape == (3, 1)


def test_create_random_int_lodtensor_has_rows_of_the_last_level_and_a_seeded_draw():
    t = create_random_int_lodtensor([[1, 1], [2, 3]], [2, 2], low=-4, high=4, seed=11)
    assert t.shape == (5, 2, 2) and t.lod() == [[0, 1, 2], [0, 2, 5]]
    assert t.numpy().min() >= -4 and t.numpy().max() <= 4
    again = create_random_int_lodtensor([[1, 1], [2, 3]], [2, 2], low=-4, high=4, seed=11)
    np.testing.assert_array_equal(t.numpy(), again.numpy())
    want = np.random.default_rng(11).integers(-4, 4, size=(5, 2, 2), endpoint=True)
    np.testing.assert_array_equal(t.numpy(), want)


def test_fluid_s_lod_tensor_module_exports_its_two_functions():
    """`from paddle.fluid.lod_tensor import *` binds create_lod_tensor and
    create_random_int_lodtensor (Fluid 1.x's __all__), not the module's own imports."""
    names: dict = {}
    exec("from paddle_ir.fluid.lod_tensor import *", names)
    assert sorted(n for n in names if n != "__builtins__") == ["create_lod_tensor",
                                                                "create_random_int_lodtensor"]
    assert names["create_lod_tensor"] is create_lod_tensor



def test_a_tensor_with_a_lod_refuses_0_d_data_as_set_lod_refuses_a_lod_on_0_d_data():
    """Either order: a LoD segments rows, which a 0-D array has none of. set() refuses the
    scalar and keeps the data it had; a 0-D array carrying a LoD (only the unchecked
    constructor makes one) has no valid LoD."""
    t = create_lod_tensor(np.zeros((3, 1), np.float32), [[2, 1]])
    with pytest.raises(InvalidLoDError, match="a 0-D tensor cannot carry a LoD; LoD segments "
                                              "rows"):
        t.set(np.float32(1.0))
    assert t.shape == (3, 1) and t.lod() == [[0, 2, 3]]
    scalar = LoDTensor.unchecked(np.array(1.0), (np.array([0, 1], np.int64),))
    assert scalar.has_valid_recursive_sequence_lengths() is False
    assert LoDTensor(np.array(1.0)).has_valid_recursive_sequence_lengths() is True
