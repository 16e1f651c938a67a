"""Ops that make a tensor from attributes or from other tensors' shapes (python/paddle/
tensor/creation.py), no gradient unless noted:

    range        Out = [Start, Start + Step, ...) up to End (exclusive), Start's dtype
    linspace     Out = Num points from Start to Stop inclusive
    diag         Out = a square matrix with Diagonal on its diagonal
    eye          Out = [num_rows, num_columns] identity
    assign_value Out = the values listed in the attribute of its dtype, shaped `shape`
    tril_triu    Out = X's last two dims with the entries above (lower) or below (upper)
                 diagonal `diagonal` zeroed;  dX = dOut with the same mask
    meshgrid     Out[k] = X[k] broadcast to [len(X[0]), ..., len(X[n-1])] along dim k (ij)
                 dX[k] = dOut[k] summed over every dim but k
    fill_zeros_like  Out = zeros shaped and typed like X
    fill_zeros_like2 Out = zeros shaped like X, of the DataType `dtype` (Fluid 1.6+'s
                     zeros_like in a while loop's gradient)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import from_numpy_dtype, to_numpy_dtype
from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import ALL_DTYPES, FLOATS, INTS, NUMERIC, Attr, In, Out, register_op
from paddle_ir.ops.simple_op import register_simple

_DTYPE_ATTR = Attr("dtype", "int", 5, "the output DataType (5 = float32)")


def _scalar(x) -> float:
    arr = np.asarray(x).reshape(-1)
    return arr[0]


# -- range / linspace ------------------------------------------------------------------------

def _infer_range(ctx):
    for slot in ("Start", "End", "Step"):
        ctx.enforce(ctx.input_dtype(slot) == ctx.input_dtype("Start"),
                    lambda: f"Start, End and Step must share a dtype, got {slot} "
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


def _linspace_dtype(get, start_dtype) -> np.dtype:
    code = get("dtype")
    return np.dtype(start_dtype) if code < 0 else to_numpy_dtype(code)


def _infer_linspace(ctx):
    ctx.enforce(ctx.input_dtype("Num") in INTS, "Num must be int32 or int64")
    out = _linspace_dtype(ctx.attr, ctx.input_dtype("Start"))
    ctx.enforce(out in NUMERIC,
                lambda: f"dtype must be float32, float64, int32 or int64, got {out}")
    ctx.set_output("Out", (-1,), out)


def _linspace(attrs, start, stop, num):
    n = int(_scalar(num))
    if n < 1:
        raise KernelError(f"linspace: Num must be >= 1, got {n}")
    out = _linspace_dtype(attrs.__getitem__, np.asarray(start).dtype)
    # [n] float64 first, then the output: n is a value InferShape cannot know.
    check_allocation("linspace", (n,), np.float64, f"its input Num={n}")
    # Paddle's kernel: Start and Stop in the output dtype, the step in double, the first
    # half counted up from Start and the rest down from Stop, each cast (truncated for
    # integers) to the output dtype.
    first, last = (float(np.asarray(_scalar(v)).astype(out)) for v in (start, stop))
    if n == 1:
        return np.array([first], dtype=out)
    step = (last - first) / (n - 1)
    i = np.arange(n, dtype=np.float64)
    points = np.where(i < n // 2, first + step * i, last - step * (n - 1 - i))
    return points.astype(out)


register_simple(
    "linspace", [In("Start", "[1]"), In("Stop", "[1]"), In("Num", "int [1]")],
    [Out("Out", "[Num]")],
    [Attr("dtype", "int", -1, "the output DataType (Paddle's; -1, paddle-ir's default: Start's)")],
    _infer_linspace, _linspace, dtypes=NUMERIC, doc=__doc__)


# -- diag / eye ------------------------------------------------------------------------------

def _infer_diag(ctx):
    shape = ctx.input_shape("Diagonal")
    ctx.enforce(len(shape) == 1, lambda: f"Diagonal must be 1-D, got shape {list(shape)}")
    ctx.set_output("Out", (shape[0], shape[0]), ctx.input_dtype("Diagonal"))


register_simple(
    "diag", [In("Diagonal", "[n]")], [Out("Out", "[n, n]")], [], _infer_diag,
    lambda attrs, d: np.diag(d), dtypes=NUMERIC, doc=__doc__)


def _infer_eye(ctx):
    rows, cols = ctx.attr("num_rows"), ctx.attr("num_columns")
    ctx.enforce(rows >= 0, lambda: f"num_rows must be >= 0, got {rows}")
    ctx.enforce(cols >= -1, lambda: f"num_columns must be >= 0, or -1 for num_rows, got {cols}")
    ctx.set_output("Out", (rows, rows if cols < 0 else cols), to_numpy_dtype(ctx.attr("dtype")))


def _eye(attrs):
    rows, cols = attrs["num_rows"], attrs["num_columns"]
    return np.eye(rows, rows if cols < 0 else cols, dtype=to_numpy_dtype(attrs["dtype"]))


_eye_op = register_simple(
    "eye", [], [Out("Out", "[num_rows, num_columns]")],
    [Attr("num_rows", "long", 0, "rows"), Attr("num_columns", "long", -1, "-1: num_rows"),
     _DTYPE_ATTR], _infer_eye, _eye, dtypes=NUMERIC, doc=__doc__)
_eye_op.dtype_from = "attr:dtype"


# -- assign_value ----------------------------------------------------------------------------

_VALUE_ATTRS = {np.dtype(np.float32): "fp32_values", np.dtype(np.int32): "int32_values",
                np.dtype(np.int64): "int64_values", np.dtype(np.bool_): "bool_values"}


def assign_value_attrs(values: np.ndarray) -> dict | None:
    """assign_value's attributes holding `values` (float32, int32, int64 or bool; None for
    another dtype). Bools are written as the ints 0 and 1: Paddle declares bool_values as
    std::vector<int> (assign_value_op.cc, set_value_op.cc) and refuses BOOLEANS there."""
    field = _VALUE_ATTRS.get(values.dtype)
    if field is None:
        return None
    flat = values.reshape(-1)
    return {"shape": list(values.shape), "dtype": from_numpy_dtype(values.dtype),
            field: (flat.astype(np.int32) if field == "bool_values" else flat).tolist()}


# Paddle 2.5+ also assigns these, given in `values` only
_VALUES_ONLY = (np.dtype(np.float64), np.dtype(np.int8))


def _values_attr(get, dtype) -> str:
    """The attribute holding the values: the one of the dtype (fluid 1.x to Paddle 2.4),
    else `values` (Paddle 2.5+ writes every dtype's values there, as SCALARS)."""
    typed = _VALUE_ATTRS.get(dtype)
    return typed if typed and (len(get(typed)) or not len(get("values"))) else "values"


def _infer_assign_value(ctx):
    dtype = to_numpy_dtype(ctx.attr("dtype"))
    ctx.enforce(dtype in _VALUE_ATTRS or dtype in _VALUES_ONLY,
                lambda: f"dtype must be float32, float64, int8, int32, int64 or bool, got {dtype}")
    shape = list(ctx.attr("shape"))
    name = _values_attr(ctx.attr, dtype)
    values = ctx.attr(name)
    ctx.enforce(len(values) == int(np.prod(shape)),
                lambda: f"{name} holds {len(values)} values for shape {shape}")
    ctx.set_output("Out", shape, dtype)


def _assign_value(attrs):
    dtype = to_numpy_dtype(attrs["dtype"])
    values = attrs[_values_attr(attrs.__getitem__, dtype)]
    return np.asarray(values, dtype=dtype).reshape(attrs["shape"])


_assign_value_op = register_simple(
    "assign_value", [], [Out("Out", "the constant")],
    [Attr("shape", "ints", [], "the shape"), _DTYPE_ATTR,
     Attr("fp32_values", "floats", [], "float32 values, row-major"),
     Attr("int32_values", "ints", [], "int32 values"),
     Attr("int64_values", "longs", [], "int64 values"),
     Attr("bool_values", "ints", [], "bool values as 0 and 1 (Paddle's vector<int>)"),
     Attr("values", "float64s", [], "the values in any dtype (Paddle 2.5+ stores SCALARS)")],
    _infer_assign_value, _assign_value, dtypes=(np.dtype(np.bool_), np.dtype(np.int8)) + NUMERIC,
    doc="Out = the constant given by shape, dtype and the values attribute of that dtype.")
_assign_value_op.dtype_from = "attr:dtype"


# -- tril_triu -------------------------------------------------------------------------------

tril_triu = register_op(
    "tril_triu",
    inputs=[In("X", "at least 2-D")],
    outputs=[Out("Out", "X with one triangle of its last two dims zeroed")],
    attrs=[Attr("diagonal", "int", 0, "the diagonal kept last (0 main, > 0 above)"),
           Attr("lower", "bool", False, "keep the lower triangle (tril), else the upper")],
    doc=__doc__,
)


@tril_triu.infer_shape
def _(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) >= 2, lambda: f"X must be at least 2-D, got {shape_str(x)}")
    ctx.set_output("Out", x, ctx.input_dtype("X"))


