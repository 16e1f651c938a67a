"""The run-time memory budget over every size that comes from feeds or attributes (issue 16,
item 5): the executor's check of inferred output sizes, the kernels whose sizes come from
values, cached plans, and densifying sparse values.

Every program here asks for tens of MiB at most and runs under a budget of 1 MiB, so a
check that fails lets numpy allocate a harmless amount and the test fails on the missing
error, never by exhausting the machine.
"""

import re

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.cli.values import describe_value
from paddle_ir.core import limits
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.errors import ResourceLimitError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.selected_rows import SelectedRows
from tests.op_test import build_one_op

BUDGET = 1 << 20


def f32(*shape):
    return np.ones(shape, np.float32)


def run_one(op_type, inputs, attrs, budget=BUDGET, exe=None):
    program, feed, outs = build_one_op(op_type, inputs, attrs)
    fetch = [n for names in outs.values() for n in names]
    exe = exe or pir.Executor(memory_budget=budget)
    return exe.run(program, feed=feed, fetch_list=fetch, scope=pir.Scope()), outs


# (op, inputs, attrs, the output slot, the shape asked for, the source the message names)
INFERRED = [
    ("expand", {"X": f32(2, 3)}, {"expand_times": [1000, 1000]}, "Out", [2000, 3000],
     r"attributes expand_times=\[1000, 1000\] and inputs X=x\[2, 3\]"),
    ("one_hot", {"X": np.array([[1], [2]], np.int64)}, {"depth": 10**6}, "Out", [2, 10**6],
     r"attributes depth=1000000 and inputs X=x\[2, 1\] holding \[1, 2\]"),
    ("pad", {"X": f32(2, 3)}, {"paddings": [0, 2000, 0, 2000]}, "Out", [2002, 2003],
     r"attributes paddings=\[0, 2000, 0, 2000\]"),
    ("bilinear_interp", {"X": f32(1, 1, 2, 2)}, {"out_h": 2000, "out_w": 2000}, "Out",
     [1, 1, 2000, 2000], "attributes out_h=2000, out_w=2000"),
    ("nearest_interp_v2", {"X": f32(1, 1, 2, 2)}, {"scale": [1000.0, 1000.0]}, "Out",
     [1, 1, 2000, 2000], r"attributes scale=\[1000.0, 1000.0\]"),
    ("conv2d_transpose", {"Input": f32(1, 1, 2, 2), "Filter": f32(1, 1, 1, 1)},
     {"output_size": [2000, 2000], "strides": [1000, 1000]}, "Output", [1, 1, 2000, 2000],
     r"output_size=\[2000, 2000\]"),
    ("uniform_random_batch_size_like", {"Input": f32(2, 3)}, {"shape": [-1, 1000, 1000]},
     "Out", [2, 1000, 1000], r"shape=\[-1, 1000, 1000\] and inputs Input=input\[2, 3\]"),
    ("eye", {}, {"num_rows": 2000}, "Out", [2000, 2000], "attributes num_rows=2000"),
    ("pool2d", {"X": f32(1, 1, 2, 2)}, {"ksize": [1, 1], "paddings": [1000, 1000]}, "Out",
     [1, 1, 2002, 2002], r"paddings=\[1000, 1000\]"),
    ("sequence_enumerate", {"X": LoDTensor(np.array([[1], [2]], np.int64), [[0, 2]])},
     {"win_size": 10**6}, "Out", [2, 10**6], "win_size=1000000"),
    ("affine_grid", {"Theta": f32(1, 2, 3)}, {"output_shape": [1, 1, 2000, 2000]}, "Output",
     [1, 2000, 2000, 2], r"output_shape=\[1, 1, 2000, 2000\]"),
]


@pytest.mark.parametrize("op_type, inputs, attrs, slot, shape, source", INFERRED,
                         ids=[c[0] for c in INFERRED])
