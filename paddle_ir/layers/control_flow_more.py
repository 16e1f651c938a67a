"""Fluid 1.7's remaining control flow: Print, while_loop, case, switch_case, IfElse and
StaticRNN, built on the While / cond / gather / scatter layers.

IfElse routes the rows of its inputs where `cond` ([N, 1] bool) holds through the
true block and the others through the false block, then scatters each block's
outputs back into place; both blocks' ops run, each on its own rows (possibly
none). StaticRNN unrolls its step block over the known length of its step
inputs' first dim: the ops built once under `rnn.step()` are copied for every
time step with their variables renamed, the memories chained from step to
step; parameters are shared by all steps.
"""

from __future__ import annotations

import contextlib

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable, default_main_program, default_startup_program, unique_name
from paddle_ir.layers.control_flow import While, assign, cond, equal, logical_not
from paddle_ir.layers.extra_nn import gather, scatter, strided_slice, where
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.layers.tensor import concat, fill_constant
from paddle_ir.layers.tensor_ops import reshape

__all__ = ["IfElse", "Print", "StaticRNN", "case", "switch_case", "while_loop"]


# -- Print -----------------------------------------------------------------------------------

def Print(input: Variable, first_n: int = -1, message: str | None = None,  # noqa: N802, A002
          summarize: int = 20, print_tensor_name: bool = True, print_tensor_type: bool = True,
          print_tensor_shape: bool = True, print_tensor_lod: bool = True,
          print_phase: str = "both") -> Variable:
    """input, printed to stdout when the program runs (the first first_n runs if >= 0)."""
    helper = LayerHelper("print")
    counter_name = unique_name.generate("print_counter")
    counter = default_main_program().global_block().create_var(
        name=counter_name, shape=[1], dtype="int64", persistable=True, stop_gradient=True)
    startup = default_startup_program().global_block()
    init = startup.create_var(name=counter_name, shape=[1], dtype="int64", persistable=True)
    startup.append_op("fill_constant", outputs={"Out": init},
                      attrs={"shape": [1], "value": 0.0, "dtype": 3})
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("print", inputs={"In": input, "Counter": counter},
                     outputs={"Out": out, "CounterOut": counter},
                     attrs={"first_n": int(first_n), "message": message or "",
                            "summarize": int(summarize), "print_tensor_name": print_tensor_name,
                            "print_tensor_type": print_tensor_type,
                            "print_tensor_shape": print_tensor_shape,
                            "print_tensor_lod": print_tensor_lod, "print_phase": print_phase,
                            "tensor_name": input.name})
    return out


# -- while_loop, case, switch_case ----------------------------------------------------------

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


def _case(pairs, default):
    pred, fn = pairs[0]
    if len(pairs) == 1:
        return cond(pred, fn, default)
    return cond(pred, fn, lambda: _case(pairs[1:], default))


def case(pred_fn_pairs, default=None, name=None):
    """The result of the fn of the first pred that holds, else default() (when default is
    None, the last pair's fn serves as the default, as in Fluid)."""
    pairs = list(pred_fn_pairs)
    if not pairs:
        raise ValueError("case: pred_fn_pairs must not be empty")
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], Variable)
                and callable(pair[1])):
            raise TypeError("case: each element of pred_fn_pairs must be a (bool Variable, "
                            "callable) tuple")
    if default is None:
        default = pairs[-1][1]
        pairs = pairs[:-1]
        if not pairs:
            return default()
    return _case(pairs, default)


def switch_case(branch_index: Variable, branch_fns, default=None, name=None):
    """The result of branch_fns[branch_index] (a dict, a list of (index, fn) or a list of
    fns), else default() (None: the branch with the largest index)."""
    if isinstance(branch_fns, dict):
        items = sorted(branch_fns.items())
    else:
        fns = list(branch_fns)
        items = sorted(fns) if fns and isinstance(fns[0], tuple) else list(enumerate(fns))
    keys = [k for k, _ in items]
    if len(set(keys)) != len(keys):
        raise ValueError(f"switch_case: branch indices must be unique, got {keys}")
    pairs = [(equal(branch_index, fill_constant([1], branch_index.dtype, k)), fn)
             for k, fn in items]
    return case(pairs, default, name)


# -- IfElse ----------------------------------------------------------------------------------

class IfElse:
    """Row-wise if/else on an [N, 1] bool cond (Fluid's IfElse):

        ie = layers.IfElse(cond)
        with ie.true_block():
            ie.output(layers.scale(ie.input(x), 2.0))
        with ie.false_block():
            ie.output(ie.input(x) + 1.0)
        out, = ie()
    """

    def __init__(self, cond: Variable, name=None):
        if cond.dtype is None or cond.dtype.kind != "b":
            raise InvalidProgramError(f"IfElse needs a bool cond, got {cond.name!r} of dtype "
                                      f"{cond.dtype}")
        self.cond = cond
        flat = reshape(cond, [-1])
        self._rows = {True: where(flat), False: where(logical_not(flat))}
        self._branch: bool | None = None
        self._outputs: dict[bool, list[Variable]] = {True: [], False: []}

    @contextlib.contextmanager
    def _block(self, branch: bool):
        if self._branch is not None:
            raise InvalidProgramError("IfElse blocks cannot nest")
        if self._outputs[branch]:
            raise InvalidProgramError(f"IfElse.{'true' if branch else 'false'}_block() was "
                                      f"already built")
        self._branch = branch
        try:
            yield
        finally:
            self._branch = None

    def true_block(self):
        return self._block(True)

    def false_block(self):
        return self._block(False)

    def input(self, x: Variable) -> Variable:  # noqa: A003 - Fluid's name
        """The rows of x that this block handles."""
        if self._branch is None:
            raise InvalidProgramError("IfElse.input() must be called inside a true/false block")
        return gather(x, self._rows[self._branch])

    def output(self, *outs: Variable) -> None:
        if self._branch is None:
            raise InvalidProgramError("IfElse.output() must be called inside a true/false "
                                      "block")
        self._outputs[self._branch].extend(outs)

    def __call__(self) -> list[Variable]:
        true, false = self._outputs[True], self._outputs[False]
        if len(true) != len(false):
            raise InvalidProgramError(f"IfElse: the true block outputs {len(true)} values, the "
                                      f"false block {len(false)}")
        from paddle_ir.layers.control_flow import fill_constant_batch_size_like

        merged = []
        for t, f in zip(true, false, strict=True):
            base = fill_constant_batch_size_like(self.cond, [-1] + list(t.shape[1:]), t.dtype,
                                                 0.0)
            out = scatter(base, self._rows[True], t)
            merged.append(scatter(out, self._rows[False], f))
        return merged


def _renamed(args: list[str], names: dict[str, str]) -> list[str]:
    return [names.get(a, a) for a in args]


# -- StaticRNN -------------------------------------------------------------------------------

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
        from paddle_ir.layers.control_flow import fill_constant_batch_size_like

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
