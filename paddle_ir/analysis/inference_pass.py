"""The inference pass of `paddle-ir check` (paddle_ir.analysis.checker): each op's var-type and
shape rules over a fresh program's VarDescs, as appending the op would run them, in time
linear in the program.

Two things keep the per-op cost small and constant. What a rule can read of a variable is
kept per variable until a rule writes it. And rules are pure functions of what they read:
an op's type, slots, attributes and its arguments' type, shape, dtype and lod_level (and
which arguments are the same variable). So a rule's effect (what it declared about its
outputs) is recorded the first time a combination is seen and replayed for every later op
alike: a chain of 10^5 `scale`s runs the rule once per distinct input shape. A run that
read or wrote anything but its own arguments, or failed, is never recorded; ops with
sub-blocks (or an empty argument) always run their rules.
"""

from __future__ import annotations

from paddle_ir.core.attrs import from_attr_proto, to_attr_proto
from paddle_ir.framework.operator import BuildContext, Operator, set_var_desc
from paddle_ir.ops import registry as op_registry
from paddle_ir.ops.context import LOD_TENSOR, VarInfo
from paddle_ir.proto import framework_pb2 as pb

_BLOCK_ATTRS = (pb.BLOCK, pb.BLOCKS)


class CheckContext(BuildContext):
    """BuildContext reading variables through the pass's cache."""

    def __init__(self, op: Operator, attrs: dict, op_idx: int, inference: InferencePass):
        super().__init__(op, attrs, op_idx)
        self.inference = inference
        self._described: dict[str, bool] = {}  # output -> whether the rule gave a lod_level

    def var_info(self, name):
        return VarInfo(*self.inference.facts(self.op.block._var_recursive(name)))

    def _set_var(self, name, shape, dtype, lod_level, var_type):
        self._described[name] = self._described.get(name, False) or lod_level is not None
        self.inference.write(self.op.block._var_recursive(name),
                             (shape, dtype, lod_level, var_type))

    def settle_lod_levels(self) -> None:
        """An output the rule described without a lod_level (no share, no level) has no
        LoD at run time: the executor gives an output a LoD only from a share or from its
        kernel, whose level the rule must declare. A file may declare such an output with a
        LoD (Paddle's op shares one paddle-ir's does not); without this, check would read
        that declaration, pass the sequence op reading it, and run would refuse it."""
        outputs = {n for names in self._outputs.values() for n in names}
        for name, has_level in list(self._described.items()):
            if not has_level and name in outputs and self.var_info(name).var_type == LOD_TENSOR:
                self._set_var(name, None, None, 0, None)


class _Recording(CheckContext):
    """CheckContext that notes each write by argument position, and whether the rule
    touched only its own arguments (else its effect is not replayable)."""

    def __init__(self, op, attrs, op_idx, inference, positions: dict[str, int]):
        super().__init__(op, attrs, op_idx, inference)
        self.positions = positions
        self.writes: list[tuple] = []
        self.replayable = True

    def var_info(self, name):
        self.replayable &= name in self.positions
        return super().var_info(name)

    def _share_lod(self, src, dst):
        self.replayable &= src in self.positions
        super()._share_lod(src, dst)

    def _set_var(self, name, shape, dtype, lod_level, var_type):
        position = self.positions.get(name)
        if position is None:
            self.replayable = False
        else:
            self.writes.append((position, (shape, dtype, lod_level, var_type)))
        super()._set_var(name, shape, dtype, lod_level, var_type)


class InferencePass:
    """Runs (or replays) each op's rules over `fresh`, a program holding the checked
    program's blocks and variables but no ops."""

    def __init__(self, fresh):
        self.fresh = fresh
        self._facts: dict[int, tuple] = {}  # id(Variable) -> (shape, dtype, lod_level, type)
        self._effects: dict[tuple, list[tuple]] = {}  # op signature -> its rules' writes
        self.rule_runs = 0  # how many times rules ran (tests: alike ops share one run)

    def facts(self, var) -> tuple:
        """(shape, dtype, lod_level, var_type) of a fresh Variable, read once per write."""
        found = self._facts.get(id(var))
        if found is None:
            found = self._facts[id(var)] = (var.shape, var.dtype, var.lod_level, var.type)
        return found

    def write(self, var, declared: tuple) -> None:
        """What a rule declared about `var` (None: unchanged), written to its VarDesc unless
        it holds already (a sound program declares what its rules infer: no write)."""
        shape, dtype, lod_level, var_type = declared
        now = self.facts(var)
        if ((var_type is None or var_type == now[3]) and (shape is None or tuple(shape) == now[0])
                and (dtype is None or (now[1] is not None and dtype == now[1]))
                and (lod_level is None or lod_level == now[2])):
            return
        self._facts.pop(id(var), None)
        set_var_desc(var, *declared)

    def infer(self, b: int, i: int, op: pb.OpDesc, attrs: dict, shape_key: tuple) -> None:
        """Apply the op's rules; a rule's failure raises its PaddleIRError."""
        opdef = op_registry.get_op_def(op.type)
        block = self.fresh.block(b)
        names = [n for v in op.inputs for n in v.arguments]
        names += [n for v in op.outputs for n in v.arguments]
        if "" in names or any(a.type in _BLOCK_ATTRS for a in op.attrs):
            self.rule_runs += 1
            context = CheckContext(Operator(block, op), dict(attrs), i, self)
            opdef.infer(context)
            if not _writes_through_scope(opdef):
                context.settle_lod_levels()
            return
        positions: dict[str, int] = {}
        for name in names:
            positions.setdefault(name, len(positions))
        variables = [block._var_recursive(n) for n in positions]
        # Which arguments alias, and what each distinct one is: all a rule can see.
        key = (shape_key, tuple(positions[n] for n in names),
               tuple(self.facts(var) for var in variables))
        writes = self._effects.get(key)
        if writes is not None:
            for position, declared in writes:
                self.write(variables[position], declared)
            return
        # A view of the op as if appended to the fresh block: rules read its slots and the
        # block's variables, never other ops, so the op itself is not copied in.
        context = _Recording(Operator(block, op), dict(attrs), i, self, positions)
        self.rule_runs += 1
        opdef.infer(context)
        if not _writes_through_scope(opdef):
            context.settle_lod_levels()
        if context.replayable:
            self._effects[key] = context.writes


def _writes_through_scope(opdef) -> bool:
    """Control-flow ops write their outputs through the scope, LoD included, unchecked
    against their rules: what a file declares for those outputs stands."""
    return any(kernel.control for kernel in opdef.kernels.values())


_DEFAULTS: dict[tuple[str, str], object] = {}


def default_value(opdef, spec):
    """An attribute's default as the rules see it in an appended op: written to an
    AttrProto and read back (an int default of a float attribute comes back a float)."""
    key = (opdef.type, spec.name)
    if key not in _DEFAULTS:
        _DEFAULTS[key] = from_attr_proto(to_attr_proto(spec.name, spec.kind, spec.default))
    return _DEFAULTS[key]
