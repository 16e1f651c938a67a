"""recurrent: Fluid's StaticRNN as one op (Paddle's recurrent_op.cc), a step block run once
per time step over sequences [T, ...].

For step t = 0 .. T-1 (offset o = T-1-t when `reverse`, else t), in a new step scope:

    each variable x of `inputs`   inside = outside x[o]   (the block's variable of the
                                  same name, the time dim dropped)
    with `has_states`, each pair (ex_states[k], states[k]):
                                  ex_states[k] = initial_states[k]        at t = 0
                                  ex_states[k] = states[k] of step t - 1  after
    run `sub_block`
    each variable y of `outputs`  outside y[o] = inside y (stacked to [T, ...])

`parameters` lists the enclosing variables the block reads as they are (weights); the
block reads them by name. `step_scopes` receives the steps' scopes (kept when
`is_train`, for a gradient). Paddle 1.x's StaticRNN writes this op; paddle-ir's own
StaticRNN unrolls the steps or builds a While (layers/control_flow/static_rnn.py), so
the op is here for programs Paddle saved.

recurrent_grad runs the grad block of the step block (built by append_backward) once
per step, last step first, each in a child of that step's kept scope:

    seed   y@GRAD = outputs@GRAD[o] for each output y; for each state, its gradient
           from the later step (that step's ex_state@GRAD) added to it
    then   inputs@GRAD[o] = x@GRAD;  parameters@GRAD summed over the steps;
           the ex_states' gradients go to the earlier step's states, and from step 0 to
           initial_states@GRAD
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.errors import KernelError, ProgramError
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.core.step_scopes import StepScopes
from paddle_ir.ops.context import STEP_SCOPES
from paddle_ir.ops.controlflow.control_common import (
    infer_grad_shapes_like,
    infer_grad_types_like,
    run_grad_block,
)
from paddle_ir.ops.controlflow.tensor_array import accumulate, zeros_like
from paddle_ir.ops.grad import GRAD_SUFFIX, grad_name
from paddle_ir.ops.registry import Attr, In, Out, register_op

_CONTROL_DTYPES = [np.float32]  # no key inputs: the executor asks for float32

recurrent = register_op(
    "recurrent",
    inputs=[In("inputs", "sequences [T, ...], sliced per step", duplicable=True,
               dispensable=True),
            In("initial_states", "the states before step 0", duplicable=True,
               dispensable=True),
            In("parameters", "enclosing variables the step block reads as they are",
               duplicable=True, dispensable=True)],
    outputs=[Out("outputs", "[T, ...] the steps' values stacked", duplicable=True,
                 dispensable=True),
             Out("step_scopes", "the steps' scopes", dispensable=True)],
    attrs=[Attr("sub_block", "block", doc="the step block"),
           Attr("ex_states", "strings", [], "block variables holding the previous states"),
           Attr("states", "strings", [], "block variables holding the new states"),
           Attr("has_states", "bool", False, "whether states link the steps"),
           Attr("reverse", "bool", False, "run the steps last to first"),
           Attr("is_train", "bool", True, "keep the steps' scopes")],
    key_inputs=[],
    doc=__doc__,
)


@recurrent.infer_var_type
def _(ctx):
    ctx.set_output_type("step_scopes", STEP_SCOPES)  # outputs keep the types declared


@recurrent.infer_shape
def _(ctx):
    ex_states, states = list(ctx.attr("ex_states")), list(ctx.attr("states"))
    ctx.enforce(len(ex_states) == len(states),
                lambda: f"ex_states {ex_states} and states {states} must pair up")
    if ctx.attr("has_states"):
        count = ctx.input_count("initial_states")
        ctx.enforce(count == len(states),
                    lambda: f"initial_states must give one value per state ({len(states)}: "
                    f"{states}), got {count}")
    ctx.enforce(ctx.input_count("inputs") > 0, "inputs must hold at least one sequence "
                                               "(its first dim is the number of steps)")
    lengths = set()
    for shape in ctx.input_shapes("inputs"):
        ctx.enforce(len(shape) >= 1, "every input must be a sequence [T, ...], got a "
                                     "0-D value")
        if shape[0] >= 0:
            lengths.add(shape[0])
    ctx.enforce(len(lengths) <= 1, lambda: f"inputs must share their number of steps, got "
                                   f"{sorted(lengths)}")


def _array(value, what: str) -> np.ndarray:
    if value is None:
        raise KernelError(f"recurrent: {what} has no value")
    return value.numpy() if isinstance(value, LoDTensor) else np.asarray(value)


@recurrent.kernel(storage=[], dtypes=_CONTROL_DTYPES, control=True)
def recurrent_kernel(ctx, attrs, inputs, initial_states, parameters):
    in_names = ctx.input_names("inputs")
    sequences = [_array(ctx.value(n), f"input {n!r}") for n in in_names]
    steps = sequences[0].shape[0]
    for name, seq in zip(in_names, sequences, strict=True):
        if seq.ndim == 0 or seq.shape[0] != steps:
            raise KernelError(f"recurrent: input {name!r} has shape {list(seq.shape)}; every "
                              f"input must have {steps} steps along its first dim")
    ex_states, states = list(attrs["ex_states"]), list(attrs["states"])
    linked = attrs["has_states"]
    out_names = ctx.output_names("outputs")
    stacked: dict[str, list] = {n: [None] * steps for n in out_names}
    kept = StepScopes()
    previous = None
    for t in range(steps):
        ctx.count_loop_step()
        offset = steps - 1 - t if attrs["reverse"] else t
        scope = ctx.new_scope()
        for name, seq in zip(in_names, sequences, strict=True):
            scope.var(name).value = LoDTensor(seq[offset])
        if linked:
            sources = ([ctx.value(n) for n in ctx.input_names("initial_states")] if t == 0
                       else [previous.find_var(s).value for s in states])
            for ex, value in zip(ex_states, sources, strict=True):
                if value is None:
                    raise KernelError(f"recurrent: the state feeding {ex!r} at step {t} has "
                                      f"no value (does the step block write "
                                      f"{states[ex_states.index(ex)]!r}?)")
                scope.var(ex).value = value
        ctx.run_block(attrs["sub_block"], scope, keep_locals=True)
        for name in out_names:
            holder = scope.find_var(name)
            stacked[name][offset] = _array(None if holder is None else holder.value,
                                           f"output {name!r} of step {t}")
        if attrs["is_train"]:
            kept.append(scope)
        previous = scope
    for name in out_names:
        parts = stacked[name]
        if any(p.shape != parts[0].shape for p in parts):
            raise KernelError(f"recurrent: output {name!r} changes shape between steps: "
                              f"{sorted({tuple(p.shape) for p in parts})}")
        ctx.scope.var(name).value = LoDTensor(np.stack(parts) if parts else np.zeros((0,)))
    for name in ctx.output_names("step_scopes"):
        ctx.scope.var(name).value = kept


@recurrent.grad_maker
def _(g):
    if not g.attr("is_train"):
        raise ProgramError("a recurrent op with is_train=False keeps no step scopes, so no "
                           "gradient can flow through it")
    ex_states = list(g.attr("ex_states")) if g.attr("has_states") else []
    states = list(g.attr("states")) if g.attr("has_states") else []
    grads = g.grad_sub_block("sub_block", seeded=states, read=ex_states)
    produced = set(grads.input_grads)

    def wanted(slot: str, inner: list[str]) -> list[str]:
        asked = g.input_grad(slot) or [""] * len(g.input(slot))
        if len(inner) != len(asked):  # initial_states without has_states: not linked
            inner = [""] * len(asked)
        return [grad_name(outer) if name and block_name in produced else ""
                for outer, block_name, name in zip(g.input(slot), inner, asked, strict=True)]

    outputs = {"inputs@GRAD": wanted("inputs", g.input("inputs")),
               "initial_states@GRAD": wanted("initial_states", ex_states),
               "parameters@GRAD": wanted("parameters", g.input("parameters"))}
    if not any(n for names in outputs.values() for n in names):
        return []
    out_grads = [grad_name(n) for n in g.output("outputs") if g.has_output_grad(n)]
    return [g.grad_op(
        "recurrent_grad",
        inputs={"inputs": g.input("inputs"), "initial_states": g.input("initial_states"),
                "parameters": g.input("parameters"), "outputs@GRAD": out_grads,
                "step_scopes": g.output("step_scopes")},
        outputs=outputs,
        attrs={"sub_block": grads.block_idx, "output_grads": grads.output_grads,
               "input_grads": grads.input_grads, "ex_states": ex_states, "states": states,
               "reverse": g.attr("reverse")})]


recurrent_grad = register_op(
    "recurrent_grad",
    inputs=[In("inputs", duplicable=True, dispensable=True),
            In("initial_states", duplicable=True, dispensable=True),
            In("parameters", duplicable=True, dispensable=True),
            In("outputs@GRAD", "gradients of the stacked outputs", duplicable=True,
               dispensable=True),
            In("step_scopes", "the forward op's step scopes")],
    outputs=[Out("inputs@GRAD", duplicable=True, dispensable=True),
             Out("initial_states@GRAD", duplicable=True, dispensable=True),
             Out("parameters@GRAD", duplicable=True, dispensable=True)],
    attrs=[Attr("sub_block", "block", doc="the grad block of the step block"),
           Attr("output_grads", "strings", [], "variables w whose w@GRAD the grad block reads"),
           Attr("input_grads", "strings", [], "variables x whose x@GRAD the grad block writes"),
           Attr("ex_states", "strings", []), Attr("states", "strings", []),
           Attr("reverse", "bool", False)],
    key_inputs=[],
    doc=__doc__,
)


@recurrent_grad.infer_var_type
def _(ctx):
    for slot in ("inputs", "initial_states", "parameters"):
        infer_grad_types_like(ctx, slot, slot + "@GRAD")


@recurrent_grad.infer_shape
def _(ctx):
    for slot in ("inputs", "initial_states", "parameters"):
        infer_grad_shapes_like(ctx, slot, slot + "@GRAD")


@recurrent_grad.kernel(storage=[], dtypes=_CONTROL_DTYPES, control=True)
def recurrent_grad_kernel(ctx, attrs, inputs, initial_states, parameters, out_grads, scopes):
    steps = len(scopes)
    given = {n[: -len(GRAD_SUFFIX)]: _array(ctx.value(n), f"gradient {n!r}")
             for n in ctx.input_names("outputs@GRAD")}
    ex_states, states = list(attrs["ex_states"]), list(attrs["states"])
    in_names, param_names = ctx.input_names("inputs"), ctx.input_names("parameters")
    sliced = {x: [None] * steps for x in in_names}
    summed: dict = {}
    carry: dict = {}
    for t in reversed(range(steps)):
        offset = steps - 1 - t if attrs["reverse"] else t
        seeds = {y: LoDTensor(g[offset]) for y, g in given.items()}
        for ex, state in zip(ex_states, states, strict=True):
            if carry.get(ex) is not None:
                seeds[state] = accumulate(seeds.get(state), carry[ex])
        grads = run_grad_block(ctx, attrs["sub_block"], scopes[t], attrs["output_grads"],
                               attrs["input_grads"], seeds)
        carry = {ex: grads.get(ex) for ex in ex_states}
        for x in in_names:
            value = grads.get(x)
            sliced[x][offset] = (_array(value, x) if value is not None else
                                 np.zeros_like(_array(scopes[t].find_var(x).value, x)))
        for p in param_names:
            if grads.get(p) is not None:
                summed[p] = accumulate(summed.get(p), grads[p])
    for x, name in zip(in_names, ctx.output_names("inputs@GRAD"), strict=False):
        if name:
            ctx.scope.var(name).value = LoDTensor(np.stack(sliced[x]))
    for k, name in enumerate(ctx.output_names("initial_states@GRAD")):
        if name:
            value = carry.get(ex_states[k])
            init = ctx.value(ctx.input_names("initial_states")[k])
            ctx.scope.var(name).value = zeros_like(init) if value is None else value
    for p, name in zip(param_names, ctx.output_names("parameters@GRAD"), strict=False):
        if name:
            value = summed.get(p)
            ctx.scope.var(name).value = zeros_like(ctx.value(p)) if value is None else value