def test_an_inferred_output_beyond_the_budget_is_refused_before_its_kernel_runs(
        op_type, inputs, attrs, slot, shape, source):
    program, feed, outs = build_one_op(op_type, inputs, attrs)
    name = outs[slot][0]
    pattern = (rf"(?s)block 0, op #0 {op_type} .*{op_type} would allocate [0-9.]+ MiB for "
               rf"'{re.escape(name)}' \(shape {re.escape(str(shape))}, \w+\) from .*{source}"
               r".*more than the memory budget of 1.0 MiB")
    with pytest.raises(ResourceLimitError, match=pattern):
        pir.Executor(memory_budget=BUDGET).run(program, feed=feed, fetch_list=outs[slot],
                                               scope=pir.Scope())
    # Under the default budget the same program runs.
    out, = pir.Executor().run(program, feed=feed, fetch_list=outs[slot], scope=pir.Scope())
    assert list(out.shape) == shape


def _expand_program():
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = pir.layers.data("x", [3], dtype="float32")  # [-1, 3]
        out = pir.layers.expand(x, [1, 1000])
    return main, out


def test_a_cached_plan_rechecks_sizes_when_the_feed_shape_changes():
    main, out = _expand_program()
    exe = pir.Executor(memory_budget=BUDGET)
    scope = pir.Scope()
    small, = exe.run(main, feed={"x": f32(2, 3)}, fetch_list=[out], scope=scope)  # 24 KB
    np.testing.assert_array_equal(small, np.ones((2, 3000), np.float32))
    # The same feed signature (rank, dtype), a batch 100 times larger: 2.3 MiB.
    with pytest.raises(ResourceLimitError, match=r"expand would allocate 2.3 MiB for "
                                                 r"'expand_0.tmp_0' \(shape \[200, 3000\]"):
        exe.run(main, feed={"x": f32(200, 3)}, fetch_list=[out], scope=scope)
    again, = exe.run(main, feed={"x": f32(2, 3)}, fetch_list=[out], scope=scope)
    np.testing.assert_array_equal(again, small)


def test_a_cached_plan_rechecks_sizes_when_the_budget_changes():
    main, out = _expand_program()
    exe = pir.Executor()
    scope = pir.Scope()
    exe.run(main, feed={"x": f32(100, 3)}, fetch_list=[out], scope=scope)  # 1.1 MiB
    exe.options.memory_budget = BUDGET  # the same shapes, verified under the old budget
    with pytest.raises(ResourceLimitError, match=r"expand would allocate 1.1 MiB"):
        exe.run(main, feed={"x": f32(100, 3)}, fetch_list=[out], scope=scope)


