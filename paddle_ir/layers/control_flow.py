"""Control flow in Paddle Fluid's style: While, ConditionalBlock, cond, Switch, and the
small ops loops are made of (comparisons, increment, tensor arrays, assign).

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
those it writes. Build-time inference runs inside the body as anywhere else.
"""

from __future__ import annotations

import contextlib

import numpy as np

from paddle_ir.core.dtypes import convert_dtype, from_numpy_dtype
from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Block, Variable, VarType, default_main_program, unique_name
from paddle_ir.layers.helper import LayerHelper

# -- comparisons and logic ------------------------------------------------------------------


def _compare(op_type: str, x: Variable, y: Variable, cond: Variable | None) -> Variable:
    helper = LayerHelper(op_type)
    if cond is None:
        cond = helper.create_variable_for_type_inference("bool", stop_gradient=True)
    helper.append_op(op_type, inputs={"X": x, "Y": y}, outputs={"Out": cond})
    return cond


def less_than(x, y, force_cpu=None, cond=None) -> Variable:
    """x < y as bool; `cond` names the variable to write (a loop condition)."""
    return _compare("less_than", x, y, cond)


def less_equal(x, y, cond=None) -> Variable:
    return _compare("less_equal", x, y, cond)


def greater_than(x, y, cond=None) -> Variable:
    return _compare("greater_than", x, y, cond)


def greater_equal(x, y, cond=None) -> Variable:
    return _compare("greater_equal", x, y, cond)


def equal(x, y, cond=None) -> Variable:
    return _compare("equal", x, y, cond)


def not_equal(x, y, cond=None) -> Variable:
    return _compare("not_equal", x, y, cond)


def logical_and(x, y, out=None) -> Variable:
    return _compare("logical_and", x, y, out)


def logical_or(x, y, out=None) -> Variable:
    return _compare("logical_or", x, y, out)


def logical_xor(x, y, out=None) -> Variable:
    return _compare("logical_xor", x, y, out)


def logical_not(x, out=None) -> Variable:
    helper = LayerHelper("logical_not")
    if out is None:
        out = helper.create_variable_for_type_inference("bool", stop_gradient=True)
    helper.append_op("logical_not", inputs={"X": x}, outputs={"Out": out})
    return out


def increment(x: Variable, value: float = 1.0, in_place: bool = True) -> Variable:
    """x + value for a one-element counter; with in_place, written back to x."""
    helper = LayerHelper("increment")
    out = x if in_place else helper.create_variable_for_type_inference(x.dtype,
                                                                       stop_gradient=True)
    helper.append_op("increment", inputs={"X": x}, outputs={"Out": out},
                     attrs={"step": float(value)})
    return out


def assign(input, output: Variable | None = None) -> Variable:  # noqa: A002 - Paddle's name
    """A copy of `input` (a tensor or a tensor array), into `output` when given.

    A numpy array `input` (Fluid 1.x takes one) becomes an assign_value constant of
    its dtype (float64 as float32, as Fluid does).
    """
    if isinstance(input, np.ndarray):
        from paddle_ir.layers.tensor_more import assign_value

        value = assign_value(input)
        if output is None:
            return value
        input = value  # noqa: A001 - then copied into output below
    helper = LayerHelper("assign")
    if output is None:
        output = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("assign", inputs={"X": input}, outputs={"Out": output})
    return output


def fill_constant_batch_size_like(input, shape, dtype, value, input_dim_idx: int = 0,  # noqa: A002
                                  output_dim_idx: int = 0) -> Variable:
    """`value` everywhere, of `shape` with the batch dim taken from `input`."""
    helper = LayerHelper("fill_constant_batch_size_like")
    dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("fill_constant_batch_size_like", inputs={"Input": input},
                     outputs={"Out": out},
                     attrs={"shape": [int(d) for d in shape], "dtype": from_numpy_dtype(dtype),
                            "value": float(value), "input_dim_idx": input_dim_idx,
                            "output_dim_idx": output_dim_idx})
    return out


# -- tensor arrays --------------------------------------------------------------------------


def create_array(dtype="float32") -> Variable:
    """An empty tensor array (elements of `dtype`), created when the program runs."""
    helper = LayerHelper("array")
    dtype = convert_dtype(dtype)
    array = helper.block.create_var(name=unique_name.generate("array"), dtype=dtype,
                                    type=VarType.LOD_TENSOR_ARRAY)
    helper.append_op("create_array", outputs={"Out": array},
                     attrs={"dtype": from_numpy_dtype(dtype)})
    return array


def array_write(x: Variable, i: Variable, array: Variable | None = None) -> Variable:
    """`array` with element i set to x (a new array when None); returns the array."""
    helper = LayerHelper("array_write")
    inputs = {"X": x, "I": i}
    if array is None:
        array = helper.block.create_var(name=unique_name.generate("array"), dtype=x.dtype,
                                        type=VarType.LOD_TENSOR_ARRAY)
    else:
        inputs["Array"] = array
    helper.append_op("array_write", inputs=inputs, outputs={"Out": array})
    return array