def _triangle(x: np.ndarray, attrs) -> np.ndarray:
    fn = np.tril if attrs["lower"] else np.triu
    return fn(x, k=attrs["diagonal"])


@tril_triu.kernel(dtypes=ALL_DTYPES)
def tril_triu_kernel(attrs, x):
    return _triangle(x, attrs)


@tril_triu.grad_maker
def _(g):
    return [g.grad_op("tril_triu_grad", inputs={"Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")},
                      attrs={"diagonal": g.attr("diagonal"), "lower": g.attr("lower")})]


tril_triu_grad = register_op(
    "tril_triu_grad",
    inputs=[In("Out@GRAD")],
    outputs=[Out("X@GRAD", dispensable=True)],
    attrs=[Attr("diagonal", "int", 0), Attr("lower", "bool", False)],
    doc="dX = dOut with the same triangle zeroed.",
)


@tril_triu_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("Out@GRAD"), ctx.input_dtype("Out@GRAD"))


@tril_triu_grad.kernel(dtypes=FLOATS)
def tril_triu_grad_kernel(attrs, dout):
    return _triangle(dout, attrs)


# -- meshgrid --------------------------------------------------------------------------------

meshgrid = register_op(
    "meshgrid",
    inputs=[In("X", "1-D tensors (a 0-D one counts as length 1)", duplicable=True)],
    outputs=[Out("Out", "one grid per input", duplicable=True)],
    doc=__doc__,
)


