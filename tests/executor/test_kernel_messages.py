"""numpy's own failures said as what the user did wrong (issue 16, item 8), and kernels that
write an output of another kind than the program declares (issue 16, item 5's "nothing
silently wrong").

Each bad attribute or input below used to reach the user as numpy's text ("scale < 0",
"high - low < 0", "index can't contain negative values", a ZeroDivisionError while
building) or as a silently wrong result (integer division by zero answered 0).
"""

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.core.errors import KernelError, ShapeInferenceError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.executor.steps import wrong_kind
from paddle_ir.ops.registry import KernelKey, get_op_def
from paddle_ir.proto import framework_pb2 as pb
from tests.op_test import build_one_op


def f32(*shape):
    return np.ones(shape, np.float32)


def i64(*values):
    return np.array(values, np.int64)


def run(op_type, inputs, attrs):
    program, feed, outs = build_one_op(op_type, inputs, attrs)
    fetch = [n for names in outs.values() for n in names]
    return pir.Executor().run(program, feed=feed, fetch_list=fetch, scope=pir.Scope())


# Refused by the op's InferShape: at build time, and when a loaded program runs.
BAD_ATTRS = [
    ("gaussian_random_batch_size_like", {"Input": f32(2, 3)}, {"shape": [-1, 2], "std": -1.0},
     r"std must be >= 0 \(a standard deviation\), got -1.0"),
    ("uniform_random", {}, {"shape": [2], "min": 2.0, "max": 1.0},
     "min must be <= max, got min=2.0 and max=1.0"),
    ("uniform_random_batch_size_like", {"Input": f32(2, 3)},
     {"shape": [-1, 2], "min": 2.0, "max": 1.0}, "min must be <= max, got min=2.0 and max=1.0"),
    ("eye", {}, {"num_rows": 2, "num_columns": -5},
     "num_columns must be >= 0, or -1 for num_rows, got -5"),
    ("sampling_id", {"X": f32(2, 3)}, {"min": 1.0, "max": 0.0},
     "min must be <= max, got min=1.0 and max=0.0"),
    ("sampling_id", {"X": np.zeros((2, 0), np.float32)}, {},
     r"X must be \[N, C\] probabilities with C >= 1, got \[2, 0\]"),
    ("pixel_shuffle", {"X": f32(1, 4, 2, 2)}, {"upscale_factor": 0},
     r"upscale_factor must be positive \(>= 1\), got 0"),
    ("lrn", {"X": f32(1, 4, 2, 2)}, {"n": 0}, r"n must be positive \(>= 1\), got 0"),
    ("unfold", {"X": f32(1, 1, 4, 4)}, {"kernel_sizes": [2, 2], "strides": [0, 0]},
     r"strides must be positive \(>= 1\), got \[0, 0\]"),
    ("im2sequence", {"X": f32(1, 1, 4, 4)}, {"kernels": [2, 2], "strides": [0, 0]},
     r"strides must be positive \(>= 1\), got \[0, 0\]"),
    ("pool3d", {"X": f32(1, 1, 4, 4, 4)}, {"ksize": [2, 2, 2], "strides": [0, 0, 0]},
     r"strides must be positive \(>= 1\), got \[0, 0, 0\]"),
    ("conv3d", {"Input": f32(1, 1, 4, 4, 4), "Filter": f32(1, 1, 2, 2, 2)},
     {"strides": [1, 1, 1], "dilations": [0, 0, 0]},
     r"dilations must be positive \(>= 1\), got \[0, 0, 0\]"),
    ("conv3d_transpose", {"Input": f32(1, 1, 4, 4, 4), "Filter": f32(1, 1, 2, 2, 2)},
     {"strides": [0, 1, 1]}, r"strides must be positive \(>= 1\), got \[0, 1, 1\]"),
    ("label_smooth", {"X": f32(2, 3)}, {"epsilon": 2.0},
     r"epsilon must be in \[0, 1\] \(the mass moved to the prior\), got 2.0"),
    ("warpctc", {"Logits": LoDTensor(f32(3, 4), [[0, 3]]),
                 "Label": LoDTensor(np.array([[1]], np.int32), [[0, 1]])}, {"blank": 9},
     r"blank must be a class id in \[0, 4\) \(Logits' last dim\), got 9"),
    ("crop", {"X": f32(2, 3)}, {"shape": [-3, 2]},
     r"offsets must be >= 0 and shape's dims >= 0 \(or -1: to the end\), got offsets "
     r"\[0, 0\] and shape \[-3, 2\]"),
    ("huber_loss", {"X": f32(2, 1), "Y": f32(2, 1)}, {"delta": -1.0},
     r"delta must be >= 0 \(where the quadratic turns linear\), got -1.0"),
    ("log_loss", {"Predicted": f32(2, 1), "Labels": f32(2, 1)}, {"epsilon": -0.5},
     r"epsilon must be >= 0 \(it keeps log away from 0\), got -0.5"),
    ("smooth_l1_loss", {"X": f32(2, 3), "Y": f32(2, 3)}, {"sigma": 0.0},
     r"sigma must be positive \(the quadratic part spans \|d\| < 1 / sigma\^2\), got 0.0"),
]


