"""Tensor-making and inspecting ops of Fluid 1.7 (no gradient unless noted):

    shape        Out = Input's shape, int32 [rank]
    size         Out = Input's element count, int64 [1]
    range        Out = [Start, Start + Step, ...) up to End (exclusive), Start's dtype
    linspace     Out = Num points from Start to Stop inclusive
    diag         Out = a square matrix with Diagonal on its diagonal
    eye          Out = [num_rows, num_columns] identity
    isfinite / isinf / isnan  Out = [1] bool: all finite / any inf / any nan
    cumsum       Out = running sum along `axis` (exclusive, reverse); gradient: the reverse
                 running sum of dOut
    argsort      Out = X sorted along `axis`, Indices = the permutation (stable); gradient:
                 dOut put back through Indices
    unique       Out = X's distinct values in order of first appearance, Index = each X
                 element's position in Out (unique_with_counts adds Count)
    label_smooth Out = (1 - epsilon) X + epsilon * (PriorDist, or 1 / K); dX = (1 - eps) dOut
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import to_numpy_dtype
from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.context import same_as_input
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, INTS, NUMERIC, Attr, In, Out
from paddle_ir.ops.simple_op import register_simple

_DTYPE_ATTR = Attr("dtype", "int", 5, "the output DataType (5 = float32)")


def _scalar(x) -> float:
    arr = np.asarray(x).reshape(-1)
    return arr[0]


# -- shape / size ----------------------------------------------------------------------------

register_simple(
    "shape", [In("Input", "any tensor (only its shape is read)")], [Out("Out", "int32 [rank]")],
    [], lambda ctx: ctx.set_output("Out", (len(ctx.input_shape("Input")),), np.int32),
    lambda attrs, x: np.asarray(x.shape, dtype=np.int32), dtypes=ALL_DTYPES, doc=__doc__)

register_simple(
    "size", [In("Input", "any tensor")], [Out("Out", "int64 [1]")], [],
    lambda ctx: ctx.set_output("Out", (1,), np.int64),
    lambda attrs, x: np.asarray([x.size], dtype=np.int64), dtypes=ALL_DTYPES, doc=__doc__)


# -- range / linspace ------------------------------------------------------------------------

def _infer_range(ctx):
    for slot in ("Start", "End", "Step"):
        ctx.enforce(ctx.input_dtype(slot) == ctx.input_dtype("Start"),
                    f"Start, End and Step must share a dtype, got {slot} "
                    f"{ctx.input_dtype(slot)} vs Start {ctx.input_dtype('Start')}")
    ctx.set_output("Out", (-1,), ctx.input_dtype("Start"))


def _range(attrs, start, end, step):
    s, e, st = _scalar(start), _scalar(end), _scalar(step)
    if not all(np.isfinite(v) for v in (s, e, st)):
        raise KernelError(f"range: Start, End and Step must be finite, got {s}, {e}, {st}")
    if st == 0:
        raise KernelError("range: Step must not be 0")
    # Its length comes from the inputs' values, which InferShape cannot know.
    count = max(int(np.ceil((float(e) - float(s)) / float(st))), 0)
    check_allocation("range", (count,), np.asarray(start).dtype,
                     f"its inputs Start={s}, End={e}, Step={st}")
    return np.arange(s, e, st, dtype=np.asarray(start).dtype)


register_simple(
    "range", [In("Start", "[1]"), In("End", "[1]"), In("Step", "[1]")], [Out("Out", "[n]")],
    [], _infer_range, _range, dtypes=NUMERIC, doc=__doc__)


def _infer_linspace(ctx):
    ctx.enforce(ctx.input_dtype("Num") in INTS, "Num must be int32 or int64")
    ctx.set_output("Out", (-1,), ctx.input_dtype("Start"))


def _linspace(attrs, start, stop, num):
    n = int(_scalar(num))
    if n < 1:
        raise KernelError(f"linspace: Num must be >= 1, got {n}")
    # [n] float64 first, then the output: n is a value InferShape cannot know.
    check_allocation("linspace", (n,), np.float64, f"its input Num={n}")
    return np.linspace(_scalar(start), _scalar(stop), n).astype(np.asarray(start).dtype)


register_simple(
    "linspace", [In("Start", "[1]"), In("Stop", "[1]"), In("Num", "int [1]")],
    [Out("Out", "[Num]")], [], _infer_linspace, _linspace, dtypes=FLOATS, doc=__doc__)


# -- diag / eye ------------------------------------------------------------------------------

def _infer_diag(ctx):
    shape = ctx.input_shape("Diagonal")
    ctx.enforce(len(shape) == 1, f"Diagonal must be 1-D, got shape {list(shape)}")
    ctx.set_output("Out", (shape[0], shape[0]), ctx.input_dtype("Diagonal"))


register_simple(
    "diag", [In("Diagonal", "[n]")], [Out("Out", "[n, n]")], [], _infer_diag,
    lambda attrs, d: np.diag(d), dtypes=NUMERIC, doc=__doc__)


def _infer_eye(ctx):
    rows, cols = ctx.attr("num_rows"), ctx.attr("num_columns")
    ctx.enforce(rows >= 0, f"num_rows must be >= 0, got {rows}")
    ctx.enforce(cols >= -1, f"num_columns must be >= 0, or -1 for num_rows, got {cols}")
    ctx.set_output("Out", (rows, rows if cols < 0 else cols), to_numpy_dtype(ctx.attr("dtype")))


def _eye(attrs):
    rows, cols = attrs["num_rows"], attrs["num_columns"]
    return np.eye(rows, rows if cols < 0 else cols, dtype=to_numpy_dtype(attrs["dtype"]))


_eye_op = register_simple(
    "eye", [], [Out("Out", "[num_rows, num_columns]")],
    [Attr("num_rows", "long", 0, "rows"), Attr("num_columns", "long", -1, "-1: num_rows"),
     _DTYPE_ATTR], _infer_eye, _eye, dtypes=NUMERIC, doc=__doc__)
_eye_op.dtype_from = "attr:dtype"


# -- isfinite / isinf / isnan ----------------------------------------------------------------

for _op, _fn, _what in (("isfinite", lambda x: np.isfinite(x).all(), "every element finite"),
                        ("isinf", lambda x: np.isinf(x).any(), "some element +-inf"),
                        ("isnan", lambda x: np.isnan(x).any(), "some element NaN")):
    register_simple(
        _op, [In("X")], [Out("Out", f"[1] bool: {_what}")], [],
        lambda ctx: ctx.set_output("Out", (1,), np.bool_),
        lambda attrs, x, _f=_fn: np.asarray([bool(_f(x))]), dtypes=FLOATS, doc=__doc__)


# -- cumsum ----------------------------------------------------------------------------------

def _cumsum(attrs, x):
    if attrs["flatten"]:
        x = x.reshape(-1)
    axis = attrs["axis"] % max(x.ndim, 1)
    if attrs["reverse"]:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if attrs["exclusive"]:
        out = out - x
    return np.flip(out, axis) if attrs["reverse"] else out


def _cumsum_grad(attrs, x, dout):
    rev = dict(attrs, reverse=not attrs["reverse"], flatten=False)
    g = _cumsum(rev, dout if not attrs["flatten"] else dout.reshape(-1))
    return g.reshape(x.shape)


def _infer_cumsum(ctx):
    shape = ctx.input_shape("X")
    if ctx.attr("flatten"):
        n = int(np.prod(shape)) if all(d >= 0 for d in shape) else -1
        ctx.set_output("Out", (n,), ctx.input_dtype("X"))
        return
    rank, axis = len(shape), ctx.attr("axis")
    ctx.enforce(-rank <= axis < rank, f"axis {axis} is out of range for rank {rank}")
    same_as_input(ctx)


register_simple(
    "cumsum", [In("X")], [Out("Out", "X's shape")],
    [Attr("axis", "int", -1, "the axis to sum along"),
     Attr("flatten", "bool", False, "sum over X flattened to 1-D"),
     Attr("exclusive", "bool", False, "leave out the element itself"),
     Attr("reverse", "bool", False, "sum from the end")],
    _infer_cumsum, _cumsum, backward=_cumsum_grad, wrt=["X"], dtypes=NUMERIC, doc=__doc__)


# -- argsort ---------------------------------------------------------------------------------

def _infer_argsort(ctx):
    rank, axis = len(ctx.input_shape("X")), ctx.attr("axis")
    ctx.enforce(-rank <= axis < rank, f"axis {axis} is out of range for rank {rank}")
    same_as_input(ctx)
    ctx.set_output("Indices", ctx.input_shape("X"), np.int64)


def _argsort(attrs, x):
    axis = attrs["axis"]
    idx = np.argsort(-x if attrs["descending"] else x, axis=axis, kind="stable")
    return np.take_along_axis(x, idx, axis), idx.astype(np.int64)


def _argsort_grad(attrs, x, indices, dout):
    dx = np.zeros_like(dout)
    np.put_along_axis(dx, indices, dout, attrs["axis"])
    return dx


register_simple(
    "argsort", [In("X")], [Out("Out", "X sorted along axis"), Out("Indices", "int64")],
    [Attr("axis", "int", -1, "the axis to sort"),
     Attr("descending", "bool", False, "largest first")],
    _infer_argsort, _argsort, backward=_argsort_grad, wrt=["X"], keep=["Indices"],
    dtypes=NUMERIC, doc=__doc__)


# -- unique / unique_with_counts -------------------------------------------------------------

def _unique_parts(x):
    flat = np.asarray(x).reshape(-1)
    values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True,
                                               return_counts=True)
    order = np.argsort(first, kind="stable")  # first-appearance order, as Paddle
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return values[order], rank[inverse.reshape(-1)], counts[order]


def _infer_unique(ctx, with_counts: bool):
    shape = ctx.input_shape("X")
    ctx.enforce(len(shape) == 1, f"X must be 1-D, got shape {list(shape)}")
    index_dtype = to_numpy_dtype(ctx.attr("dtype"))
    ctx.enforce(index_dtype in INTS, f"dtype must be int32 or int64, got {index_dtype}")
    ctx.set_output("Out", (-1,), ctx.input_dtype("X"))
    ctx.set_output("Index", shape, index_dtype)
    if with_counts:
        ctx.set_output("Count", (-1,), index_dtype)


_INDEX_DTYPE = Attr("dtype", "int", 2, "the DataType of Index (and Count): 2 int32, 3 int64")

register_simple(
    "unique", [In("X", "1-D")], [Out("Out", "distinct values"), Out("Index", "positions")],
    [_INDEX_DTYPE], lambda ctx: _infer_unique(ctx, False),
    lambda attrs, x: (lambda v, i, c: (v, i.astype(to_numpy_dtype(attrs["dtype"]))))(
        *_unique_parts(x)), dtypes=NUMERIC, doc=__doc__)

register_simple(
    "unique_with_counts", [In("X", "1-D")],
    [Out("Out", "distinct values"), Out("Index", "positions"), Out("Count", "occurrences")],
    [_INDEX_DTYPE], lambda ctx: _infer_unique(ctx, True),
    lambda attrs, x: (lambda v, i, c: (v, i.astype(to_numpy_dtype(attrs["dtype"])),
                                       c.astype(to_numpy_dtype(attrs["dtype"]))))(
        *_unique_parts(x)), dtypes=NUMERIC, doc=__doc__)


# -- label_smooth ----------------------------------------------------------------------------

def _infer_label_smooth(ctx):
    eps = ctx.attr("epsilon")
    ctx.enforce(0.0 <= eps <= 1.0, f"epsilon must be in [0, 1] (the mass moved to the prior), "
                                   f"got {eps}")
    if ctx.has_input("PriorDist"):
        prior, x = ctx.input_shape("PriorDist"), ctx.input_shape("X")
        ctx.enforce(prior[-1] < 0 or x[-1] < 0 or prior[-1] == x[-1],
                    f"PriorDist must have X's last dim {x[-1]}, got shape {list(prior)}")
    same_as_input(ctx)


def _label_smooth(attrs, x, prior):
    eps = attrs["epsilon"]
    mix = eps / x.shape[-1] if prior is None else eps * prior.reshape(-1)
    return ((1 - eps) * x + mix).astype(x.dtype)


register_simple(
    "label_smooth", [In("X", "[..., K] one-hot labels"),
                     In("PriorDist", "[K] or [1, K]", dispensable=True)],
    [Out("Out", "X's shape")], [Attr("epsilon", "float", 0.0, "the smoothing weight")],
    _infer_label_smooth, _label_smooth,
    backward=lambda attrs, x, prior, dout: ((1 - attrs["epsilon"]) * dout).astype(dout.dtype),
    wrt=["X"], doc=__doc__)


# -- assign_value ----------------------------------------------------------------------------

_VALUE_ATTRS = {np.dtype(np.float32): "fp32_values", np.dtype(np.int32): "int32_values",
                np.dtype(np.int64): "int64_values", np.dtype(np.bool_): "bool_values"}


def _infer_assign_value(ctx):
    dtype = to_numpy_dtype(ctx.attr("dtype"))
    ctx.enforce(dtype in _VALUE_ATTRS, f"dtype must be float32, int32, int64 or bool, got "
                f"{dtype}")
    shape = list(ctx.attr("shape"))
    values = ctx.attr(_VALUE_ATTRS[dtype])
    ctx.enforce(len(values) == int(np.prod(shape)),
                f"{_VALUE_ATTRS[dtype]} holds {len(values)} values for shape {shape}")
    ctx.set_output("Out", shape, dtype)


def _assign_value(attrs):
    dtype = to_numpy_dtype(attrs["dtype"])
    return np.asarray(attrs[_VALUE_ATTRS[dtype]], dtype=dtype).reshape(attrs["shape"])


_assign_value_op = register_simple(
    "assign_value", [], [Out("Out", "the constant")],
    [Attr("shape", "ints", [], "the shape"), _DTYPE_ATTR,
     Attr("fp32_values", "floats", [], "float32 values, row-major"),
     Attr("int32_values", "ints", [], "int32 values"),
     Attr("int64_values", "longs", [], "int64 values"),
     Attr("bool_values", "bools", [], "bool values")],
    _infer_assign_value, _assign_value, dtypes=(np.dtype(np.bool_),) + NUMERIC,
    doc="Out = the constant given by shape, dtype and the values attribute of that dtype.")
_assign_value_op.dtype_from = "attr:dtype"
