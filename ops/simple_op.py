"""A compact way to declare an op whose gradient is one grad op over its forward inputs.

`register_simple(...)` makes the op (spec, shape rule, dense kernel) and, when
`backward` is given, its grad maker and `<op>_grad` op: the grad op reads the
forward inputs, the forward outputs named in `keep` and dOut of `out_slot`, and
`backward(attrs, *inputs, *kept, dOut)` returns the gradients of the `wrt`
slots in order (the grad op's outputs have the shapes of those inputs). Most
of Fluid's small ops (losses, pads, shuffles) fit this.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from paddle_ir.ops.grad import grad_name
from paddle_ir.ops.registry import FLOATS, AttrSpec, OpDef, Slot, register_op


def register_simple(op_type: str, inputs: list[Slot], outputs: list[Slot],
                    attrs: Iterable[AttrSpec], infer: Callable, forward: Callable, *,
                    backward: Callable | None = None, wrt: Iterable[str] = (),
                    out_slot: str = "Out", keep: Iterable[str] = (), doc: str = "",
                    dtypes: Iterable[np.dtype] = FLOATS, grad_dtypes: Iterable = FLOATS,
                    key_input: str | None = None, lod: bool = False) -> OpDef:
    attrs, wrt, keep = list(attrs), list(wrt), list(keep)
    in_names = [s.name for s in inputs]
    key = key_input or (in_names[0] if in_names else None)
    fwd = register_op(op_type, inputs=inputs, outputs=outputs, attrs=attrs, doc=doc,
                      key_inputs=[key] if key else [])
    fwd.infer_shape(infer)
    fwd.kernel(dtypes=dtypes, lod=lod)(forward)
    if backward is None:
        fwd.grad_maker(lambda g: [])
        return fwd
    attr_names = [a.name for a in attrs]

    def maker(g):
        grads = {grad_name(w): g.input_grad(w) for w in wrt}
        if not any(grads.values()):
            return []
        grad_inputs = {n: g.input(n) for n in in_names}
        grad_inputs.update({n: g.output(n) for n in keep})
        grad_inputs[grad_name(out_slot)] = g.output_grad(out_slot)
        return [g.grad_op(op_type + "_grad", inputs=grad_inputs, outputs=grads,
                          attrs={a: g.attr(a) for a in attr_names})]

    fwd.grad_maker(maker)
    slots = {s.name: s for s in inputs}
    bwd = register_op(
        op_type + "_grad",
        inputs=[Slot(n, duplicable=slots[n].duplicable, dispensable=slots[n].dispensable)
                for n in in_names] + [Slot(n) for n in keep] + [Slot(grad_name(out_slot))],
        outputs=[Slot(grad_name(w), duplicable=slots[w].duplicable, dispensable=True)
                 for w in wrt],
        attrs=attrs, key_inputs=[grad_name(out_slot)],
        doc=f"Gradients of {op_type} w.r.t. {', '.join(wrt)}.")

    def infer_grad(ctx):
        for w in wrt:
            if slots[w].duplicable:
                for i in range(ctx.input_count(w)):
                    ctx.set_output(grad_name(w), ctx.input_shape(w, i), ctx.input_dtype(w, i),
                                   i=i)
            else:
                ctx.set_output(grad_name(w), ctx.input_shape(w), ctx.input_dtype(w))
                if ctx.input_lod_level(w):
                    ctx.share_lod(w, grad_name(w))

    bwd.infer_shape(infer_grad)
    bwd.kernel(dtypes=grad_dtypes, lod=lod)(backward)
    return fwd


def same_shape(ctx, a: str, b: str) -> None:
    """Enforce that inputs a and b have the same shape (unknown dims match anything)."""
    sa, sb = ctx.input_shape(a), ctx.input_shape(b)
    ctx.enforce(len(sa) == len(sb) and all(x < 0 or y < 0 or x == y
                                           for x, y in zip(sa, sb, strict=True)),
                lambda: f"{a} and {b} must have the same shape, got {list(sa)} and {list(sb)}")
