"""PIR control flow read as Fluid's: pd_op.if -> two conditional_blocks and select_input,
pd_op.while -> a while over a sub-block, as Paddle 2.x's static.nn.cond / while_loop
saved them; pd_op.select_input (Paddle's translation of the old op) -> select_input.

    %r... = pd_op.if(%cond) {true region ... cf.yield(%t...)} {false region ...
                                                               cf.yield(%f...)}
becomes, in the enclosing block:
    conditional_block(Cond=[cond], Input=[outer reads]) { ...; assign(t_k) -> if_R.true_k }
    logical_not(cond) -> if_R.not
    conditional_block(Cond=[if_R.not], ...)             { ...; assign(f_k) -> if_R.false_k }
    cast(cond, int32) -> if_R.mask
    select_input(X=[if_R.false_k, if_R.true_k], Mask=if_R.mask) -> result k

    %r... = pd_op.while(%cond, %init...) {^(%arg...) ... cf.yield(%next_cond, %next...)}
becomes: assign(init_k) -> while_R.var_k, assign(cond) -> while_R.cond, then
    while(X=[outer reads], Condition=[while_R.cond]) { body with %arg_k = while_R.var_k;
        the yielded values assigned back to while_R.var_k and while_R.cond }
and result k is while_R.var_k. Values a body yields are copied to fresh variables first
when they are loop variables themselves, so that a swap (yield(%b, %a)) reads the old
values, as PIR's simultaneous yield does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paddle_ir.paddle_format.pir.document import Operation, ValueType
from paddle_ir.proto import framework_pb2 as pb

if TYPE_CHECKING:
    from paddle_ir.paddle_format.pir.translate import Translator

_BOOL = ValueType("tensor", pb.BOOL, (1,))


def _scope(t: Translator, base: str) -> str:
    name = t.fresh(base, ValueType("tensor"))
    t.block.vars[-1].type = pb.VarDesc.STEP_SCOPES
    t.block.vars[-1].ClearField("lod_desc")
    return name


def _assign(t: Translator, value, target: str, where: str) -> None:
    source = t.tensor(value, where)
    if source is not None:
        t.add_op("assign", {"X": [source]}, {"Out": [target]}, {}, where)


def _if(t: Translator, op: Operation) -> None:
    where = op.where()
    if len(op.operands) != 1 or len(op.regions) != 2 or any(len(r) != 1 for r in op.regions):
        t.problems.append(f"{where}: a pd_op.if needs one condition and two regions of one "
                          f"block each")
        for k in range(len(op.results)):
            t.bind_result(op, k)
        return
    cond_value = t.value(op, 0)
    cond = t.tensor(cond_value, where) if cond_value is not None else None
    if cond is None:
        return
    rid = op.results[0][0] if op.results else op.index
    dims = t.types.get(op.operands[0], _BOOL).dims  # the condition's: [] in Paddle 3
    outs = {branch: [t.fresh(f"if_{rid}.{branch}_{k}", vtype)
                     for k, (_, vtype) in enumerate(op.results)]
            for branch in ("true", "false")}
    not_cond = t.fresh(f"if_{rid}.not", ValueType("tensor", pb.BOOL, dims))
    t.add_op("logical_not", {"X": [cond]}, {"Out": [not_cond]}, {}, where)
    for branch, region, run_if in (("true", op.regions[0], cond),
                                   ("false", op.regions[1], not_cond)):
        targets = outs[branch]

        def after(yielded, targets=targets):
            if len(yielded) != len(targets):
                t.problems.append(f"{where}: a branch yields {len(yielded)} value(s) for "
                                  f"{len(targets)} result(s)")
                return
            for value, target in zip(yielded, targets, strict=True):
                if value is not None:
                    _assign(t, value, target, where)

        block = t.sub_block(region[0].ops, after=after)
        t.add_op("conditional_block",
                 {"Cond": [run_if], "Input": t.outer_reads(block)},
                 {"Out": targets, "Scope": [_scope(t, f"if_{rid}.{branch}_scope")]},
                 {"sub_block": block.idx, "is_scalar_condition": True}, where)
    if not op.results:
        return
    mask = t.fresh(f"if_{rid}.mask", ValueType("tensor", pb.INT32, dims))
    t.add_op("cast", {"X": [cond]}, {"Out": [mask]},
             {"in_dtype": pb.BOOL, "out_dtype": pb.INT32}, where)
    for k in range(len(op.results)):
        name = t.bind_result(op, k)
        t.add_op("select_input", {"X": [outs["false"][k], outs["true"][k]], "Mask": [mask]},
                 {"Out": [name]}, {}, where)


def _while(t: Translator, op: Operation) -> None:
    where = op.where()
    if (len(op.regions) != 1 or len(op.regions[0]) != 1 or len(op.operands) < 1
            or len(op.regions[0][0].args) != len(op.operands) - 1
            or len(op.results) != len(op.operands) - 1):
        t.problems.append(f"{where}: a pd_op.while needs a condition, one initial value per "
                          f"result and one body block taking them as arguments")
        for k in range(len(op.results)):
            t.bind_result(op, k)
        return
    rid = op.results[0][0] if op.results else op.index
    cond = t.fresh(f"while_{rid}.cond", ValueType("tensor", pb.BOOL, t.types.get(
        op.operands[0], _BOOL).dims))
    loop = [t.fresh(f"while_{rid}.var_{k}", vtype) for k, (_, vtype) in enumerate(op.results)]
    first = t.value(op, 0)
    if first is not None:
        _assign(t, first, cond, where)
    for k, target in enumerate(loop):
        init = t.value(op, k + 1)
        if init is not None:
            _assign(t, init, target, where)
    body = op.regions[0][0]

    def before(block):
        for (aid, vtype), name in zip(body.args, loop, strict=True):
            t.env[aid], t.types[aid] = name, vtype

    def after(yielded):
        if len(yielded) != len(loop) + 1:
            t.problems.append(f"{where}: the body yields {len(yielded)} value(s); the loop "
                              f"needs its condition and {len(loop)} value(s)")
            return
        staged = []
        for k, value in enumerate(yielded[1:]):
            if isinstance(value, str) and value in loop and value != loop[k]:
                copy = t.fresh(f"{loop[k]}.next", t.types.get(body.args[k][0], _BOOL))
                _assign(t, value, copy, where)
                value = copy
            staged.append(value)
        for value, target in zip(staged, loop, strict=True):
            if value is not None and value != target:
                _assign(t, value, target, where)
        if yielded[0] is not None:
            _assign(t, yielded[0], cond, where)

    block = t.sub_block(body.ops, before=before, after=after)
    t.add_op("while", {"X": t.outer_reads(block), "Condition": [cond]},
             {"Out": [*loop, cond], "StepScopes": [_scope(t, f"while_{rid}.scopes")]},
             {"sub_block": block.idx, "is_test": True}, where)
    for (result_id, vtype), name in zip(op.results, loop, strict=True):
        t.env[result_id], t.types[result_id] = name, vtype


def _select_input(t: Translator, op: Operation) -> None:
    """pd_op.select_input(%mask, %x...): what Paddle's translator makes of select_input."""
    where = op.where()
    if len(op.operands) < 2 or len(op.results) != 1:
        t.problems.append(f"{where}: a pd_op.select_input needs a mask, inputs and one result")
        for k in range(len(op.results)):
            t.bind_result(op, k)
        return
    values = [t.value(op, i) for i in range(len(op.operands))]
    if any(v is None for v in values):
        return
    mask, *xs = (t.tensor(v, where) for v in values)
    t.add_op("select_input", {"X": xs, "Mask": [mask]}, {"Out": [t.bind_result(op, 0)]}, {},
             where)


CONTROL_FLOW = {"pd_op.if": _if, "pd_op.while": _while, "pd_op.select_input": _select_input}
