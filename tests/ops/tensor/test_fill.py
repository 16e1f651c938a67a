"""fill_constant with shape and value tensors, and values its dtype cannot hold; fill."""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir import io
from paddle_ir.cli.main import main
from paddle_ir.core.errors import KernelError, ShapeInferenceError
from tests.op_test import check_op

# --- fill_constant with shape tensors ---------------------------------------------------

def test_fill_constant_shape_and_value_tensors():
    parts = [("d0", np.array([2], np.int32)), ("d1", np.array([3], np.int64))]
    check_op("fill_constant", {"ShapeTensorList": parts}, {"dtype": 5, "value": 1.5},
             {"Out": np.full((2, 3), 1.5, np.float32)})
    check_op("fill_constant", {"ShapeTensor": np.array([4], np.int64),
                               "ValueTensor": np.array([7.0], np.float32)},
             {"dtype": 3, "shape": [9]}, {"Out": np.full(4, 7, np.int64)})


# --- values a dtype cannot hold are refused, never wrapped (issue 27 item 13) --------------


@pytest.mark.parametrize("dtype, value, message", [
    ("int32", 1e20, r"the value 100000000000000000000 is outside int32's range "
                    r"\[-2147483648, 2147483647\]"),
    ("int64", float("nan"), r"the value nan is not a number int64 can hold"),
    ("int64", float("inf"), r"the value inf is not a number int64 can hold"),
    ("uint8", -1, r"the value -1 is outside uint8's range \[0, 255\]"),
    ("float16", 1e6, r"the value 1000000.0 overflows float16 \(its largest value is 65504\)"),
])
def test_a_value_outside_the_dtype_is_refused_when_built(dtype, value, message):
    main = pir.Program()
    with pir.program_guard(main, pir.Program()), \
            pytest.raises(ShapeInferenceError, match=f"fill_constant.*\n.*{message}"):
        pir.layers.fill_constant([2], dtype, value)


@pytest.mark.parametrize("dtype, value", [("int32", 2**31 - 1), ("int64", -(2**63)),
                                          ("uint8", 255), ("float32", float("inf")),
                                          ("float64", float("nan")), ("int32", 2.7)])
def test_values_the_dtype_holds_are_filled_exactly(dtype, value):
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        out = pir.layers.fill_constant([3], dtype, value)
    got = pir.Executor().run(main, fetch_list=[out])[0]
    want = np.array([int(value) if np.dtype(dtype).kind in "iu" else value] * 3, dtype=dtype)
    np.testing.assert_array_equal(got, want)


def _saved_with_value(tmp_path, text: str):
    """A program saved with fill_constant's str_value set past the builder's checks."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        out = pir.layers.fill_constant([2], "int32", 5)
    op = main.desc.blocks[0].ops[0]
    next(a for a in op.attrs if a.name == "str_value").s = text
    path = tmp_path / "fill.pb"
    path.write_bytes(main.desc.SerializeToString())
    return path, out.name


@pytest.mark.parametrize("text, message", [("1e20", "outside int32's range"),
                                           ("nan", "not a number int32 can hold"),
                                           ("abc", "str_value 'abc' is not a number")])
def test_a_loaded_program_with_such_a_value_is_refused(tmp_path, capsys, text, message):
    path, name = _saved_with_value(tmp_path, text)
    program = io.load_program(path)
    with pytest.raises(ShapeInferenceError, match=message):
        pir.Executor().run(program, fetch_list=[name])
    assert main(["run", str(path), "--fetch", name]) == 1
    assert message in capsys.readouterr().err
    assert main(["check", str(path)]) == 1
    assert message in capsys.readouterr().out


def test_a_value_tensor_outside_the_dtype_is_refused_when_run():
    main_program = pir.Program()
    with pir.program_guard(main_program, pir.Program()):
        value = pir.layers.data("v", [1], dtype="float64", append_batch_size=False)
        out = main_program.global_block().create_var(name="out", dtype="int32", shape=[2])
        main_program.global_block().append_op(
            "fill_constant", inputs={"ValueTensor": [value]}, outputs={"Out": [out]},
            attrs={"shape": [2], "dtype": 2})
    exe = pir.Executor()
    np.testing.assert_array_equal(
        exe.run(main_program, feed={"v": np.array([7.0])}, fetch_list=[out])[0], [7, 7])
    with pytest.raises(KernelError, match="ValueTensor holds 1e\\+20 is outside int32's"):
        exe.run(main_program, feed={"v": np.array([1e20])}, fetch_list=[out])


# --- fill: values from the attribute ---------------------------------------------------------

@pytest.mark.parametrize("dtype,np_dtype", [(5, np.float32), (3, np.int64), (6, np.float64),
                                            (0, np.bool_)])
def test_fill_lays_out_the_values_in_the_shape_and_dtype(dtype, np_dtype):
    values = [1.5, -2.0, 0.0, 3.25, 7.0, 1e-3]
    want = np.asarray(values, np.float32).astype(np_dtype).reshape(2, 3)
    got = check_op("fill", {}, {"value": values, "shape": [2, 3], "dtype": dtype},
                   {"Out": want})["Out"][0]
    assert np.asarray(got).dtype == np_dtype


def test_fill_with_the_wrong_number_of_values_is_named():
    with pytest.raises(ShapeInferenceError,
                       match=r"value holds 5 numbers, but shape \[2, 3\] needs 6"):
        check_op("fill", {}, {"value": [1.0] * 5, "shape": [2, 3]})