# Sizes read from values or a LoD: checked by the kernel on every run. (op, small inputs,
# large inputs, attrs, the message)
BY_VALUE = [
    ("range", {"Start": np.array([0], np.int64), "End": np.array([10], np.int64),
               "Step": np.array([1], np.int64)},
     {"End": np.array([10**6], np.int64)}, {},
     r"range would allocate 7.6 MiB \(shape \[1000000\], int64\) from its inputs Start=0, "
     r"End=1000000, Step=1"),
    ("linspace", {"Start": np.array([0.0], np.float32), "Stop": np.array([1.0], np.float32),
                  "Num": np.array([5], np.int32)},
     {"Num": np.array([10**6], np.int32)}, {},
     r"linspace would allocate 7.6 MiB \(shape \[1000000\], float64\) from its input "
     r"Num=1000000"),
    ("bilinear_interp", {"X": f32(1, 1, 2, 2), "OutSize": np.array([4, 4], np.int32)},
     {"OutSize": np.array([1000, 1000], np.int32)}, {},
     r"bilinear_interp would allocate 3.8 MiB \(shape \[1, 1, 1000, 1000\], float32\) from "
     r"out_h/out_w, the scale, OutSize or SizeTensor"),
    ("affine_grid", {"Theta": f32(1, 2, 3), "OutputShape": np.array([1, 1, 4, 4], np.int32)},
     {"OutputShape": np.array([1, 1, 1000, 1000], np.int32)}, {},
     r"affine_grid would allocate 22.9 MiB \(shape \[1000, 1000, 3\], float64\) from "
     r"output_shape or OutputShape"),
    ("sequence_pad", {"X": LoDTensor(f32(3, 2), [[0, 1, 3]]),
                      "PadValue": np.zeros([1], np.float32)},
     {"X": LoDTensor(f32(2001, 2), [list(range(1000)) + [2001]])}, {},
     r"sequence_pad would allocate 7.6 MiB \(shape \[1000, 1002, 2\], float32\) from "
     r"padded_length=-1 and X's LoD \(1000 sequences, the longest 1002\)"),
    ("sequence_expand", {"X": LoDTensor(f32(2, 1000), [[0, 1, 2]]),
                         "Y": LoDTensor(f32(2, 1), [[0, 1, 2]])},
     {"Y": LoDTensor(f32(1000, 1), [[0, 500, 1000]])}, {},
     r"sequence_expand would allocate 3.8 MiB \(shape \[1000, 1000\], float32\) from the "
     r"repeat counts in Y's LoD"),
    ("sequence_expand_as", {"X": f32(2, 1000), "Y": LoDTensor(f32(2, 1), [[0, 1, 2]])},
     {"Y": LoDTensor(f32(1000, 1), [[0, 500, 1000]])}, {},
     r"sequence_expand_as would allocate 3.8 MiB \(shape \[1000, 1000\], float32\) from the "
     r"sequence lengths in Y's LoD"),
    # shapes, repeats and paddings given as tensors (issue 27 item 11)
    ("expand_v2", {"X": f32(1, 1000), "Shape": np.array([2, 1000], np.int32)},
     {"Shape": np.array([1000, 1000], np.int32)}, {},
     r"expand_v2 would allocate 3.8 MiB \(shape \[1000, 1000\], float32\) from its Shape "
     r"input's values"),
    ("tile", {"X": f32(1, 1000), "RepeatTimes": np.array([2, 1], np.int32)},
     {"RepeatTimes": np.array([1000, 1], np.int32)}, {},
     r"tile would allocate 3.8 MiB \(shape \[1000, 1000\], float32\) from its RepeatTimes "
     r"values"),
    ("pad3d", {"X": f32(1, 1, 1, 1, 1000), "Paddings": np.zeros(6, np.int32)},
     {"Paddings": np.array([0, 0, 999, 0, 0, 0], np.int32)}, {},
     r"pad3d would allocate 3.8 MiB \(shape \[1, 1, 1, 1000, 1000\], float32\) from its "
     r"Paddings values"),
    ("repeat_interleave", {"X": f32(2, 1000), "RepeatsTensor": np.array([1, 1], np.int64)},
     {"RepeatsTensor": np.array([500, 500], np.int64)}, {"dim": 0},
     r"repeat_interleave would allocate 3.8 MiB \(shape \[1000, 1000\], float32\) from its "
     r"RepeatsTensor values"),
]


@pytest.mark.parametrize("op_type, small, large, attrs, message", BY_VALUE,
                         ids=[c[0] for c in BY_VALUE])
def test_a_size_read_from_values_is_checked_on_every_run(op_type, small, large, attrs,
                                                         message):
    program, feed, outs = build_one_op(op_type, small, attrs, batch_unknown=True)
    fetch = [n for names in outs.values() for n in names]
    exe = pir.Executor(memory_budget=BUDGET)
    exe.run(program, feed=feed, fetch_list=fetch, scope=pir.Scope())  # compiles the plan
    big_feed = dict(feed)
    for slot, value in large.items():
        big_feed[slot.lower()] = value
    with pytest.raises(ResourceLimitError, match=rf"(?s)block 0, op #0 {op_type} .*{message}"):
        exe.run(program, feed=big_feed, fetch_list=fetch, scope=pir.Scope())
    # A fresh plan refuses it too.
    with pytest.raises(ResourceLimitError, match=message):
        pir.Executor(memory_budget=BUDGET).run(program, feed=big_feed, fetch_list=fetch,
                                               scope=pir.Scope())


def test_padded_length_and_im2sequence_paddings_are_checked_by_their_kernels():
    with pytest.raises(ResourceLimitError, match=r"sequence_pad would allocate 22.9 MiB "
                                                 r"\(shape \[2, 1000000, 3\], float32\) from "
                                                 r"padded_length=1000000"):
        run_one("sequence_pad", {"X": LoDTensor(f32(2, 3), [[0, 1, 2]]),
                                 "PadValue": np.zeros([1], np.float32)},
                {"padded_length": 10**6})
    with pytest.raises(ResourceLimitError, match=r"im2sequence would allocate .* from its "
                                                 r"kernels, strides and paddings"):
        run_one("im2sequence", {"X": f32(1, 1, 2, 2)},
                {"kernels": [1, 1], "paddings": [1000, 1000, 1000, 1000]})