@pytest.mark.parametrize("op_type, inputs, attrs, message", BAD_ATTRS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD_ATTRS)])
def test_bad_attributes_are_refused_by_the_ops_rule(op_type, inputs, attrs, message):
    with pytest.raises(ShapeInferenceError, match=rf"(?s){op_type} .*{message}"):
        build_one_op(op_type, inputs, attrs)


def test_a_loaded_program_with_a_bad_attribute_fails_in_the_rule_at_run_time():
    program, feed, outs = build_one_op("pixel_shuffle", {"X": f32(1, 4, 2, 2)},
                                       {"upscale_factor": 2})
    op = program.desc.blocks[0].ops[0]
    next(a for a in op.attrs if a.name == "upscale_factor").i = 0  # as a file could hold it
    with pytest.raises(ShapeInferenceError, match=r"(?s)block 0, op #0 pixel_shuffle .*"
                                                  r"upscale_factor must be positive"):
        pir.Executor().run(program.desc, feed=feed, fetch_list=outs["Out"], scope=pir.Scope())


# Refused by the kernel: the values only it sees.
BAD_VALUES = [
    ("elementwise_div", {"X": i64(1, 2), "Y": i64(0, 1)},
     r"elementwise_div: Y holds 0, and integer division by zero is undefined \(X and Y are "
     r"int64\)"),
    ("elementwise_floordiv", {"X": i64(1, 2), "Y": i64(1, 0)},
     "elementwise_floordiv: Y holds 0, and integer division by zero is undefined"),
    ("elementwise_mod", {"X": i64(1, 2), "Y": i64(0, 0)},
     "elementwise_mod: Y holds 0, and integer division by zero is undefined"),
    ("elementwise_pow", {"X": i64(2, 2), "Y": i64(-1, 1)},
     r"elementwise_pow: Y holds a negative exponent, which an integer X \(int64\) cannot take"),
    ("bpr_loss", {"X": f32(2, 3), "Label": np.array([[9], [0]], np.int64)},
     r"bpr_loss: Label holds 9, outside the item range \[0, 3\) of X"),
    ("warpctc", {"Logits": LoDTensor(f32(3, 4), [[0, 3]]),
                 "Label": LoDTensor(np.array([[7]], np.int32), [[0, 1]])},
     r"warpctc: Label holds ids in \[7, 7\], outside the class range \[0, 4\) of Logits"),
    ("reshape2", {"X": f32(2, 3), "Shape": np.array([4, 2], np.int32)},
     r"reshape2: cannot reshape X.shape=\[2, 3\] into \[4, 2\]: X has 6 elements, the shape 8"),
    ("concat", {"X": [("a", f32(2, 3)), ("b", f32(2, 3))], "AxisTensor": np.array([9], np.int32)},
     r"concat: AxisTensor must hold one axis in \[-2, 2\) for inputs of rank 2, got \[9\]"),
    ("split", {"X": f32(2, 6), "AxisTensor": np.array([7], np.int32)},
     r"split: AxisTensor must hold one axis in \[-2, 2\) for inputs of rank 2, got \[7\]"),
    ("batch_norm", {"X": f32(2, 3), "Scale": f32(3), "Bias": f32(3), "Mean": f32(3),
                    "Variance": f32(3), "MomentumTensor": np.zeros([0], np.float32)},
     r"batch_norm: MomentumTensor must hold one value, got shape \[0\]"),
    ("gather_tree", {"Ids": np.ones((2, 1, 2), np.int64),
                     "Parents": np.full((2, 1, 2), 9, np.int64)},
     r"gather_tree: Parents holds beam indices in \[9, 9\], outside \[0, 2\) \(the beam "
     r"width\)"),
    ("bilinear_interp_v2", {"X": f32(1, 1, 2, 2), "Scale": np.array([-2.0], np.float32)},
     r"the Scale input must hold positive scales, got \[-2.0\]"),
]