@meshgrid.infer_shape
def _(ctx):
    shapes = ctx.input_shapes("X")
    for s in shapes:
        ctx.enforce(len(s) <= 1, lambda: f"every X must be 1-D, got {shape_str(s)}")
    grid = [s[0] if s else 1 for s in shapes]
    ctx.enforce(len(ctx.output_names("Out")) == len(shapes),
                lambda: f"meshgrid needs one Out per X ({len(shapes)}), got "
                f"{len(ctx.output_names('Out'))}")
    for k in range(len(shapes)):
        ctx.set_output("Out", grid, ctx.input_dtype("X", k), i=k)


@meshgrid.kernel(dtypes=ALL_DTYPES)
def meshgrid_kernel(attrs, xs):
    return [np.ascontiguousarray(g) for g in np.meshgrid(*[x.reshape(-1) for x in xs],
                                                          indexing="ij")]


@meshgrid.grad_maker
def _(g):
    return [g.grad_op("meshgrid_grad", inputs={"X": g.input("X"),
                                               "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


meshgrid_grad = register_op(
    "meshgrid_grad",
    inputs=[In("X", duplicable=True, no_need_buffer=True), In("Out@GRAD", duplicable=True)],
    outputs=[Out("X@GRAD", duplicable=True, dispensable=True)],
    key_inputs=["Out@GRAD"],
    doc="dX[k] = dOut[k] summed over every dim but k.",
)


@meshgrid_grad.infer_shape
def _(ctx):
    for k, name in enumerate(ctx.output_names("X@GRAD")):
        if name:
            ctx.set_output("X@GRAD", ctx.input_shape("X", k), ctx.input_dtype("X", k), i=k)


@meshgrid_grad.kernel(dtypes=FLOATS)
def meshgrid_grad_kernel(attrs, xs, douts):
    n = len(douts)
    return [d.sum(axis=tuple(j for j in range(n) if j != k)).reshape(x.shape).astype(d.dtype)
            for k, (x, d) in enumerate(zip(xs, douts, strict=True))]


# -- fill_zeros_like -------------------------------------------------------------------------

fill_zeros_like = register_op(
    "fill_zeros_like",
    inputs=[In("X", no_need_buffer=True)],
    outputs=[Out("Out", "zeros with X's shape and dtype")],
    doc=__doc__,
)


@fill_zeros_like.infer_shape
def _(ctx):
    ctx.set_output("Out", ctx.input_shape("X"), ctx.input_dtype("X"))
    ctx.share_lod("X", "Out")


@fill_zeros_like.kernel(dtypes=NUMERIC + (np.dtype(np.bool_),))
def fill_zeros_like_kernel(attrs, x):
    return np.zeros(x.shape, x.dtype)


# -- fill_zeros_like2 ------------------------------------------------------------------------

fill_zeros_like2 = register_op(
    "fill_zeros_like2",
    inputs=[In("X", no_need_buffer=True)],
    outputs=[Out("Out", "zeros with X's shape, of the DataType `dtype`")],
    attrs=[_DTYPE_ATTR],
    doc=__doc__,
)


@fill_zeros_like2.infer_shape
def _(ctx):
    ctx.set_output("Out", ctx.input_shape("X"), to_numpy_dtype(ctx.attr("dtype")))
    ctx.share_lod("X", "Out")


@fill_zeros_like2.kernel(dtypes=NUMERIC + (np.dtype(np.bool_),))
def fill_zeros_like2_kernel(attrs, x):
    return np.zeros(x.shape, to_numpy_dtype(attrs["dtype"]))