def test_densifying_a_sparse_value_is_held_to_the_budget():
    rows = SelectedRows(np.array([0, 5], np.int64), f32(2, 64), height=10**5)  # 24 MiB dense
    csr = CSRTensor(np.ones(2, np.float32), np.array([0, 1]), np.array([0, 1, 2]), (2, 10**7))
    with limits.budget(BUDGET):
        with pytest.raises(ResourceLimitError, match=r"densifying a SelectedRows would "
                                                     r"allocate 24.4 MiB .* its height 100000"):
            np.asarray(rows)
        with pytest.raises(ResourceLimitError, match=r"densifying a CSRTensor would allocate "
                                                     r"76.3 MiB .*\(2 stored values\)"):
            csr.to_dense()
        # The CLI's preview shows the stored rows and entries, never the dense form.
        text = describe_value("g", rows)
        assert "height=100000  rows=[0, 5]" in text and "shape=[100000, 64]" in text
        assert "(0, 0)=1 (1, 1)=1" in describe_value("c", csr)
    dense = rows.to_dense()  # the default budget
    assert dense.shape == (10**5, 64) and dense[5].sum() == 64 and dense[1].sum() == 0


def test_the_budget_message_sizes_in_readable_units():
    assert limits.format_bytes(512) == "512 bytes"
    assert limits.format_bytes(3 * 2**10) == "3.0 KiB"
    assert limits.format_bytes(int(2.5 * 2**20)) == "2.5 MiB"
    assert limits.format_bytes(4 * 2**40) == "4096.0 GiB"


def test_beam_search_decode_checks_hypotheses_times_steps():
    main, feed = pir.Program(), {}
    steps = 2
    with pir.program_guard(main, pir.Program()):
        arrays = [pir.layers.create_array("int64"), pir.layers.create_array("float32")]
        for k in range(steps):
            index = pir.layers.fill_constant([1], "int64", k)
            for array, dtype, kind in ((arrays[0], "int64", "i"), (arrays[1], "float32", "s")):
                x = pir.layers.data(f"{kind}{k}", [-1, 1], dtype=dtype, lod_level=2)
                pir.layers.array_write(x, array=array, i=index)
                # Two sources with one prefix of one row each, at every step.
                feed[f"{kind}{k}"] = pir.create_lod_tensor(np.full((2, 1), k + 2, dtype),
                                                           [[1, 1], [1, 1]])
        ids, scores = pir.layers.beam_search_decode(arrays[0], arrays[1], beam_size=2,
                                                    end_id=1)
    # 2 hypotheses x 2 steps of int64: 32 bytes, over a 16-byte budget.
    with pytest.raises(ResourceLimitError, match=r"(?s)beam_search_decode .*beam_search_decode "
                                                 r"would allocate 32 bytes \(shape \[2, 2\], "
                                                 r"int64\) from 2 hypotheses over 2 steps"):
        pir.Executor(memory_budget=16).run(main, feed=feed, fetch_list=[ids, scores],
                                           scope=pir.Scope())
    got, _ = pir.Executor().run(main, feed=feed, fetch_list=[ids, scores], scope=pir.Scope(),
                                return_numpy=False)
    np.testing.assert_array_equal(np.asarray(got).reshape(-1), [2, 3, 2, 3])


def _windows_conv(x, w):
    """conv2d, stride 1, no padding, written with numpy's sliding windows."""
    kh, kw = w.shape[2:]
    view = np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (kh, kw), axis=(2, 3))
    return np.einsum("nchwij,ocij->nohw", view, w.astype(np.float64))


