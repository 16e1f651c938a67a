"""lookup_table, lookup_table_v2 (+ _grad): Out = W[Ids], the embedding lookup.

W is the table [V, D]; Ids are int64 row numbers in [0, V). `lookup_table`
wants Ids with a trailing dim of 1 and gives Out = Ids.shape[:-1] + [D];
`lookup_table_v2` takes Ids of any shape and gives Out = Ids.shape + [D]. Both
share the kernels. Out carries Ids' LoD. An id outside [0, V) is a
KernelError naming the id and V. `padding_idx` (-1: none) looks up zeros.

Gradient (`lookup_table_grad`, `lookup_table_v2_grad`), by `is_sparse`:
- False: dense W@GRAD [V, D], each id's rows of Out@GRAD added to its row;
- True: W@GRAD is a SelectedRows of height V whose rows are the ids in order,
  duplicates kept, and whose value rows are Out@GRAD's rows (no [V, D]
  temporary is ever built); var-type inference declares it at build time.
In both, ids equal to `padding_idx` contribute nothing: the padding row gets
no gradient (the sparse result simply does not list it). Paddle's sparse
path does send gradient to that row; this is deliberate, not a port of it.
The grad kernel reads the output storage from the `is_sparse` attribute, as
Paddle's does: both kernels take the same dense inputs.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError, OpLocation
from paddle_ir.core.segments import merge_rows
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.ops.context import LOD_TENSOR, SELECTED_ROWS, shape_str
from paddle_ir.ops.registry import FLOATS, Attr, In, Out, register_op

_ATTRS = [
    Attr("is_sparse", "bool", False, "make W@GRAD a SelectedRows of the looked-up rows"),
    Attr("padding_idx", "long", -1, "an id that looks up zeros and gets no gradient; -1: none"),
    Attr("is_distributed", "bool", False, "the table is sharded over parameter servers "
         "(paddle_ir.transpiler); no effect on one machine"),
]


def _infer_forward(ctx, v1: bool):
    w, ids = ctx.input_shape("W"), ctx.input_shape("Ids")
    ctx.enforce(len(w) == 2, lambda: f"W must be a 2-D table [V, D], got W.shape={shape_str(w)}")
    ctx.enforce(ctx.input_dtype("Ids").kind in "iu",
                lambda: f"Ids must hold integer ids (int64), got dtype {ctx.input_dtype('Ids')}")
    if v1:
        ctx.enforce(len(ids) >= 1 and ids[-1] in (1, -1),
                    lambda: f"lookup_table requires Ids with a trailing dim of 1, got Ids.shape="
                    f"{shape_str(ids)}", hint="use lookup_table_v2 for ids of any shape")
        ids = ids[:-1]
    padding = ctx.attr("padding_idx")
    ctx.enforce(padding >= -1 and (w[0] < 0 or padding < w[0]),
                lambda: f"padding_idx must be -1 or in [0, {w[0]}), got {padding}")
    ctx.set_output("Out", tuple(ids) + (w[1],), ctx.input_dtype("W"))
    ctx.share_lod("Ids", "Out")


def _check_ids(ids: np.ndarray, vocab: int) -> None:
    if ids.size == 0:
        return
    lo, hi = np.minimum.reduce(ids, axis=None), np.maximum.reduce(ids, axis=None)
    if lo < 0 or hi >= vocab:
        bad = int(lo if lo < 0 else hi)
        raise KernelError(f"Ids holds id {bad}, outside the vocabulary [0, {vocab}) of W "
                          f"(vocab size {vocab})", op=OpLocation(op_type="lookup_table"))


def lookup(attrs, w: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """W's rows for the flattened ids, [N, D], zeros at padding_idx."""
    flat = ids.reshape(-1)
    _check_ids(flat, w.shape[0])
    out = w.take(flat, axis=0)  # faster than w[flat] for a gather of whole rows
    padding = attrs["padding_idx"]
    if padding >= 0:
        out[flat == padding] = 0
    return out


