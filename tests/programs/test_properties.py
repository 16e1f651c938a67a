"""Property tests: LoD and SelectedRows invariants, and byte round trips of tensors and programs."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import paddle_ir as pir
from paddle_ir.core import tensor_io
from paddle_ir.core.errors import (
    InvalidLoDError,
    InvalidSelectedRowsError,
    PaddleIRError,
    ProgramFormatError,
)
from paddle_ir.proto import framework_pb2 as pb
from tests.fuzz.corpus import programs
from tests.fuzz.mutate import mutate_message, retarget_op

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32,
          np.float64, np.uint16, np.complex64, np.complex128]


# --- LoD ---------------------------------------------------------------------------------


@st.composite
def recursive_lengths(draw, max_levels=3):
    """Lengths per level that fit together: level k+1 has sum(level k) entries."""
    levels = [draw(st.lists(st.integers(0, 4), min_size=1, max_size=5))]
    for _ in range(draw(st.integers(0, max_levels - 1))):
        levels.append(draw(st.lists(st.integers(0, 4), min_size=sum(levels[-1]),
                                    max_size=sum(levels[-1]))))
    return levels


@FAST
@given(recursive_lengths(), st.integers(1, 3))
def test_lod_from_lengths_satisfies_the_offset_invariants(lengths, width):
    rows = sum(lengths[-1])
    t = pir.create_lod_tensor(np.arange(rows * width, dtype=np.float32).reshape(rows, width),
                              lengths)
    assert t.recursive_sequence_lengths() == lengths
    for k, level in enumerate(t.offsets):
        assert level[0] == 0 and np.all(np.diff(level) >= 0)
        below = t.offsets[k + 1].size - 1 if k + 1 < t.lod_level else rows
        assert level[-1] == below
    assert t.has_valid_recursive_sequence_lengths()
    # The top-level slices partition the rows, in order.
    parts = [t.slice([i]).numpy() for i in range(len(lengths[0]))]
    np.testing.assert_array_equal(np.concatenate(parts) if parts else t.numpy()[:0], t.numpy())
    back = tensor_io.deserialize_lod_tensor(tensor_io.serialize_lod_tensor(t))
    assert back.lod() == t.lod() and back.numpy().tobytes() == t.numpy().tobytes()


@FAST
@given(st.lists(st.lists(st.integers(-2, 8), max_size=5), max_size=3), st.integers(0, 6))
def test_any_offsets_are_accepted_only_when_valid(lod, rows):
    t = pir.LoDTensor(np.zeros((rows, 1), np.float32))
    try:
        t.set_lod(lod)
    except InvalidLoDError:
        return
    for k, level in enumerate(t.offsets):
        assert level.size and level[0] == 0 and np.all(np.diff(level) >= 0)
        assert level[-1] == (t.offsets[k + 1].size - 1 if k + 1 < t.lod_level else rows)


# --- SelectedRows ----------------------------------------------------------------------


@st.composite
def selected_rows(draw):
    height = draw(st.integers(1, 8))
    rows = draw(st.lists(st.integers(0, height - 1), max_size=10))
    width = draw(st.integers(1, 3))
    value = draw(hnp.arrays(np.float64, (len(rows), width),
                            elements=st.integers(-5, 5).map(float)))
    return pir.SelectedRows(rows, value, height)


@FAST
@given(selected_rows())
def test_selected_rows_merge_densify_and_bytes_agree(sr):
    dense = np.zeros(sr.shape)
    np.add.at(dense, sr.rows, sr.value)
    np.testing.assert_array_equal(sr.to_dense(), dense)
    merged = sr.merge()
    assert merged.rows.tolist() == sorted(set(sr.rows.tolist()))
    np.testing.assert_array_equal(merged.to_dense(), dense)
    back = tensor_io.deserialize_selected_rows(tensor_io.serialize_selected_rows(sr))
    assert back.rows.tolist() == sr.rows.tolist() and back.height == sr.height
    np.testing.assert_array_equal(back.value, sr.value)
    keep = sr.rows[::2]
    kept = sr.retain(keep)
    assert set(kept.rows.tolist()) <= set(keep.tolist())


@FAST
@given(st.lists(st.integers(-3, 12), max_size=6), st.integers(0, 4), st.integers(-2, 10))
def test_any_rows_are_accepted_only_when_valid(rows, value_rows, height):
    try:
        sr = pir.SelectedRows(rows, np.zeros((value_rows, 2)), height)
    except InvalidSelectedRowsError:
        return
    assert sr.height >= 0 and len(rows) == value_rows
    assert all(0 <= r < sr.height for r in sr.rows.tolist())


# --- tensor bytes ------------------------------------------------------------------------


@FAST
@given(st.sampled_from(DTYPES).flatmap(
    lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0,
                                               max_side=4))))
def test_every_dtype_and_shape_round_trips_bit_for_bit(array):
    raw = tensor_io.serialize_lod_tensor(array)
    back = tensor_io.deserialize_lod_tensor(raw)
    assert back.dtype == array.dtype and back.shape == array.shape
    assert back.numpy().tobytes() == np.ascontiguousarray(array).tobytes()
    assert tensor_io.serialize_lod_tensor(back) == raw


@FAST
@given(st.binary(max_size=64))
def test_random_bytes_are_never_a_crash(data):
    for reader in (tensor_io.deserialize_lod_tensor, tensor_io.deserialize_selected_rows,
                   tensor_io.deserialize_csr):
        try:
            reader(data)
        except PaddleIRError:
            pass


# --- program bytes ---------------------------------------------------------------------------


@st.composite
def built_programs(draw):
    """A small random forward program built through the layers (so it is valid)."""
    main = pir.Program()
    with pir.unique_name.guard(), pir.program_guard(main, pir.Program()):
        h = pir.layers.data("x", [-1, draw(st.integers(1, 4))])
        for _ in range(draw(st.integers(0, 6))):
            layer = draw(st.sampled_from(["scale", "relu", "tanh", "fc", "add", "square"]))
            if layer == "scale":
                h = pir.layers.scale(h, draw(st.floats(-2, 2, width=32)))
            elif layer == "fc":
                h = pir.layers.fc(h, draw(st.integers(1, 4)))
            elif layer == "add":
                h = h + h
            else:
                h = getattr(pir.layers, layer)(h)
    return main


@FAST
@given(built_programs())
def test_built_programs_round_trip_to_identical_bytes_and_text(program):
    data = program.serialize()
    again = pir.Program.parse(data)
    assert again.serialize() == data
    assert str(again) == str(program)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_mutated_programs_that_parse_round_trip(data):
    seeds = programs()
    desc = pb.ProgramDesc()
    desc.CopyFrom(seeds[data.draw(st.integers(0, len(seeds) - 1))])
    for _ in range(data.draw(st.integers(1, 3))):
        (retarget_op if data.draw(st.booleans()) else mutate_message)(data.draw, desc)
    raw = desc.SerializePartialToString()
    try:
        program = pir.Program.parse(raw)
    except ProgramFormatError:
        return
    again = pir.Program.parse(program.serialize())
    assert again.desc == program.desc
    assert str(again) == str(program)


@pytest.mark.parametrize("index", range(8))
def test_every_fuzz_seed_program_is_sound(index):
    from paddle_ir.analysis.checker import check_program

    assert check_program(programs()[index]) == []
