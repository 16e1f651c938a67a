"""Random ops of Fluid 1.7 beyond fill.py's (no gradient); seed 0 draws a fresh seed:

    gaussian_random_batch_size_like / uniform_random_batch_size_like
                     random values of `shape` with one dim taken from Input's batch
    random_crop      each instance's trailing dims cropped to `shape` at a random place
    sampling_id      one class id per row drawn from the row's probabilities
    randperm         a random permutation of 0 .. n-1, of `dtype`
    randint          integers drawn uniformly from [low, high), shaped `shape` (or by the
                     ShapeTensor / ShapeTensorList inputs, which override it)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import DataType, to_numpy_dtype
from paddle_ir.core.errors import KernelError
from paddle_ir.core.limits import check_allocation
from paddle_ir.ops.registry import ALL_DTYPES, INTS, NUMERIC, Attr, In, Out, register_op
from paddle_ir.ops.simple_op import register_simple
from paddle_ir.ops.tensor.fill import _rng, check_distribution

# -- *_random_batch_size_like ----------------------------------------------------------------

_BATCH_LIKE = [Attr("shape", "ints", [], "the output shape; output_dim_idx is replaced"),
               Attr("input_dim_idx", "int", 0, "Input's dim to copy"),
               Attr("output_dim_idx", "int", 0, "the output dim it becomes"),
               Attr("dtype", "int", 5, "the output DataType"),
               Attr("seed", "int", 0, "0: random; else fixed")]


def _batch_shape(attrs_or_ctx, in_shape):
    get = attrs_or_ctx.attr if hasattr(attrs_or_ctx, "attr") else attrs_or_ctx.__getitem__
    shape = list(get("shape"))
    shape[get("output_dim_idx")] = in_shape[get("input_dim_idx")]
    return shape


def _infer_batch_like(ctx):
    in_shape = ctx.input_shape("Input")
    i, o = ctx.attr("input_dim_idx"), ctx.attr("output_dim_idx")
    ctx.enforce(0 <= i < len(in_shape) and 0 <= o < len(ctx.attr("shape")),
                lambda: f"input_dim_idx {i} / output_dim_idx {o} out of range")
    check_distribution(ctx)
    ctx.set_output("Out", _batch_shape(ctx, in_shape), to_numpy_dtype(ctx.attr("dtype")))


for _name, _extra, _draw in (
    ("gaussian_random_batch_size_like",
     [Attr("mean", "float", 0.0, "the mean"), Attr("std", "float", 1.0, "the deviation")],
     lambda a, g, s: g.normal(a["mean"], a["std"], size=s)),
    ("uniform_random_batch_size_like",
     [Attr("min", "float", -1.0, "inclusive"), Attr("max", "float", 1.0, "exclusive")],
     lambda a, g, s: g.uniform(a["min"], a["max"], size=s)),
):
    _op = register_simple(
        _name, [In("Input", "its batch dim sizes Out")], [Out("Out", "random values")],
        _BATCH_LIKE + _extra, _infer_batch_like,
        lambda attrs, x, _d=_draw: _d(attrs, _rng(attrs["seed"]), _batch_shape(
            attrs, x.shape)).astype(to_numpy_dtype(attrs["dtype"])),
        dtypes=ALL_DTYPES, doc=__doc__)
    _op.dtype_from = "Input"


# -- random_crop -----------------------------------------------------------------------------

def _infer_random_crop(ctx):
    x, shape = list(ctx.input_shape("X")), list(ctx.attr("shape"))
    ctx.enforce(0 < len(shape) <= len(x), lambda: f"shape must crop X's trailing dims, got {shape} "
                f"for X {x}")
    lead = len(x) - len(shape)
    ctx.enforce(all(d < 0 or s <= d for d, s in zip(x[lead:], shape, strict=True)),
                lambda: f"crop shape {shape} exceeds X's dims {x[lead:]}")
    ctx.set_output("Out", x[:lead] + shape, ctx.input_dtype("X"))
    ctx.set_output("SeedOut", (1,), np.int64)


def _random_crop(attrs, x, seed):
    shape = list(attrs["shape"])
    lead = x.ndim - len(shape)
    # A negative seed is taken as its 64-bit pattern (numpy refuses it; C++ casts it).
    gen = np.random.default_rng(int(np.asarray(seed).reshape(-1)[0]) % 2**64)
    batch = x.reshape((-1,) + x.shape[lead:])
    out = np.empty((batch.shape[0],) + tuple(shape), dtype=x.dtype)
    starts = [gen.integers(0, d - s + 1, size=batch.shape[0])
              for d, s in zip(x.shape[lead:], shape, strict=True)]
    grids = np.meshgrid(*[np.arange(s) for s in shape], indexing="ij")
    index = [np.arange(batch.shape[0]).reshape((-1,) + (1,) * len(shape))]
    index += [st.reshape((-1,) + (1,) * len(shape)) + g[None] for st, g in zip(starts, grids,
                                                                              strict=True)]
    out[...] = batch[tuple(index)]
    next_seed = np.asarray([gen.integers(1, 2 ** 31)], dtype=np.int64)
    return out.reshape(x.shape[:lead] + tuple(shape)), next_seed


register_simple(
    "random_crop", [In("X"), In("Seed", "int64 [1]")],
    [Out("Out", "cropped"), Out("SeedOut", "the next seed")],
    [Attr("shape", "ints", [], "the crop of X's trailing dims")],
    _infer_random_crop, _random_crop, dtypes=NUMERIC, doc=__doc__)


# -- sampling_id -----------------------------------------------------------------------------

def _infer_sampling_id(ctx):
    x = ctx.input_shape("X")
    ctx.enforce(len(x) == 2 and x[1] != 0,
                lambda: f"X must be [N, C] probabilities with C >= 1, got "
                                           f"{list(x)}")
    ctx.enforce(ctx.attr("min") <= ctx.attr("max"),
                lambda: f"min must be <= max, got min={ctx.attr('min')} and max={ctx.attr('max')}")
    ctx.set_output("Out", (x[0],), np.int64)


def _sampling_id(attrs, x):
    gen = _rng(attrs["seed"])
    r = gen.uniform(attrs["min"], attrs["max"], size=(x.shape[0], 1))
    cum = np.cumsum(x, axis=1)
    ids = (cum < r).sum(axis=1)  # the first class whose cumulative probability reaches r
    return np.minimum(ids, x.shape[1] - 1).astype(np.int64)


register_simple(
    "sampling_id", [In("X", "[N, C] probabilities")], [Out("Out", "int64 [N]")],
    [Attr("min", "float", 0.0, "r's lower bound"), Attr("max", "float", 1.0, "r's upper"),
     Attr("seed", "int", 0, "0: random")],
    lambda ctx: _infer_sampling_id(ctx), _sampling_id,
    doc=__doc__)


# -- randperm --------------------------------------------------------------------------------

randperm = register_op(
    "randperm",
    outputs=[Out("Out", "a permutation of 0 .. n-1")],
    attrs=[Attr("n", "int", 1, "the length, >= 1"),
           Attr("dtype", "int", int(DataType.INT64), "the output DataType"),
           Attr("seed", "int", 0, "0: random; else fixed")],
    dtype_from="attr:dtype",
    doc=__doc__,
)


@randperm.infer_shape
def _(ctx):
    ctx.enforce(ctx.attr("n") >= 1, lambda: f"n must be >= 1, got {ctx.attr('n')}")
    ctx.set_output("Out", (ctx.attr("n"),), to_numpy_dtype(ctx.attr("dtype")))


@randperm.kernel(storage=[], dtypes=INTS + (np.dtype(np.float32), np.dtype(np.float64)))
def randperm_kernel(attrs):
    dtype = to_numpy_dtype(attrs["dtype"])
    check_allocation("randperm", (attrs["n"],), dtype, "the attribute n")
    return _rng(attrs["seed"]).permutation(attrs["n"]).astype(dtype)


# -- randint ---------------------------------------------------------------------------------

randint = register_op(
    "randint",
    inputs=[In("ShapeTensor", "int tensor: the output shape; overrides `shape`",
               dispensable=True),
            In("ShapeTensorList", "int tensors [1], one per dim; override ShapeTensor",
               duplicable=True, dispensable=True)],
    outputs=[Out("Out", "integers in [low, high)")],
    attrs=[Attr("shape", "longs", [], "the output shape"),
           Attr("low", "int", 0, "inclusive"), Attr("high", "int", 0, "exclusive, > low"),
           Attr("dtype", "int", int(DataType.INT64), "the output DataType (int32 or int64)"),
           Attr("seed", "int", 0, "0: random; else fixed")],
    key_inputs=[],
    dtype_from="attr:dtype",
    doc=__doc__,
)


def _randint_shape(attrs_shape, shape_tensor, shape_list) -> list[int]:
    if shape_list:
        return [int(np.asarray(t).reshape(-1)[0]) for t in shape_list]
    if shape_tensor is not None:
        return [int(d) for d in np.asarray(shape_tensor).reshape(-1)]
    return list(attrs_shape)


@randint.infer_shape
def _(ctx):
    low, high = ctx.attr("low"), ctx.attr("high")
    ctx.enforce(low < high, lambda: f"low must be < high, got low={low} and high={high}")
    dtype = to_numpy_dtype(ctx.attr("dtype"))
    ctx.enforce(dtype in INTS, lambda: f"dtype must be int32 or int64, got {dtype}")
    if ctx.has_input("ShapeTensorList"):
        shape = [-1] * ctx.input_count("ShapeTensorList")
    elif ctx.has_input("ShapeTensor"):
        rank = ctx.input_shape("ShapeTensor")
        ctx.enforce(len(rank) == 1 and rank[0] >= 0,
                    lambda: f"ShapeTensor must be a 1-D int tensor of known length (the output's "
                    f"rank), got shape {list(rank)}")
        shape = [-1] * rank[0]
    else:
        shape = list(ctx.attr("shape"))
        ctx.enforce(all(d >= 0 for d in shape), lambda: f"shape must be known (no -1), got {shape}")
    ctx.set_output("Out", shape, dtype)


@randint.kernel(storage=[], dtypes=INTS)
def randint_kernel(attrs, shape_tensor=None, shape_list=None):
    shape = _randint_shape(attrs["shape"], shape_tensor, shape_list)
    dtype = to_numpy_dtype(attrs["dtype"])
    if any(d < 0 for d in shape):
        raise KernelError(f"randint: the shape read from its inputs, {shape}, has a negative "
                          f"dim")
    check_allocation("randint", shape, dtype, "its shape inputs or attribute")
    return _rng(attrs["seed"]).integers(attrs["low"], attrs["high"], size=shape).astype(dtype)