def _forward_kernel(v1: bool):
    def kernel(attrs, w, ids):
        shape = (ids.shape[:-1] if v1 else ids.shape) + (w.shape[1],)
        return lookup(attrs, w, ids).reshape(shape)

    return kernel


def _grad_kernel(attrs, w, ids, dout):
    """dW from dOut: a SelectedRows of the ids' rows (is_sparse) or dense [V, D]."""
    flat = ids.reshape(-1)
    _check_ids(flat, w.shape[0])
    rows_grad = dout.reshape(flat.size, w.shape[1])
    padding = attrs["padding_idx"]
    if padding >= 0:
        keep = flat != padding
        if not keep.all():
            flat, rows_grad = flat[keep], rows_grad[keep]
    if attrs["is_sparse"]:
        return SelectedRows.unchecked(flat.astype(np.int64, copy=False), rows_grad, w.shape[0])
    rows, values = merge_rows(flat.astype(np.int64, copy=False), rows_grad)
    dw = np.zeros(w.shape, dtype=dout.dtype)
    dw[rows] = values
    return dw


def _infer_grad_var_type(ctx):
    ctx.set_output_type("W@GRAD", SELECTED_ROWS if ctx.attr("is_sparse") else LOD_TENSOR)


def _infer_grad(ctx):
    ctx.set_output("W@GRAD", ctx.input_shape("W"), ctx.input_dtype("W"))


def _make_grad_maker(grad_type: str):
    def maker(g):
        return [g.grad_op(
            grad_type,
            inputs={"W": g.input("W"), "Ids": g.input("Ids"), "Out@GRAD": g.output_grad("Out")},
            outputs={"W@GRAD": g.input_grad("W")},
            attrs={"is_sparse": g.attr("is_sparse"), "padding_idx": g.attr("padding_idx")})]

    return maker


def _forward_spec(ids_doc: str) -> dict:
    return dict(inputs=[In("W", "the embedding table [V, D]"), In("Ids", ids_doc)],
                outputs=[Out("Out", "the looked-up rows, with Ids' LoD")],
                attrs=_ATTRS, key_inputs=["W"], doc=__doc__)


def _grad_spec(forward: str) -> dict:
    return dict(inputs=[In("W", "the table (for its shape)", no_need_buffer=True), In("Ids"),
                        In("Out@GRAD")],
                outputs=[Out("W@GRAD", "SelectedRows if is_sparse, else dense",
                             dispensable=True)],
                attrs=_ATTRS, key_inputs=["Out@GRAD"],
                doc=f"The gradient of {forward} w.r.t. W; see {forward}.")


# Registered by their literal names, so that searching for an op type finds these lines.
lookup_table = register_op(
    "lookup_table", **_forward_spec("int64 ids with a trailing dim of 1, e.g. [N, 1]"))
lookup_table_v2 = register_op("lookup_table_v2", **_forward_spec("int64 ids of any shape"))
lookup_table_grad = register_op("lookup_table_grad", **_grad_spec("lookup_table"))
lookup_table_v2_grad = register_op("lookup_table_v2_grad", **_grad_spec("lookup_table_v2"))

_INT_TABLES = {"lookup_table": (np.dtype(np.int8), np.dtype(np.int16)),
               "lookup_table_v2": (np.dtype(np.int8),)}

for _fwd, _bwd, _v1 in ((lookup_table, lookup_table_grad, True),
                        (lookup_table_v2, lookup_table_v2_grad, False)):
    _fwd.infer_shape(lambda ctx, v1=_v1: _infer_forward(ctx, v1))
    _kernel = _forward_kernel(_v1)
    _kernel.__qualname__ = _kernel.__name__ = f"{_fwd.type}_dense"
    # Paddle's CPU kernels also read int8 (and, for v1, int16) tables: quantized embeddings
    _fwd.kernel(dtypes=FLOATS + _INT_TABLES[_fwd.type])(_kernel)
    _fwd.grad_maker(_make_grad_maker(_bwd.type))
    _bwd.infer_var_type(_infer_grad_var_type)
    _bwd.infer_shape(_infer_grad)
    _bwd.kernel(dtypes=FLOATS)(_grad_kernel)
