"""Loops of Fluid 1.7's layers.control_flow: While, while_loop and StaticRNN.

    i = layers.fill_constant([1], "int64", 0)
    n = layers.fill_constant([1], "int64", 10)
    total = layers.fill_constant([1], "float32", 0.0)
    c = layers.less_than(i, n)
    loop = layers.While(c)
    with loop.block():                     # ops built here go into the loop body
        layers.assign(total + layers.cast(i, "float32"), output=total)
        layers.increment(i, in_place=True)
        layers.less_than(i, n, cond=c)     # the body rewrites its condition

A body is a sub-block: it reads and writes the enclosing blocks' variables by
name, and its own temporaries stay in the step's scope. When the `with` block
closes, the op that runs the body is appended to the enclosing block, listing
as X the enclosing variables the body reads before writing them and as Out
those it writes (block_dataflow). Build-time inference runs inside the body as
anywhere else.

StaticRNN unrolls its step block over the known length of its step inputs' first
dim: the ops built once under `rnn.step()` are copied for every time step with their
variables renamed, the memories chained from step to step; parameters are shared by
all steps.
"""

from __future__ import annotations

import contextlib

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Block, Variable, VarType, default_main_program, unique_name
from paddle_ir.layers.helper import LayerHelper, _sub_block
from paddle_ir.layers.nn.shapes import reshape, strided_slice
from paddle_ir.layers.tensor import assign, concat, fill_constant_batch_size_like

__all__ = ["StaticRNN", "While", "block_dataflow", "while_loop"]


def block_dataflow(body: Block) -> tuple[list[str], list[str]]:
    """(reads, writes) of a sub-block: the enclosing blocks' variables it reads before
    writing them, and those it writes, in first-use order."""
    reads, writes, written = {}, {}, set()
    for op in body.ops:
        for n in op.input_arg_names:
            if n not in written and not body.has_var(n):
                reads[n] = None
        for n in op.output_arg_names:
            written.add(n)
            if not body.has_var(n):
                writes[n] = None
    return list(reads), list(writes)


class While:
    """A loop: `with loop.block():` builds the body, run while `cond` holds.

    The body must rewrite `cond` (e.g. `less_than(i, n, cond=cond)`). With
    `is_test` the steps' scopes are not kept (no backward pass through it).
    """

    def __init__(self, cond: Variable, is_test: bool = False, name: str | None = None):
        if cond.dtype is None or cond.dtype.kind != "b":
            raise InvalidProgramError(f"While needs a bool condition, got {cond.name!r} of "
                                      f"dtype {cond.dtype}",
                                      hint="build it with layers.less_than or a comparison")
        self.cond = cond
        self.is_test = is_test
        self.helper = LayerHelper("while", name)
        self.body: Block | None = None

    @contextlib.contextmanager
    def block(self):
        if self.body is not None:
            raise InvalidProgramError("While.block() can be entered only once")
        with _sub_block() as (parent, body):
            self.body = body
            yield
        self._complete(parent, body)

    def _complete(self, parent: Block, body: Block) -> None:
        reads, writes = block_dataflow(body)
        if self.cond.name not in writes:
            raise InvalidProgramError(
                f"the body of the While loop never writes its condition {self.cond.name!r}, "
                f"so the loop would not end",
                hint=f"end the body with e.g. layers.less_than(i, n, cond={self.cond.name})")
        step_scopes = parent.create_var(name=unique_name.generate(self.helper.name +
                                                                  ".step_scopes"),
                                        type=VarType.STEP_SCOPES, stop_gradient=True)
        parent.append_op("while",
                         inputs={"X": [n for n in reads if n != self.cond.name],
                                 "Condition": self.cond},
                         outputs={"Out": writes, "StepScopes": step_scopes},
                         attrs={"sub_block": body.idx, "is_test": self.is_test})


