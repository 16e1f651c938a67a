"""ops/tensor_attrs.py: the table of inputs that override attributes, and the kernel
wrapper that puts their values in place (precedence: parts, whole, attribute)."""

import numpy as np
import pytest

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.tensor_attrs import (
    TensorAttr,
    resolve,
    tensor_attr_inputs,
    with_tensor_attrs,
)

TABLE = (TensorAttr("shape", "ints", whole="Shape", parts="ShapeTensor"),
         TensorAttr("scale", "float", whole="ScaleTensor"))


def test_the_slots_come_in_table_order_and_are_dispensable():
    slots = tensor_attr_inputs(TABLE)
    assert [s.name for s in slots] == ["Shape", "ShapeTensor", "ScaleTensor"]
    assert all(s.dispensable for s in slots)
    assert [s.duplicable for s in slots] == [False, True, False]


def test_parts_win_over_whole_which_wins_over_the_attribute():
    attrs = {"shape": [1, 1], "scale": 1.0}
    assert resolve("op", attrs, TABLE, [None, [], None]) == attrs
    whole = resolve("op", attrs, TABLE, [np.array([2, 3]), [], np.array([0.5])])
    assert whole == {"shape": [2, 3], "scale": 0.5}
    parts = resolve("op", attrs, TABLE, [np.array([2, 3]), [np.array([4]), np.array([5])],
                                         None])
    assert parts == {"shape": [4, 5], "scale": 1.0}
    assert attrs == {"shape": [1, 1], "scale": 1.0}  # the op's attributes are not changed


def test_values_of_the_wrong_kind_or_size_are_named():
    with pytest.raises(KernelError, match="op: Shape must hold integers"):
        resolve("op", {"shape": [], "scale": 1.0}, TABLE, [np.array([2.0]), [], None])
    with pytest.raises(KernelError, match="op: ScaleTensor must hold one value"):
        resolve("op", {"shape": [], "scale": 1.0}, TABLE, [None, [], np.array([1.0, 2.0])])


def test_the_wrapper_passes_the_op_inputs_and_the_rest():
    def kernel(attrs, x, dout):
        return attrs["scale"], x, dout

    wrapped = with_tensor_attrs("op", TABLE, 1, kernel)
    assert wrapped({"shape": [], "scale": 1.0}, "x", None, [], np.array([3.0]), "dout") == (
        3.0, "x", "dout")
    assert with_tensor_attrs("op", (), 1, kernel) is kernel  # nothing to resolve


def test_a_parts_slot_needs_a_list_kind():
    with pytest.raises(ValueError, match="parts only for lists"):
        TensorAttr("scale", "float", parts="ScaleList")