@pytest.mark.parametrize("op_type, inputs, message", BAD_VALUES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD_VALUES)])
def test_bad_values_are_refused_by_the_kernel_in_the_users_terms(op_type, inputs, message):
    with pytest.raises(KernelError, match=rf"(?s)block 0, op #0 {op_type} .*\n  {message}"):
        run(op_type, inputs, {})


def test_integer_division_of_good_divisors_still_truncates_toward_zero():
    out, = run("elementwise_div", {"X": i64(7, -7), "Y": i64(2, 2)}, {})
    np.testing.assert_array_equal(out, [3, -3])  # C++'s rounding, as Paddle's int kernels
    out, = run("elementwise_mod", {"X": i64(7, -7), "Y": i64(3, 3)}, {})
    np.testing.assert_array_equal(out, [1, 2])


def test_a_negative_seed_tensor_is_taken_as_its_64_bit_pattern():
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    first = run("random_crop", {"X": x, "Seed": i64(-1)}, {"shape": [3]})
    again = run("random_crop", {"X": x, "Seed": i64(-1)}, {"shape": [3]})
    np.testing.assert_array_equal(first[0], again[0])
    for row in first[0]:  # each row is a window of three consecutive values of its X row
        assert row[1] - row[0] == 1 and row[2] - row[1] == 1 and int(row[0]) % 5 <= 2
    masks = [run("dropout", {"X": f32(4, 8), "Seed": np.array([-3], np.int32)},
                 {"dropout_prob": 0.5})[0] for _ in range(2)]
    np.testing.assert_array_equal(masks[0], masks[1])
    assert set(np.unique(masks[0])) <= {0.0, 1.0}  # downgrade_in_infer: kept values unscaled


def _scale_program():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [2], append_batch_size=False)
        out = pir.layers.scale(x, 2.0)
    return main, out


def test_a_stray_kernel_exception_names_the_op_and_its_input_shapes(monkeypatch):
    kernel = get_op_def("scale").find_kernel(KernelKey(("dense",), np.dtype(np.float32)))

    def failing(attrs, x, *tensor_attrs):  # scale's ScaleTensor slot comes after X
        return np.empty(-1)  # numpy: "negative dimensions are not allowed"

    monkeypatch.setattr(kernel, "fn", failing)
    main, out = _scale_program()
    with pytest.raises(KernelError, match=r"block 0, op #0 scale \(X=x\[2\] -> "
                                          r"Out=scale_0.tmp_0\):\n  ValueError: negative "
                                          r"dimensions are not allowed") as caught:
        pir.Executor().run(main, feed={"x": f32(2)}, fetch_list=[out], scope=pir.Scope())
    assert isinstance(caught.value.__cause__, ValueError)


def test_a_stray_exception_in_a_shape_rule_is_a_shape_inference_error(monkeypatch):
    opdef = get_op_def("scale")

    def tripping(ctx):
        return ctx.attr("scale") // 0  # a rule that did not check its attribute

    monkeypatch.setattr(opdef, "infer_shape_fn", tripping)
    with pytest.raises(ShapeInferenceError, match=r"(?s)scale .*the shape rule of scale failed "
                                                  r"on these inputs and attributes "
                                                  r"\(ZeroDivisionError: float floor division "
                                                  r"by zero\)") as caught:
        _scale_program()
    assert isinstance(caught.value.__cause__, ZeroDivisionError)


# --- outputs of another kind than declared ------------------------------------------------