def test_a_convolution_whose_im2col_passes_the_budget_runs_in_blocks_within_it():
    """The im2col of a 9x9 filter is 81 times its input: 2.5 MiB here, 2.5 times the
    budget. It is made a block of output rows at a time, within a quarter of the budget,
    and the forward and both gradients still give the convolution's values."""
    import tracemalloc

    from paddle_ir.ops.nn.conv import conv2d_grad_kernel, conv2d_kernel
    rng = np.random.RandomState(3)
    x = rng.randn(1, 8, 40, 40).astype(np.float32)  # 50 KiB
    w = rng.randn(2, 8, 9, 9).astype(np.float32)
    attrs = {"strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT",
             "groups": 1, "dilations": [1, 1], "data_format": "NCHW"}
    dout = rng.randn(1, 2, 32, 32).astype(np.float32)
    with limits.budget(BUDGET):
        tracemalloc.start()
        try:
            out = conv2d_kernel(attrs, x, w)
            dx, dw = conv2d_grad_kernel(attrs, x, w, dout)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < BUDGET, f"peak {peak} bytes"
    np.testing.assert_allclose(out, _windows_conv(x, w), rtol=1e-4, atol=1e-4)
    # The gradients as the adjoints: <dout, conv(x', w)> = <dx, x'> for every x' (and
    # likewise for w), checked on random directions.
    x2, w2 = rng.randn(*x.shape), rng.randn(*w.shape)
    np.testing.assert_allclose((dout * _windows_conv(x2, w)).sum(), (dx * x2).sum(), rtol=1e-4)
    np.testing.assert_allclose((dout * _windows_conv(x, w2)).sum(), (dw * w2).sum(), rtol=1e-4)
    # And through the executor, under the same budget.
    (got,), _ = run_one("conv2d", {"Input": x, "Filter": w}, {})
    np.testing.assert_allclose(got, _windows_conv(x, w), rtol=1e-4, atol=1e-4)


# Kernel working arrays that cannot be split: each refused, naming its op. (op, inputs,
# attrs, the message)
TEMPORARIES = [
    # one output row's im2col alone: 33 windows x 64 channels x 40 x 40 taps
    ("conv2d", {"Input": f32(1, 64, 40, 72), "Filter": f32(1, 64, 40, 40)}, {},
     r"the convolution's im2col of one block of output rows would need 12.9 MiB "
     r"\(shape \[33, 102400\], float32\)"),
    ("conv3d", {"Input": f32(1, 8, 12, 12, 12), "Filter": f32(1, 8, 5, 5, 5)}, {},
     r"the 3-D windows' patches would need 2.0 MiB \(shape \[1, 8, 125, 512\], float32\)"),
    ("pool3d", {"X": f32(1, 8, 12, 12, 12)}, {"ksize": [5, 5, 5]},
     r"the 3-D windows' patches would need 2.0 MiB \(shape \[1, 8, 125, 512\], float32\)"),
    ("max_pool2d_with_index", {"X": f32(1, 8, 64, 64)}, {"ksize": [16, 16], "strides": [4, 4]},
     r"the pooling windows' candidates would need 1.3 MiB \(shape \[1, 8, 13, 13, 256\], "
     r"float32\)"),
    # 4 examples x 2001 sampled classes x 64 dims; the sampled logits ([4, 2001]) fit
    ("nce", {"Input": f32(4, 64), "Label": np.zeros((4, 1), np.int64),
             "Weight": f32(10, 64)}, {"num_total_classes": 10, "num_neg_samples": 2000},
     r"the weight rows of the sampled classes would need 2.0 MiB \(shape \[4, 2001, 64\], "
     r"float32\)"),
    ("sequence_conv", {"X": LoDTensor(f32(1000, 16), [[0, 1000]]), "Filter": f32(16 * 32, 2)},
     {"contextLength": 32, "contextStart": -16},
     r"the context windows would need 2.0 MiB \(shape \[1000, 512\], float32\)"),
]


@pytest.mark.parametrize("op_type, inputs, attrs, message", TEMPORARIES,
                         ids=[c[0] for c in TEMPORARIES])
def test_a_kernel_working_array_beyond_the_budget_is_refused_naming_its_op(op_type, inputs,
                                                                           attrs, message):
    with pytest.raises(ResourceLimitError, match=rf"(?s)op #0 {op_type}\b.*{message}"):
        run_one(op_type, inputs, attrs)
