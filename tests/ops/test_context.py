"""The inference context's own rules, on a context held in dicts (docs/testing.md).

Mutation testing found these reached by no op's rule: an output index past the first
(set_output_type with i, set_output_dtype), the bounds of lod_level and of a tensor's
byte size, dims_match's unknown dims, and the default var-type rule.
"""

import numpy as np
import pytest

from paddle_ir.core.errors import OpLocation, ShapeInferenceError
from paddle_ir.ops.context import (
    CSR,
    LOD_TENSOR,
    MAX_LOD_LEVEL,
    SELECTED_ROWS,
    InferContext,
    VarInfo,
    default_infer_var_type,
    dims_match,
)


class DictContext(InferContext):
    """The primitives over plain dicts: {slot: [names]} and {name: VarInfo}."""

    def __init__(self, inputs, outputs, infos=None):
        self.op_type, self.attrs = "test_op", {}
        self._ins, self._outs = inputs, outputs
        self.vars = dict(infos or {})
        for names in outputs.values():
            for n in names:
                self.vars.setdefault(n, VarInfo((), None, 0, SELECTED_ROWS))

    def input_names(self, slot):
        return self._ins.get(slot, [])

    def output_names(self, slot):
        return self._outs.get(slot, [])

    def output_slots(self):
        return list(self._outs)

    def var_info(self, name):
        return self.vars[name]

    def _set_var(self, name, shape, dtype, lod_level, var_type):
        old = self.vars[name]
        self.vars[name] = VarInfo(old.shape if shape is None else shape,
                                  old.dtype if dtype is None else dtype,
                                  old.lod_level if lod_level is None else lod_level,
                                  old.var_type if var_type is None else var_type)

    def _share_lod(self, src, dst):
        self._set_var(dst, None, None, self.vars[src].lod_level, None)

    def location(self):
        return OpLocation(self.op_type)


def two_outputs():
    return DictContext({"X": ["x"]}, {"Out": ["a", "b"]},
                       {"x": VarInfo((2, 3), np.dtype("float32"), 1, LOD_TENSOR)})


def test_set_output_type_with_an_index_sets_only_that_output():
    ctx = two_outputs()
    ctx.set_output_type("Out", CSR, i=0)
    ctx.set_output_type("Out", LOD_TENSOR, i=1)
    assert [ctx.vars[n].var_type for n in ("a", "b")] == [CSR, LOD_TENSOR]
    ctx.set_output_type("Out", LOD_TENSOR, i=2)  # past the end: nothing
    ctx.set_output_type("Out", LOD_TENSOR)
    assert [ctx.vars[n].var_type for n in ("a", "b")] == [LOD_TENSOR, LOD_TENSOR]


def test_set_output_dtype_shape_and_lod_level_by_index():
    ctx = two_outputs()
    ctx.set_output_dtype("Out", "int64", i=1)
    ctx.set_output("Out", [4, None], "float64", i=1)
    ctx.set_output_lod_level("Out", 2, i=1)
    assert ctx.vars["b"] == VarInfo((4, -1), np.dtype("float64"), 2, SELECTED_ROWS)
    assert ctx.vars["a"] == VarInfo((), None, 0, SELECTED_ROWS)
    for i in (2, 5):  # an absent output is no error and changes nothing
        ctx.set_output_dtype("Out", "int64", i=i)
        ctx.set_output("Out", [1], i=i)
        ctx.set_output_lod_level("Out", 1, i=i)
        ctx.set_output_type("Out", LOD_TENSOR, i=i)
        ctx.share_lod("X", "Out", j=i)
    assert ctx.vars["a"] == VarInfo((), None, 0, SELECTED_ROWS)


def test_set_output_dtype_alone_keeps_the_shape():
    ctx = two_outputs()
    ctx.set_output("Out", [5], "float32")
    ctx.set_output_dtype("Out", "int32")
    assert ctx.vars["a"].shape == (5,) and ctx.vars["a"].dtype == np.int32