def _branch_program(prefill: bool = False):
    """y written by a conditional_block; with `prefill` an op writes y before it (else the
    block's output is bound from the scope too: a block that does not run leaves it)."""
    program = pir.Program()
    with pir.program_guard(program, pir.Program()):
        x = pir.layers.data("x", [2], append_batch_size=False)
        y = program.global_block().create_var(name="y", shape=[2], dtype="float32")
        if prefill:
            pir.layers.assign(x, output=y)
        cond = pir.layers.fill_constant([1], "bool", True)
        branch = pir.layers.ConditionalBlock([cond])
        with branch.block():
            pir.layers.assign(x, output=y)
    return program, y


@pytest.fixture
def wrong_writer(monkeypatch):
    """conditional_block's kernel, then (when `state["write"]` is set) a value of another
    kind stored into its first output, as a faulty custom control kernel could."""
    kernel = next(iter(get_op_def("conditional_block").kernels.values()))
    original = kernel.fn
    state = {"write": None}

    def writer(ctx, attrs, *inputs):
        original(ctx, attrs, *inputs)
        if state["write"] is not None:
            ctx.scope.var(ctx.output_names("Out")[0]).value = state["write"]

    monkeypatch.setattr(kernel, "fn", writer)
    return state


def test_a_control_kernel_writing_another_kind_fails_when_its_plan_is_compiled(wrong_writer):
    program, y = _branch_program()
    wrong_writer["write"] = SelectedRows(i64(0), f32(1, 2), height=2)
    with pytest.raises(KernelError, match=r"(?s)block 0, op #1 conditional_block .*the kernel "
                                          r"of conditional_block wrote 'y' as SELECTED_ROWS, "
                                          r"but the program declares it LOD_TENSOR"):
        pir.Executor().run(program, feed={"x": f32(2)}, fetch_list=[y], scope=pir.Scope())
    wrong_writer["write"] = [1.0, 2.0]
    with pytest.raises(KernelError, match=r"wrote 'y' as a list, but the program declares it "
                                          r"LOD_TENSOR"):
        pir.Executor().run(program, feed={"x": f32(2)}, fetch_list=[y], scope=pir.Scope())


def test_a_control_kernel_writing_another_kind_on_a_cached_run_fails_at_the_fetch(
        wrong_writer):
    program, y = _branch_program(prefill=True)
    exe = pir.Executor()
    out, = exe.run(program, feed={"x": f32(2) * 3}, fetch_list=[y], scope=pir.Scope())
    np.testing.assert_array_equal(out, [3, 3])
    wrong_writer["write"] = SelectedRows(i64(0), f32(1, 2), height=2)
    with pytest.raises(KernelError, match=r"(?s)block 0, op #2 conditional_block .*'y' holds "
                                          r"SELECTED_ROWS, but the program declares it "
                                          r"LOD_TENSOR: the op above wrote it so"):
        exe.run(program, feed={"x": f32(2)}, fetch_list=[y], scope=pir.Scope())
    wrong_writer["write"] = np.float64(1.0)  # not an array at all
    with pytest.raises(KernelError, match=r"'y' holds a float64, but the program declares "
                                          r"it LOD_TENSOR"):
        exe.run(program, feed={"x": f32(2)}, fetch_list=[y], scope=pir.Scope())


def test_a_fetched_sparse_variable_declared_sparse_is_fetched(wrong_writer):
    program, y = _branch_program()
    program.global_block().var("y").desc.type = pb.VarDesc.SELECTED_ROWS
    rows = SelectedRows(i64(1), f32(1, 2), height=2)
    wrong_writer["write"] = rows
    out, = pir.Executor().run(program, feed={"x": f32(2)}, fetch_list=[y], scope=pir.Scope())
    assert out is rows or np.array_equal(np.asarray(out), np.asarray(rows))


def test_which_values_are_of_another_kind_than_declared():
    rows = SelectedRows(i64(0), f32(1, 2), height=2)
    lod_tensor, selected_rows = pb.VarDesc.LOD_TENSOR, pb.VarDesc.SELECTED_ROWS
    assert wrong_kind("y", rows, lod_tensor)
    assert not wrong_kind("emb@GRAD", rows, lod_tensor)  # a sparse gradient: storage only
    assert wrong_kind("emb@GRAD", [1.0], lod_tensor)
    assert wrong_kind("y", f32(2), selected_rows)
    assert wrong_kind("y", f32(2), pb.VarDesc.LOD_TENSOR_ARRAY)
    assert not wrong_kind("y", f32(2), lod_tensor)
    assert not wrong_kind("y", rows, selected_rows)
