"""put_along_axis (+ _grad): Value's entries written into Input at the positions Index
gives along Axis (paddle.put_along_axis; the scatter twin of take_along_axis).

Each entry p of Index (Index has Input's rank; Value's dims are at least Index's, and
Value[p] is the entry written) targets Input at p with dim Axis replaced by Index[p]
(negative counts from the end). A target receives every entry aimed at it:

    assign  the last entry written (in Index's row-major order)
    add     Input + the entries' sum          (Include_self False: the sum)
    mul     Input * the entries' product      ("multiply" too; without self: product)
    mean    (Input + sum) / (count + 1)       (without self: sum / count)
    amin    min(Input, entries)               (without self: min(entries))
    amax    max(Input, entries)               (without self: max(entries))

Positions no entry targets keep Input. Integer means truncate, as C++ divides.

    dInput = dResult, except at targets: 0 (assign, or without self); add: dResult;
             mul: dResult * product; mean: dResult / (count + 1); amin/amax:
             dResult / ties where Input equals the result, 0 elsewhere
    dValue = dResult at the entry's target: assign: only for the entry that was kept;
             mul: * the product of the others (and Input); mean: / the divisor;
             amin/amax: / ties where the entry equals the result, 0 elsewhere

(ties: how many of the target's entries, and Input with self, equal the result; Paddle
3.3.1 splits the gradient so, as checked against it.)
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, INTS, NUMERIC, Attr, In, Out, register_op

_REDUCES = ("assign", "add", "mul", "multiply", "mean", "amin", "amax")
_ATTRS = [Attr("Axis", "int", 0, "the dim Index indexes"),
          Attr("Reduce", "string", "assign", "how a target combines what it receives: "
                                             + ", ".join(_REDUCES)),
          Attr("Include_self", "bool", True, "whether Input's own entry joins the reduction")]

put_along_axis = register_op(
    "put_along_axis",
    inputs=[In("Input"), In("Index", "int32/int64, Input's rank"),
            In("Value", "Input's dtype, each dim at least Index's")],
    outputs=[Out("Result", "Input's shape and dtype")],
    attrs=_ATTRS,
    key_inputs=["Input"],
    doc=__doc__,
)


@put_along_axis.infer_shape
def _(ctx):
    x, idx, value = (ctx.input_shape(s) for s in ("Input", "Index", "Value"))
    reduce = ctx.attr("Reduce")
    ctx.enforce(reduce in _REDUCES, lambda: f"Reduce must be one of {', '.join(_REDUCES)}, got "
                                    f"{reduce!r}")
    rank = max(len(x), 1)
    axis = ctx.attr("Axis")
    ctx.enforce(-rank <= axis < rank, lambda: f"Axis must be in [{-rank}, {rank}), got {axis}")
    ctx.enforce(np.dtype(ctx.input_dtype("Index")) in INTS,
                lambda: f"Index must be int32 or int64, got {ctx.input_dtype('Index')}")
    ctx.enforce(len(idx) == len(x) and len(value) == len(x), lambda:
                f"Index {shape_str(idx)} and Value {shape_str(value)} must have Input's rank "
                f"{shape_str(x)}")
    for d, (n, i, v) in enumerate(zip(x, idx, value, strict=True)):
        ctx.enforce(i < 0 or v < 0 or v >= i,
                    lambda: f"Value {shape_str(value)} must be at least Index {shape_str(idx)} in "
                    f"every dim")
        ctx.enforce(d == axis % rank or i < 0 or n < 0 or i <= n,
                    lambda: f"Index {shape_str(idx)} must not exceed Input {shape_str(x)} in dims "
                    f"other than Axis")
    ctx.set_output("Result", x, ctx.input_dtype("Input"))


def _targets(attrs, x: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Input's flat position of each Index entry, in Index's row-major order."""
    axis = attrs["Axis"] % x.ndim
    n = x.shape[axis]
    where = index.astype(np.int64)
    bad = (where < -n) | (where >= n)
    if bad.any():
        raise KernelError(f"put_along_axis: Index holds {int(where[bad][0])}, outside "
                          f"[{-n}, {n}) (Input's dim {axis})")
    where = np.where(where < 0, where + n, where)
    grid = list(np.indices(index.shape, sparse=True))
    grid[axis] = where
    return np.ravel_multi_index(tuple(np.broadcast_arrays(*grid)), x.shape).reshape(-1)


def _entries(value: np.ndarray, index: np.ndarray) -> np.ndarray:
    return value[tuple(slice(0, d) for d in index.shape)].reshape(-1)


def _last_writers(t: np.ndarray) -> np.ndarray:
    """Which entries are the last aimed at their target (the ones assign keeps)."""
    _, first_from_end = np.unique(t[::-1], return_index=True)
    return t.size - 1 - first_from_end


def _reduce_name(attrs) -> str:
    return "mul" if attrs["Reduce"] == "multiply" else attrs["Reduce"]