@pytest.mark.parametrize("level", [0, 1, MAX_LOD_LEVEL])
def test_lod_levels_within_the_bounds_are_declared(level):
    ctx = two_outputs()
    ctx.set_output_lod_level("Out", level)
    assert ctx.vars["a"].lod_level == level


@pytest.mark.parametrize("level", [-1, MAX_LOD_LEVEL + 1])
def test_lod_levels_outside_the_bounds_fail(level):
    with pytest.raises(ShapeInferenceError, match=rf"would have lod_level {level}; a LoD has "
                                                  rf"0 to {MAX_LOD_LEVEL} levels"):
        two_outputs().set_output_lod_level("Out", level)


def test_a_shape_of_exactly_the_largest_byte_count_is_declared():
    ctx = two_outputs()
    ctx.set_output("Out", [2**63 - 1], "int8")  # 2**63 - 1 bytes: the limit
    ctx.set_output("Out", [2**61 - 1, 2], "int16", i=1)  # 2**63 - 4 bytes
    assert ctx.vars["a"].shape == (2**63 - 1,) and ctx.vars["b"].shape == (2**61 - 1, 2)


@pytest.mark.parametrize("shape, dtype", [([2**62], "float16"), ([2**61, 4], "float16"),
                                          ([2**62, 3], None), ([3, -2], "float32")])
def test_a_shape_past_the_largest_byte_count_fails(shape, dtype):
    with pytest.raises(ShapeInferenceError, match="overflows: a tensor holds at most"):
        two_outputs().set_output("Out", shape, dtype)


def test_dims_match_treats_a_negative_dim_on_either_side_as_unknown():
    assert dims_match(3, 3) and dims_match(-1, 3) and dims_match(3, -1)
    assert dims_match(0, 0) and not dims_match(3, 0) and not dims_match(0, 3)
    assert not dims_match(2, 3)


def test_the_default_var_type_rule_makes_every_output_dense():
    ctx = DictContext({}, {"Out": ["a", "b"], "Mask": ["m"]})
    default_infer_var_type(ctx)
    assert {n: ctx.vars[n].var_type for n in ("a", "b", "m")} == dict.fromkeys("abm", LOD_TENSOR)


def test_reading_an_input_that_was_not_given_fails_naming_the_slot():
    ctx = two_outputs()
    assert ctx.input_shape("X") == (2, 3) and ctx.input_dtype("X") == np.float32
    assert ctx.input_lod_level("X") == 1 and ctx.input_var_type("X") == LOD_TENSOR
    for read in (ctx.input_shape, ctx.input_dtype, ctx.input_lod_level, ctx.input_var_type):
        with pytest.raises(ShapeInferenceError, match="input Y is required but was not given"):
            read("Y")
        with pytest.raises(ShapeInferenceError, match="input X is required but was not given"):
            read("X", 1)  # one past the last of the slot's inputs
    assert not ctx.has_input("Y") and ctx.has_output("Out") and ctx.input_count("X") == 1


def test_an_input_without_a_data_type_fails_naming_it():
    ctx = DictContext({"X": ["x"]}, {"Out": ["a"]}, {"x": VarInfo((2,), None, 0, LOD_TENSOR)})
    with pytest.raises(ShapeInferenceError, match=r"input X \(x\) has no data type"):
        ctx.input_dtype("X")


def test_enforce_formats_a_callable_message_and_hint_only_when_it_fails():
    ctx = DictContext({}, {})
    calls = []

    def message():
        calls.append("message")
        return "X must be 2-D, got [3]"

    ctx.enforce(True, message, hint=lambda: calls.append("hint") or "reshape X")
    assert calls == []
    with pytest.raises(ShapeInferenceError, match=r"X must be 2-D, got \[3\]") as err:
        ctx.enforce(False, message, hint=lambda: "reshape X to [N, D]")
    assert calls == ["message"] and "reshape X to [N, D]" in str(err.value)
    with pytest.raises(ShapeInferenceError, match="plain text") as err:
        ctx.enforce(False, "plain text", hint="a plain hint")
    assert "a plain hint" in str(err.value)