def while_loop(cond, body, loop_vars, is_test: bool = False, name=None):
    """Run body(*loop_vars) while cond(*loop_vars) holds; body returns the new loop_vars.

    The loop variables are updated in place (the returned list holds them).
    """
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop: cond and body must be callables")
    loop_vars = list(loop_vars) if isinstance(loop_vars, (list, tuple)) else [loop_vars]
    if not loop_vars:
        raise ValueError("while_loop: loop_vars must not be empty")
    pre_cond = cond(*loop_vars)
    if not isinstance(pre_cond, Variable) or pre_cond.dtype.kind != "b":
        raise TypeError("while_loop: cond must return a bool Variable")
    loop = While(pre_cond, is_test=is_test, name=name)
    with loop.block():
        outputs = body(*loop_vars)
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        if len(outputs) != len(loop_vars):
            raise ValueError(f"while_loop: body returns {len(outputs)} values for "
                             f"{len(loop_vars)} loop_vars")
        for new, old in zip(outputs, loop_vars, strict=True):
            if new is not old:
                assign(new, output=old)
        assign(cond(*loop_vars), output=pre_cond)
    return loop_vars


def _renamed(args: list[str], names: dict[str, str]) -> list[str]:
    return [names.get(a, a) for a in args]


class StaticRNN:
    """An RNN over [T, ...] step inputs with T known when the program is built.

        rnn = layers.StaticRNN()
        with rnn.step():
            word = rnn.step_input(x)                  # x: [T, B, D] -> word: [B, D]
            prev = rnn.memory(shape=[-1, H], batch_ref=word)
            hidden = layers.fc([word, prev], H, act="relu")
            rnn.update_memory(prev, hidden)
            rnn.step_output(hidden)
        out = rnn()                                   # [T, B, H]
    """

    def __init__(self, name=None):
        self._name = name or unique_name.generate("static_rnn")
        self._body = None
        self._parent = None
        self._inputs: list[tuple[Variable, Variable]] = []  # (placeholder, [T, ...] source)
        self._memories: dict[str, dict] = {}
        self._outputs: list[Variable] = []
        self._results: list[Variable] | None = None
        self._seq_len: int | None = None

    @contextlib.contextmanager
    def step(self):
        if self._body is not None:
            raise InvalidProgramError("StaticRNN.step() can be entered only once")
        program = default_main_program()
        self._parent = program.current_block()
        self._body = program._create_block()
        try:
            yield
        finally:
            program._rollback()
        self._unroll(program)

    def _require_step(self, what: str) -> None:
        if self._body is None or self._results is not None:
            raise InvalidProgramError(f"StaticRNN.{what}() must be called inside rnn.step()")

    def step_input(self, x: Variable) -> Variable:
        self._require_step("step_input")
        if not x.shape or x.shape[0] < 0:
            raise InvalidProgramError(f"StaticRNN.step_input: {x.name} must have a known first "
                                      f"dim (the sequence length), got shape {list(x.shape)}")
        if self._seq_len is None:
            self._seq_len = x.shape[0]
        elif self._seq_len != x.shape[0]:
            raise InvalidProgramError(f"StaticRNN: step inputs have lengths {self._seq_len} and "
                                      f"{x.shape[0]}")
        placeholder = self._body.create_var(name=unique_name.generate(self._name + ".x"),
                                            shape=x.shape[1:], dtype=x.dtype)
        self._inputs.append((placeholder, x))
        return placeholder

    def memory(self, init: Variable | None = None, shape=None, batch_ref: Variable | None = None,
               init_value: float = 0.0, init_batch_dim_idx: int = 0,
               ref_batch_dim_idx: int = 1) -> Variable:
        """The state carried between steps: `init`, or init_value of `shape` with the batch
        dim of batch_ref."""
        self._require_step("memory")
        if init is None and (shape is None or batch_ref is None):
            raise InvalidProgramError("StaticRNN.memory needs init, or shape and batch_ref")
        like = init if init is not None else batch_ref
        mem_shape = init.shape if init is not None else tuple(shape)
        placeholder = self._body.create_var(name=unique_name.generate(self._name + ".mem"),
                                            shape=mem_shape, dtype=like.dtype)
        self._memories[placeholder.name] = {
            "var": placeholder, "init": init, "shape": shape, "batch_ref": batch_ref,
            "value": init_value, "init_idx": init_batch_dim_idx, "ref_idx": ref_batch_dim_idx,
            "new": None}
        return placeholder

    def update_memory(self, mem: Variable, var: Variable) -> None:
        self._require_step("update_memory")
        if mem.name not in self._memories:
            raise InvalidProgramError(f"StaticRNN.update_memory: {mem.name} is not a memory")
        self._memories[mem.name]["new"] = var

    def step_output(self, o: Variable) -> None:
        self._require_step("step_output")
        self._outputs.append(o)

    output = step_output

    def __call__(self):
        if self._results is None:
            raise InvalidProgramError("StaticRNN: build the step with `with rnn.step():` first")
        return self._results[0] if len(self._results) == 1 else self._results

    # -- unrolling ---------------------------------------------------------------------
    def _initial(self, mem: dict) -> Variable:
        if mem["init"] is not None:
            return mem["init"]
        ref = mem["batch_ref"]
        if ref.block is self._body:  # a step input: its source has the batch at dim 1
            ref = next(src for ph, src in self._inputs if ph is ref)
            idx = mem["ref_idx"]
        else:
            idx = 0 if mem["ref_idx"] >= len(ref.shape) else mem["ref_idx"]
        return fill_constant_batch_size_like(ref, list(mem["shape"]), mem["var"].dtype,
                                             mem["value"], input_dim_idx=idx,
                                             output_dim_idx=mem["init_idx"])

    def _unroll(self, program) -> None:
        body = self._body
        if program.num_blocks - 1 != body.idx:
            raise InvalidProgramError("StaticRNN: the step block cannot hold sub-blocks "
                                      "(cond, While) in this unrolled implementation")
        if self._seq_len is None:
            raise InvalidProgramError("StaticRNN needs at least one step_input")
        for mem in self._memories.values():
            if mem["new"] is None:
                raise InvalidProgramError(f"StaticRNN: memory {mem['var'].name} is never "
                                          f"updated (call rnn.update_memory)")
        ops = list(body.ops)
        local = {n: v for n, v in body.vars.items()}
        placeholders = {ph.name for ph, _ in self._inputs} | set(self._memories)
        # Remove the recording block: its ops are re-created, unrolled, in the parent.
        program.blocks.pop()
        del program.desc.blocks[-1]
        program._bump()
        state = {name: self._initial(mem) for name, mem in self._memories.items()}
        per_step: list[list[Variable]] = []
        for t in range(self._seq_len):
            names: dict[str, str] = {}
            for ph, src in self._inputs:
                piece = strided_slice(src, [0], [t], [t + 1], [1])
                names[ph.name] = reshape(piece, list(src.shape[1:])).name
            for name in self._memories:
                names[name] = state[name].name
            for op in ops:
                for n in op.output_arg_names:
                    if n in local and n not in placeholders and n not in names:
                        var = local[n]
                        new = self._parent.create_var(
                            name=unique_name.generate(f"{n}@step{t}"), shape=var.shape,
                            dtype=var.dtype, lod_level=var.lod_level, type=var.type)
                        names[n] = new.name
                self._parent.append_op(
                    op.type, inputs={s: _renamed(op.input(s), names) for s in op.input_names},
                    outputs={s: _renamed(op.output(s), names) for s in op.output_names},
                    attrs=op.attrs)
            for name, mem in self._memories.items():
                state[name] = self._parent.var(names.get(mem["new"].name, mem["new"].name))
            per_step.append([self._parent.var(names.get(o.name, o.name))
                             for o in self._outputs])
        self._results = []
        for k in range(len(self._outputs)):
            stacked = [reshape(step[k], [1] + list(step[k].shape)) for step in per_step]
            self._results.append(concat(stacked, axis=0))
        self._body = None
