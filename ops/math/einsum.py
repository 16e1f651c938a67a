"""einsum: Einstein summation over the Operands (paddle.einsum). Forward only.

    Out = np.einsum(equation, *Operands)

e.g. "bij,bjk->bik" (batched matmul), "ij->ji", "bhqd,bhkd->bhqk" (attention scores),
with "..." for broadcast dims and an implicit output (no "->": the letters used once, in
alphabetical order). Paddle also writes InnerCache and XShape outputs (caches for its
gradient); here they are empty tensors ([0] for each cache, [0] + the operand's shape for
each XShape, as XShape always is).
"""

from __future__ import annotations

import numpy as np

from paddle_ir.ops.context import shape_str
from paddle_ir.ops.registry import FLOATS, INTS, Attr, In, Out, register_op

einsum = register_op(
    "einsum",
    inputs=[In("Operands", "one tensor per term of the equation", duplicable=True)],
    outputs=[Out("Out", "the contraction"),
             Out("InnerCache", "Paddle's gradient caches (empty here)", duplicable=True,
                 dispensable=True),
             Out("XShape", "[0] + each operand's shape, no data", duplicable=True,
                 dispensable=True)],
    attrs=[Attr("equation", "string", "", "the subscripts, e.g. 'bij,bjk->bik'")],
    key_inputs=["Operands"],
    doc=__doc__,
)


def _terms(equation: str) -> tuple[list[str], str | None]:
    eq = equation.replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    return lhs.split(","), (rhs if "->" in eq else None)


def _broadcast(parts: list[list[int]]) -> list[int]:
    """The '...' dims of all operands broadcast together, right-aligned (-1: unknown)."""
    rank = max((len(p) for p in parts), default=0)
    out = []
    for k in range(rank):
        dims = [p[k - rank + len(p)] for p in parts if k - rank + len(p) >= 0]
        known = {d for d in dims if d > 1}
        if len(known) > 1:
            raise ValueError(f"the '...' dims {parts} do not broadcast")
        out.append(known.pop() if known else (-1 if -1 in dims else 1))
    return out


def output_shape(equation: str, shapes) -> list[int]:
    """Out's shape from the operands' shapes (-1 for unknown); ValueError when they clash."""
    terms, rhs = _terms(equation)
    if len(terms) != len(shapes):
        raise ValueError(f"{len(terms)} operand terms, but {len(shapes)} Operands")
    sizes: dict[str, int] = {}
    ellipses = []
    for term, shape in zip(terms, shapes, strict=True):
        head, dots, tail = term.partition("...")
        if len(head) + len(tail) > len(shape) or (not dots and len(term) != len(shape)):
            raise ValueError(f"term {term!r} does not fit an operand of shape "
                             f"{shape_str(shape)}")
        cut = len(shape) - len(tail)
        if dots:
            ellipses.append(list(shape[len(head):cut]))
        for letter, d in zip(head + tail, list(shape[:len(head)]) + list(shape[cut:]),
                             strict=True):
            have = sizes.get(letter, -1)
            if have >= 0 and d >= 0 and have != d:
                raise ValueError(f"subscript {letter!r} is {have} in one operand and {d} "
                                 f"in another")
            sizes[letter] = d if have < 0 else have
    if rhs is None:  # implicit: '...' first, then the letters used once, sorted
        letters = "".join(t.replace("...", "") for t in terms)
        rhs = ("..." if ellipses else "") + "".join(sorted(c for c in set(letters)
                                                           if letters.count(c) == 1))
    head, dots, tail = rhs.partition("...")
    return ([sizes[c] for c in head] + (_broadcast(ellipses) if dots else [])
            + [sizes[c] for c in tail])


@einsum.infer_shape
def _(ctx):
    shapes = ctx.input_shapes("Operands")
    try:
        out = output_shape(ctx.attr("equation"), shapes)
    except (ValueError, KeyError) as e:
        ctx.fail(f"equation {ctx.attr('equation')!r}: {e}")
    dtype = ctx.input_dtype("Operands")
    ctx.set_output("Out", out, dtype)
    for k in range(len(ctx.output_names("InnerCache"))):
        ctx.set_output("InnerCache", [0], dtype, i=k)
    for k, name in enumerate(ctx.output_names("XShape")):
        if name:
            ctx.set_output("XShape", [0] + list(shapes[min(k, len(shapes) - 1)]), dtype, i=k)


@einsum.kernel(dtypes=FLOATS + INTS)
def einsum_kernel(attrs, operands):
    operands = list(operands)
    out = np.einsum(attrs["equation"], *operands, optimize=len(operands) > 2)
    out = np.array(out, dtype=operands[0].dtype, order="C")  # keeps a 0-D result 0-D
    caches = [np.zeros(0, out.dtype) for _ in operands]
    shapes = [np.empty((0,) + x.shape, out.dtype) for x in operands]
    return out, caches, shapes