def _combine(attrs, x: np.ndarray, t: np.ndarray, v: np.ndarray):
    """(Result flat, count of entries per position) for the forward and its gradients."""
    reduce, self_in = _reduce_name(attrs), attrs["Include_self"]
    out = x.reshape(-1).copy()
    count = np.bincount(t, minlength=out.size)
    hit = count > 0
    if reduce == "assign":
        last = _last_writers(t)
        out[t[last]] = v[last]
        return out, count
    if reduce in ("add", "mean"):
        if not self_in:
            out[hit] = 0
        np.add.at(out, t, v)
        if reduce == "mean":
            divisor = (count + int(self_in))[hit].astype(out.dtype)
            out[hit] = out[hit] / divisor if out.dtype.kind in "fc" else \
                np.sign(out[hit]) * (np.abs(out[hit]) // divisor)  # C++ truncates
    elif reduce == "mul":
        if not self_in:
            out[hit] = 1
        np.multiply.at(out, t, v)
    else:
        if not self_in:
            out[hit] = v.max() if reduce == "amin" else v.min()  # then reduced with them
        (np.minimum if reduce == "amin" else np.maximum).at(out, t, v)
    return out, count


@put_along_axis.kernel(dtypes=NUMERIC)
def put_along_axis_kernel(attrs, x, index, value):
    t = _targets(attrs, x, index)
    out, _ = _combine(attrs, x, t, _entries(value, index).astype(x.dtype))
    return out.reshape(x.shape)


@put_along_axis.grad_maker
def _(g):
    return [g.grad_op("put_along_axis_grad",
                      inputs={"Input": g.input("Input"), "Index": g.input("Index"),
                              "Value": g.input("Value"), "Result": g.output("Result"),
                              "Result@GRAD": g.output_grad("Result")},
                      outputs={"Input@GRAD": g.input_grad("Input"),
                               "Value@GRAD": g.input_grad("Value")},
                      attrs={a.name: g.attr(a.name) for a in _ATTRS})]


put_along_axis_grad = register_op(
    "put_along_axis_grad",
    inputs=[In("Input"), In("Index"), In("Value"), In("Result"), In("Result@GRAD")],
    outputs=[Out("Input@GRAD", dispensable=True), Out("Value@GRAD", dispensable=True)],
    attrs=_ATTRS,
    key_inputs=["Result@GRAD"],
    doc="The gradients of put_along_axis (its module's doc).",
)


@put_along_axis_grad.infer_shape
def _(ctx):
    for slot in ("Input", "Value"):
        if ctx.has_output(slot + "@GRAD"):
            ctx.set_output(slot + "@GRAD", ctx.input_shape(slot), ctx.input_dtype("Result@GRAD"))


def _others_product(t: np.ndarray, v: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Per entry: base at its target times every other entry aimed there (no division,
    so an entry of 0 still gets its gradient)."""
    result = base[t].copy()
    order = np.argsort(t, kind="stable")
    bounds = np.flatnonzero(np.diff(t[order])) + 1
    for group in np.split(order, bounds):
        for k, j in enumerate(group):
            result[j] *= np.prod(np.delete(v[group], k))
    return result


@put_along_axis_grad.kernel(dtypes=FLOATS)
def put_along_axis_grad_kernel(attrs, x, index, value, result, dresult):
    reduce, self_in = _reduce_name(attrs), attrs["Include_self"]
    t = _targets(attrs, x, index)
    v = _entries(value, index).astype(dresult.dtype)
    g = dresult.reshape(-1)
    out = result.reshape(-1)
    count = np.bincount(t, minlength=g.size)
    hit = count > 0
    dx = g.copy()
    dv_flat = g[t].copy()
    if reduce == "assign":
        dx[hit] = 0
        kept = np.zeros(t.size, bool)
        kept[_last_writers(t)] = True
        dv_flat[~kept] = 0
    elif reduce == "add":
        if not self_in:
            dx[hit] = 0
    elif reduce == "mul":
        product = np.ones_like(g)
        np.multiply.at(product, t, v)
        dx[hit] = g[hit] * product[hit] if self_in else 0
        base = x.reshape(-1).astype(g.dtype) if self_in else np.ones_like(g)
        dv_flat = g[t] * _others_product(t, v, base)
    elif reduce == "mean":
        divisor = (count + int(self_in)).astype(g.dtype)
        dx[hit] = g[hit] / divisor[hit] if self_in else 0
        dv_flat = g[t] / divisor[t]
    else:  # amin / amax: shared among the ties that equal the result
        ties = np.zeros_like(g)
        np.add.at(ties, t, (v == out[t]).astype(g.dtype))
        own = x.reshape(-1) == out
        if self_in:
            ties += own
            dx[hit] = np.where(own[hit], g[hit] / ties[hit], 0)
        else:
            dx[hit] = 0
        dv_flat = np.where(v == out[t], g[t] / ties[t], 0)
    dv = np.zeros(value.shape, g.dtype)
    dv[tuple(slice(0, d) for d in index.shape)] = dv_flat.reshape(index.shape)
    return dx.reshape(x.shape), dv
