"""Fluid's control flow written as PIR regions, as Paddle's own translator writes it
(program_translator.cc's ConditionalBlockOp and WhileOp):

- conditional_block(Cond=[c], Out=[o...]) {block} -> %r... = pd_op.if(%c) {block's ops;
  cf.yield(o...)} {cf.yield(o's values before the op, or a pd_op.full of zeros for one
  nothing wrote yet: static.nn.cond's per-branch variables, which select_input never
  picks from the branch that did not run)}; o_k is r_k afterwards;
- select_input(X=[x...], Mask=m) -> pd_op.select_input(%m, %x...);
- while(Condition=[c], Out=[v...]) {body} -> %r... = pd_op.while(%c, %v...) {^(%a...)
  body's ops with v_k read as %a_k; cf.yield(c, v...)}; v_k is r_k afterwards. The
  loop variables are the Out variables other than the condition.

Names a sub-block defines stay inside it: the writer's name -> value map is restored
after each region, but for the op's results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paddle_ir.paddle_format.pir.write import _attr, encode

if TYPE_CHECKING:
    from paddle_ir.paddle_format.pir.write import Writer

_region_count = 0


def _region(w: Writer, block_idx: int, where: str, args=(), yielded=None) -> dict:
    """A PIR region holding Fluid block `block_idx`'s ops, then cf.yield(yielded(env))."""
    global _region_count
    _region_count += 1
    saved_ops, saved_env = w.ops, dict(w.env)
    w.ops = []
    try:
        for name, value in args:
            w.env[name] = value["#"]
        if block_idx is not None:
            block = w.desc.blocks[block_idx]
            for index, op in enumerate(block.ops):
                w.op(op, f"block {block_idx}, op #{index} {op.type}")
        values = yielded() if yielded is not None else []
        w.ops.append({"#": "2.yield", "A": [], "I": [{"%": v} for v in values], "O": [],
                      "OA": []})
        body = w.ops
    finally:
        w.ops, w.env = saved_ops, saved_env
    return {"#": f"region_{_region_count}", "blocks": [
        {"#": f"block_{_region_count}", "args": list(a for _, a in args), "ops": body}]}


def _zeros(w: Writer, name: str, where: str) -> int:
    """A stand-in of `name`'s type for a branch that does not write it."""
    dims = [1 if d < 0 else d for d in w.dims(name)]
    dtype = w.dtype(name)
    (value,) = w.emit("pd_op.full", [], [w.new_value(w.var_type(name))], [
        {"N": "shape", "AT": _attr("1.a_intarray", dims)},
        {"N": "value", "AT": _attr("0.a_f64", 0.0)},
        {"N": "dtype", "AT": encode({"#": "1.a_dtype"}, dtype, where)},
        {"N": "place", "AT": _attr("1.a_place", [1, 0, ""])}])
    value["TT"]["D"][1] = dims
    return value["%"]


def _conditional_block(w: Writer, old_type, inputs, outputs, attrs, where) -> bool:
    conds, outs = inputs.get("Cond", []), outputs.get("Out", [])
    if len(conds) != 1 or not attrs.get("is_scalar_condition", True):
        w.problems.append(f"{where}: a conditional_block on {len(conds)} condition(s) "
                          f"(is_scalar_condition false); PIR's if takes one bool")
        return True
    cond = w.use(conds[0], where)
    before = {n: w.env[n] for n in outs if n in w.env}
    true = _region(w, attrs["sub_block"], where,
                   yielded=lambda: [w.use(n, where) for n in outs])
    false = _region(w, None, where, yielded=lambda: [
        before[n] if n in before else _zeros(w, n, where) for n in outs])
    results = w.bind(outs)
    w.emit("pd_op.if", [cond], results, [], regions=[true, false])
    return True


def _select_input(w: Writer, old_type, inputs, outputs, attrs, where) -> bool:
    mask = w.use(inputs["Mask"][0], where)
    xs = [w.env[n] if n in w.env else _zeros(w, n, where) for n in inputs.get("X", [])]
    w.emit("pd_op.select_input", [mask, *xs], w.bind(outputs["Out"][:1]), [])
    return True


def _while(w: Writer, old_type, inputs, outputs, attrs, where) -> bool:
    (cond,) = inputs.get("Condition", [None])
    loop = [n for n in outputs.get("Out", []) if n != cond]
    if cond is None:
        w.problems.append(f"{where}: a while without a Condition")
        return True
    first = w.use(cond, where)
    inits = [w.use(n, where) for n in loop]
    args = []
    for name in loop:
        w.next_arg = getattr(w, "next_arg", 0) - 1
        args.append((name, {"#": w.next_arg, "TT": w.var_type(name)}))
    body = _region(w, attrs["sub_block"], where, args=args,
                   yielded=lambda: [w.use(cond, where), *[w.use(n, where) for n in loop]])
    results = w.bind(loop)
    w.emit("pd_op.while", [first, *inits], results, [], regions=[body])
    return True


CONTROL_FLOW = {"conditional_block": _conditional_block, "select_input": _select_input,
                "while": _while}
