"""cast_storage (+ cast_storage_grad): Out = X in storage `stype` (MXNet's cast_storage).

    stype "dense" / "default"            -> Out is a LOD_TENSOR
    stype "selected_rows" / "row_sparse" -> Out is a SELECTED_ROWS (X's non-zero rows)
    stype "csr"                          -> Out is a CSR matrix (X must be 2-D)

The values never change, only how they are stored; a cast to the storage X
already has copies it. Casting between the sparse storages never builds the
dense form. A dense Out keeps a dense X's LoD.

Gradient: dX = dOut, stored as X is (a CSR X gets a dense gradient).
"""

from __future__ import annotations

from paddle_ir.core.errors import StorageTypeError
from paddle_ir.core.kinds import (
    STYPE_CSR,
    STYPE_SELECTED_ROWS,
    VAR_TYPE_OF_STYPE,
    canonical_stype,
    storage_type,
    tostype,
)
from paddle_ir.ops.context import CSR, LOD_TENSOR
from paddle_ir.ops.registry import ALL_DTYPES, DENSE, Attr, In, Out, register_op

cast_storage = register_op(
    "cast_storage",
    inputs=[In("X", "a dense, SELECTED_ROWS or CSR tensor")],
    outputs=[Out("Out", "X's values in storage `stype`")],
    attrs=[Attr("stype", "string", doc="dense (default), selected_rows (row_sparse) or csr")],
    doc=__doc__,
)


def _target(ctx) -> str:
    try:
        return canonical_stype(ctx.attr("stype"))
    except StorageTypeError as exc:
        ctx.fail_var_type(exc.message)


@cast_storage.infer_var_type
def _(ctx):
    ctx.set_output_type("Out", VAR_TYPE_OF_STYPE[_target(ctx)])


@cast_storage.infer_shape
def _(ctx):
    shape = ctx.input_shape("X")
    target = _target(ctx)
    if target == "csr":
        ctx.enforce(len(shape) == 2,
                    lambda: f"stype 'csr' requires a 2-D X, got X.shape={list(shape)}")
    if target == "selected_rows":
        ctx.enforce(len(shape) >= 1, "stype 'selected_rows' requires X of rank >= 1, got a 0-D X")
    ctx.set_output("Out", shape, ctx.input_dtype("X"))
    if target == "dense" and ctx.input_var_type("X") == LOD_TENSOR:
        ctx.share_lod("X", "Out")


def cast_storage_kernel(attrs, x):
    return tostype(x, attrs["stype"])


for _stype in (DENSE, STYPE_SELECTED_ROWS, STYPE_CSR):
    cast_storage.kernel(storage=[_stype], dtypes=ALL_DTYPES)(cast_storage_kernel)


@cast_storage.grad_maker
def _(g):
    return [g.grad_op("cast_storage_grad",
                      inputs={"X": g.input("X"), "Out@GRAD": g.output_grad("Out")},
                      outputs={"X@GRAD": g.input_grad("X")})]


cast_storage_grad = register_op(
    "cast_storage_grad",
    inputs=[In("X", "read for its storage type only"), In("Out@GRAD")],
    outputs=[Out("X@GRAD", "dOut, stored as X is (dense for a CSR X)")],
    key_inputs=["Out@GRAD"],
    doc="dX = dOut, in X's storage type (dense when X is CSR).",
)


def _grad_var_type(var_type: int) -> int:
    return LOD_TENSOR if var_type == CSR else var_type


@cast_storage_grad.infer_var_type
def _(ctx):
    ctx.set_output_type("X@GRAD", _grad_var_type(ctx.input_var_type("X")))


@cast_storage_grad.infer_shape
def _(ctx):
    ctx.set_output("X@GRAD", ctx.input_shape("X"), ctx.input_dtype("Out@GRAD"))
    if ctx.input_var_type("X") == LOD_TENSOR:
        ctx.share_lod("X", "X@GRAD")


def cast_storage_grad_kernel(attrs, x, dout):
    target = storage_type(x)
    return tostype(dout, DENSE if target == STYPE_CSR else target)


for _stype in (DENSE, STYPE_SELECTED_ROWS):
    cast_storage_grad.kernel(storage=[_stype], dtypes=ALL_DTYPES)(cast_storage_grad_kernel)