def array_read(array: Variable, i: Variable) -> Variable:
    """Element i of `array`, with its LoD."""
    helper = LayerHelper("array_read")
    out = helper.create_variable_for_type_inference(array.dtype)
    helper.append_op("array_read", inputs={"X": array, "I": i}, outputs={"Out": out})
    return out


def array_length(array: Variable) -> Variable:
    """The number of elements of `array`, an int64 [1] tensor."""
    helper = LayerHelper("array_length")
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("array_length", inputs={"X": array}, outputs={"Out": out})
    return out


# -- sub-blocks -----------------------------------------------------------------------------


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


@contextlib.contextmanager
def _sub_block():
    program = default_main_program()
    parent = program.current_block()
    body = program._create_block()
    try:
        yield parent, body
    finally:
        program._rollback()


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


class ConditionalBlock:
    """`with ConditionalBlock(cond).block():` builds ops that run only when cond holds."""

    def __init__(self, cond: Variable, name: str | None = None):
        self.cond = cond
        self.helper = LayerHelper("conditional_block", name)

    @contextlib.contextmanager
    def block(self):
        with _sub_block() as (parent, body):
            yield
        reads, writes = block_dataflow(body)
        scope = parent.create_var(name=unique_name.generate(self.helper.name + ".scope"),
                                  type=VarType.STEP_SCOPES, stop_gradient=True)
        parent.append_op("conditional_block",
                         inputs={"Cond": self.cond, "Input": reads},
                         outputs={"Out": writes, "Scope": scope},
                         attrs={"sub_block": body.idx, "is_scalar_condition": True})


def _as_list(value) -> tuple[list, bool]:
    if value is None:
        return [], False
    if isinstance(value, (list, tuple)):
        return list(value), True
    return [value], False


def cond(pred: Variable, true_fn=None, false_fn=None, name: str | None = None):
    """true_fn() if pred else false_fn(), deciding when the program runs.

    Each function builds its branch's ops (in a sub-block that runs only when
    its condition holds) and returns a Variable, a list/tuple of them, or
    None; both must return the same number of values, which are copied into
    variables of the enclosing block and returned.
    """
    not_pred = logical_not(pred)
    results: list[Variable] = []
    shapes = []
    for fn, condition, branch in ((true_fn, pred, "true_fn"), (false_fn, not_pred, "false_fn")):
        if fn is None:
            shapes.append((0, False))
            continue
        block = ConditionalBlock(condition, name)
        with block.block():
            values, is_seq = _as_list(fn())
            if not results:
                results = [_outer_result(v) for v in values]
            if len(values) != len(results):
                raise InvalidProgramError(
                    f"cond: true_fn returns {len(results)} value(s), but {branch} returns "
                    f"{len(values)}", hint="both branches must return the same structure")
            for value, result in zip(values, results, strict=True):
                assign(value, output=result)
        shapes.append((len(values), is_seq))
    if true_fn is not None and false_fn is not None and shapes[0][0] != shapes[1][0]:
        raise InvalidProgramError(f"cond: true_fn returns {shapes[0][0]} value(s), but "
                                  f"false_fn returns {shapes[1][0]}")
    if not results:
        return None
    is_seq = shapes[0][1] if true_fn is not None else shapes[1][1]
    return results if is_seq else results[0]


def _outer_result(value: Variable) -> Variable:
    """A variable of the block enclosing the branch, to carry a branch's result out."""
    program = default_main_program()
    outer = program.block(program.current_block().parent_idx)
    if not isinstance(value, Variable):
        raise InvalidProgramError(f"cond: a branch must return Variables, got "
                                  f"{type(value).__name__}")
    return outer.create_var(name=unique_name.generate("cond.out"), shape=value.shape,
                            dtype=value.dtype, lod_level=value.lod_level, type=value.type)


class Switch:
    """The first case whose condition holds runs, else `default()` (Paddle's Switch).

        with layers.Switch() as switch:
            with switch.case(step < warmup):
                layers.assign(lr_warm, output=lr)
            with switch.default():
                layers.assign(lr_base, output=lr)
    """

    def __init__(self, name: str | None = None):
        self.name = name
        self._none_before: Variable | None = None  # no earlier case held
        self._inside = False

    def __enter__(self):
        self._inside = True
        return self

    def __exit__(self, *exc):
        self._inside = False
        return False

    @contextlib.contextmanager
    def case(self, condition: Variable):
        if not self._inside:
            raise InvalidProgramError("Switch.case() must be used inside `with Switch() as s:`")
        if self._none_before is None:
            runs = condition
            self._none_before = logical_not(condition)
        else:
            runs = logical_and(self._none_before, condition)
            self._none_before = logical_and(self._none_before, logical_not(condition))
        with ConditionalBlock(runs, self.name).block():
            yield

    @contextlib.contextmanager
    def default(self):
        if self._none_before is None:
            raise InvalidProgramError("Switch.default() needs at least one case before it")
        with ConditionalBlock(self._none_before, self.name).block():
            yield


def __getattr__(name: str):
    # a layer Fluid 1.x defines in this module but paddle-ir elsewhere (fluid_layout.py)
    from paddle_ir.layers.fluid_layout import attribute

    return attribute(__name__, name)
