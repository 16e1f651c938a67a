"""Load-time passes on inference programs: fewer, cheaper ops with the same results.

`optimize_inference(program, scope, keep)` returns a rewritten copy of an
inference program (see `is_inference`); any other program comes back as it is.
In order:

- dropout in test mode: `upscale_in_train` is the identity and goes;
  `downgrade_in_infer` (Out = X * (1 - p)) becomes a `scale` op;
- identity `scale` (scale 1, bias 0, no ScaleTensor) and `assign` go: their
  readers read X instead of Out;
- `batch_norm` in inference mode (global statistics) and `affine_channel`
  after a `conv2d` / `depthwise_conv2d` (NCHW) fold into the convolution: with
  s = Scale / sqrt(Variance + epsilon) (affine_channel: s = Scale),

      Filter'[o] = Filter[o] * s[o]      b' = Bias - Mean * s   (affine_channel: Bias)

  and the normalisation becomes `elementwise_add(conv, b', axis=1)`. The folded
  values are computed in float64 and stored in `scope` under new persistable
  names (`<filter>.bn_folded`, `<Y>.bn_folded_bias`); the originals the
  program no longer reads are erased from `scope`.

- a channel shuffle written as ops (ShuffleNet's `reshape2` of [N, C, H, W] to
  [N, g, C/g, H, W], `transpose2` of axes 1 and 2, `reshape2` back) becomes one
  `channel_shuffle` (ops/nn/pixel_shuffle.py): one op and one copy (ShuffleNet
  v2 x0.5: 6.5 -> 5.9 ms a run, CPU time, the same bits).

- ops that read no feed (a `fill_constant`, the `shape` of a parameter, ...)
  run once and become persistable values in `scope` (passes/precompute.py);
- with values in `scope`: a convolution's bias carried into the 1x1 convolution
  that alone reads it (passes/pointwise_bias.py), then 1x1 filters stored in
  `scope` with the memory their GEMM reads fastest (passes/gemm_filters.py).

A rewrite happens only where it cannot change what anything else sees: the
removed variables are read by no other op in any block, written by no other op,
and are not in `keep` (the feeds and fetch targets, and whatever a caller will
fetch); folding needs the filter read by that one convolution and every
statistic persistable. With `scope=None` the program is rewritten without
values (what `paddle-ir dump --optimized` shows). Each rewrite is exact to
float rounding (tests/passes/test_inference.py: 1e-5 relative).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import numpy as np

from paddle_ir.core.attrs import from_attr_proto, to_attr_proto
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.framework import Program
from paddle_ir.passes.precompute import PURE_OPS, precompute_constants
from paddle_ir.proto import framework_pb2 as pb

_TRAINING_ROLES = 1 | 2  # OpRole Backward and Optimize bits
_CONVS = ("conv2d", "depthwise_conv2d")
_FOLDABLE = ("batch_norm", "affine_channel")
_IDENTITIES = ("dropout", "scale", "assign")
# conv2d's own attributes, the ones fused_conv2d takes over from the convolution it replaces
_CONV_ATTRS = ("strides", "paddings", "padding_algorithm", "groups", "dilations", "data_format")


def _attrs(op: pb.OpDesc) -> dict:
    return {a.name: from_attr_proto(a) for a in op.attrs}


def _num(attrs: dict, name: str, default):
    """A numeric attribute, or None when the program stores something else there (a
    hostile or broken program: the executor's check names it; a pass only leaves it be)."""
    value = attrs.get(name, default)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _slot(slots, name: str) -> list[str]:
    for v in slots:
        if v.parameter == name:
            return list(v.arguments)
    return []


def _one(slots, name: str) -> str | None:
    args = _slot(slots, name)
    return args[0] if len(args) == 1 else None


def is_inference(program: Program) -> bool:
    """No backward or optimizer op, and every `is_test` attribute set: a test-mode program."""
    for block in program.desc.blocks:
        for op in block.ops:
            if op.type.endswith("_grad"):
                return False
            for a in op.attrs:  # read in place: no conversion of every attribute
                if a.name == "op_role" and a.i & _TRAINING_ROLES:
                    return False
                if a.name == "is_test" and not a.b:
                    return False
    return True


class _Graph:
    """Who reads and writes each name, over every block (sub-blocks read by name too)."""

    def __init__(self, desc: pb.ProgramDesc, keep: Iterable[str]):
        self.desc = desc
        self.block = desc.blocks[0]
        self.keep = set(keep) | set(desc.feed_target_names) | set(desc.fetch_target_names)
        self.refresh()

    def refresh(self) -> None:
        self.readers: Counter = Counter()
        self.writers: Counter = Counter()
        self.outside: set[str] = set()  # names used in blocks other than block 0
        for idx, block in enumerate(self.desc.blocks):
            for op in block.ops:
                for v in op.inputs:
                    self.readers.update(v.arguments)
                    if idx:
                        self.outside.update(v.arguments)
                for v in op.outputs:
                    self.writers.update(v.arguments)
                    if idx:
                        self.outside.update(v.arguments)
        self.vars = {v.name: v for v in self.block.vars}

    def private(self, name: str, readers: int) -> bool:
        """`name` is a temporary read by exactly `readers` ops and written once, in block 0."""
        var = self.vars.get(name)
        return (var is not None and not var.persistable and name not in self.keep
                and name not in self.outside and self.readers[name] == readers
                and self.writers[name] == 1)

    def unread(self, name: str) -> bool:
        return name not in self.keep and name not in self.outside and self.readers[name] == 0

    def persistable(self, name: str | None, own_writes: int = 0) -> bool:
        """A persistable that no op writes (but for `own_writes` by the op asking)."""
        var = self.vars.get(name) if name else None
        return var is not None and var.persistable and self.writers[name] == own_writes

    def unique(self, base: str) -> str:
        name, k = base, 1
        while name in self.vars:
            name, k = f"{base}_{k}", k + 1
        return name


def _remove_identities(graph: _Graph) -> int:
    """Drop test-mode dropout (or make it a scale), identity scale and assign.

    One pass over block 0 with the first read and last write of every name, so a
    program of many identities costs linear time: removed ops are marked, their
    readers renamed and their variables dropped once at the end.
    """
    ops = list(graph.block.ops)
    first_read: dict[str, int] = {}
    last_write: dict[str, int] = {}
    for i, op in enumerate(ops):
        for v in op.inputs:
            for arg in v.arguments:
                first_read.setdefault(arg, i)
        for v in op.outputs:
            for arg in v.arguments:
                last_write[arg] = i
    alias: dict[str, str] = {}  # a removed Out -> what its readers read instead
    removed: set[int] = set()
    drop: set[str] = set()
    changed = 0
    for i, op in enumerate(ops):
        if op.type not in _IDENTITIES:
            continue
        attrs = _attrs(op)
        x, out = _one(op.inputs, "X"), _one(op.outputs, "Out")
        if x is None or out is None:
            continue
        x = alias.get(x, x)
        others = [a for v in op.outputs if v.parameter != "Out" for a in v.arguments]
        if not all(graph.unread(a) and graph.writers[a] == 1 for a in others):
            continue  # test-mode dropout's Mask goes with the op: nobody may read it
        if op.type == "dropout":
            if not attrs.get("is_test"):
                continue
            if attrs.get("dropout_implementation", "downgrade_in_infer") != "upscale_in_train":
                prob = _num(attrs, "dropout_prob", 0.5)
                if prob is None:
                    continue
                _as_scale(op, x, out, 1.0 - float(prob))
                drop.update(others)
                changed += 1
                continue
        elif op.type == "scale":
            if _slot(op.inputs, "ScaleTensor") or _num(attrs, "scale", 1.0) != 1.0 \
                    or _num(attrs, "bias", 0.0) != 0.0:
                continue
        if (x == out or x not in graph.vars or x in graph.outside
                or graph.vars[x].type != graph.vars.get(out, graph.vars[x]).type
                or not graph.private(out, graph.readers[out])
                or first_read.get(out, len(ops)) <= i  # Out read before it is written
                or last_write.get(x, -1) > i):  # X rewritten later: Out's readers would see it
            continue
        removed.add(i)
        alias[out] = x
        graph.readers[x] += graph.readers[out]
        drop.update([out, *others])
        changed += 1
    if removed:
        del graph.block.ops[:]
        graph.block.ops.extend(op for i, op in enumerate(ops) if i not in removed)
        for op in graph.block.ops:
            for v in op.inputs:
                for k, arg in enumerate(v.arguments):
                    if arg in alias:
                        v.arguments[k] = alias[arg]
    if drop:
        kept = [v for v in graph.block.vars if v.name not in drop]
        del graph.block.vars[:]
        graph.block.vars.extend(kept)
    if changed:
        graph.refresh()
    return changed


def _as_scale(op: pb.OpDesc, x: str, out: str, factor: float) -> None:
    """Turn a test-mode dropout into scale(X, factor) in place."""
    op.type = "scale"
    del op.inputs[:], op.outputs[:], op.attrs[:]
    op.inputs.add(parameter="X", arguments=[x])
    op.outputs.add(parameter="Out", arguments=[out])
    op.attrs.extend([to_attr_proto("scale", "float", factor),
                     to_attr_proto("bias", "float", 0.0),
                     to_attr_proto("bias_after_scale", "bool", True)])


def _fold_affine(graph: _Graph, scope) -> int:
    """Fold inference batch_norm / affine_channel into the convolution before it."""
    block, changed = graph.block, 0
    candidates: set[str] = set()  # names a fold stopped using: dropped if nothing else does
    producer = {}
    for i, op in enumerate(block.ops):
        for v in op.outputs:
            for arg in v.arguments:
                producer[arg] = i
    for op in block.ops:
        if op.type not in _FOLDABLE:
            continue
        fold = _fold_plan(graph, op, producer, block)
        if fold is None:
            continue
        conv_idx, stats = fold
        conv = block.ops[conv_idx]
        filt = _one(conv.inputs, "Filter")
        y = _one(op.outputs, "Y" if op.type == "batch_norm" else "Out")
        new_filter = graph.unique(f"{filt}.bn_folded")
        new_bias = graph.unique(f"{y}.bn_folded_bias")
        if scope is not None and not _fold_values(scope, op, filt, stats, new_filter, new_bias):
            continue
        _declare_like(graph, graph.vars[filt], new_filter)
        _declare_like(graph, graph.vars[stats["Bias"]], new_bias)
        for v in conv.inputs:
            if v.parameter == "Filter":
                v.arguments[0] = new_filter
        graph.readers[filt] -= 1
        graph.readers[new_filter] += 1
        x = _one(op.inputs, "X")
        removed = [a for v in op.outputs for a in v.arguments if a != y]
        _count_slots(graph, op, -1)
        op.type = "elementwise_add"
        del op.inputs[:], op.outputs[:], op.attrs[:]
        op.inputs.add(parameter="X", arguments=[x])
        op.inputs.add(parameter="Y", arguments=[new_bias])
        op.outputs.add(parameter="Out", arguments=[y])
        op.attrs.append(to_attr_proto("axis", "int", 1))
        _count_slots(graph, op, +1)
        candidates.update([filt, *stats.values(), *removed])
        changed += 1
    # The counts were kept up to date fold by fold (block 0 only: `outside` is unchanged);
    # the variables no op uses any more go in one rewrite of the block's list, not one
    # per name (each rewrite copies every VarDesc: quadratic in a model's size).
    drop = {name for name in candidates if graph.readers[name] == 0
            and graph.writers[name] == 0 and name not in graph.keep}
    if drop:
        kept = [v for v in graph.block.vars if v.name not in drop]
        del graph.block.vars[:]
        graph.block.vars.extend(kept)
        if scope is not None:
            scope.erase([name for name in sorted(drop)
                         if scope.find_local_var(name) is not None])
    if changed:
        graph.refresh()
    return changed


def _count_slots(graph: _Graph, op: pb.OpDesc, sign: int) -> None:
    """Add (sign 1) or take away (-1) `op`'s reads and writes in graph's counts."""
    for v in op.inputs:
        for arg in v.arguments:
            graph.readers[arg] += sign
    for v in op.outputs:
        for arg in v.arguments:
            graph.writers[arg] += sign


def _fold_plan(graph: _Graph, op: pb.OpDesc, producer: dict, block: pb.BlockDesc):
    """(index of the conv, {slot: statistic name}) when `op` may fold into a conv, else None."""
    attrs = _attrs(op)
    if op.type == "batch_norm":
        test_mode = attrs.get("is_test", False) and not attrs.get("trainable_statistics", False)
        if not (test_mode or attrs.get("use_global_stats", False)):
            return None
        slots = ("Scale", "Bias", "Mean", "Variance")
        y_slot, side = "Y", [a for v in op.outputs if v.parameter != "Y" for a in v.arguments]
        if _slot(op.inputs, "MomentumTensor"):
            return None
    else:
        slots, y_slot, side = ("Scale", "Bias"), "Out", []
    if attrs.get("data_layout", "NCHW") not in ("NCHW", "AnyLayout"):
        return None
    x, y = _one(op.inputs, "X"), _one(op.outputs, y_slot)
    stats = {s: _one(op.inputs, s) for s in slots}
    own = Counter(a for v in op.outputs for a in v.arguments)  # MeanOut is usually Mean
    if x is None or y is None or x not in producer or not all(
            graph.persistable(name, own[name]) for name in stats.values()):
        return None
    # The running statistics' outputs (MeanOut is usually Mean itself): read by nobody.
    if any(a not in stats.values() and not graph.unread(a) for a in side):
        return None
    conv = block.ops[producer[x]]
    cattrs = _attrs(conv)
    if (conv.type not in _CONVS or _one(conv.outputs, "Output") != x
            or cattrs.get("data_format", "NCHW") not in ("NCHW", "AnyLayout")
            or len(conv.inputs) != 2 or not graph.private(x, 1)):
        return None
    filt = _one(conv.inputs, "Filter")
    if not graph.persistable(filt) or graph.readers[filt] != 1 or filt in graph.keep:
        return None
    shape = list(graph.vars[filt].lod_desc.tensor.dims)
    if len(shape) != 4 or shape[0] <= 0:
        return None
    for name in stats.values():
        dims = list(graph.vars[name].lod_desc.tensor.dims)
        if dims not in ([shape[0]], [-1]):
            return None
    return producer[x], stats


def _value(scope, name: str):
    var = scope.find_var(name)
    if var is None or not isinstance(var.value, LoDTensor):
        return None
    return var.value.numpy()


def _fold_values(scope, op, filt, stats, new_filter, new_bias) -> bool:
    """Compute and store the folded filter and bias; False (nothing stored) if unusable."""
    w = _value(scope, filt)
    values = {slot: _value(scope, name) for slot, name in stats.items()}
    if w is None or w.ndim != 4 or any(v is None for v in values.values()):
        return False
    if any(v.shape != (w.shape[0],) for v in values.values()):
        return False
    if not np.issubdtype(w.dtype, np.floating):
        return False
    scale = values["Scale"].astype(np.float64)
    if op.type == "batch_norm":
        eps = _num(_attrs(op), "epsilon", 1e-5)
        if eps is None:
            return False
        scale = scale / np.sqrt(values["Variance"].astype(np.float64) + eps)
        bias = values["Bias"].astype(np.float64) - values["Mean"].astype(np.float64) * scale
    else:
        bias = values["Bias"].astype(np.float64)
    folded = (w.astype(np.float64) * scale[:, None, None, None]).astype(w.dtype)
    scope.var(new_filter).value = LoDTensor(folded)
    scope.var(new_bias).value = LoDTensor(bias.astype(values["Bias"].dtype))
    return True


def _declare_like(graph: _Graph, like: pb.VarDesc, name: str) -> None:
    var = graph.block.vars.add()
    var.CopyFrom(like)
    var.name = name
    var.persistable = True
    graph.vars[name] = var


def _fused_activation(op: pb.OpDesc) -> tuple[float, float] | None:
    """fused_conv2d's (fuse_alpha, fuse_beta) for an activation it can take over, else None."""
    attrs = _attrs(op)
    names = {"relu": (), "relu6": (("threshold", 6.0),), "leaky_relu": (("alpha", 0.02),),
             "hard_sigmoid": (("slope", 0.2), ("offset", 0.5)),
             "hard_swish": (("threshold", 6.0), ("scale", 6.0), ("offset", 3.0))}.get(op.type)
    if names is None:
        return None
    values = [_num(attrs, name, default) for name, default in names]
    if None in values:
        return None
    values = [float(v) for v in values]
    if op.type == "relu6":
        return 0.0, values[0]
    if op.type == "leaky_relu":
        return values[0], 0.0
    if op.type == "hard_sigmoid":
        return values[0], values[1]
    if op.type == "hard_swish" and values != [6.0, 6.0, 3.0]:
        return None  # fused_conv2d's hard_swish has the default constants only
    return 0.0, 0.0


def _dims(graph: _Graph, name: str) -> list[int] | None:
    var = graph.vars.get(name)
    return list(var.lod_desc.tensor.dims) if var is not None else None


def _dtype(graph: _Graph, name: str):
    var = graph.vars.get(name)
    return var.lod_desc.tensor.data_type if var is not None else None


def _chain_next(graph: _Graph, name: str, reader_of: dict) -> int | None:
    """The index of the one op reading the private temporary `name`, else None."""
    return reader_of.get(name) if graph.private(name, 1) else None


_RESHAPES = ("reshape2", "unsqueeze2")


def _channel_bias(graph: _Graph, add: pb.OpDesc, cur: str, dims, dtype, producer, ops):
    """(bias [OC], index of a reshape op to remove or None) when `add` adds a per-channel
    persistable bias to the conv output `cur` (NCHW, `dims`), else None.

    Two spellings: Y a persistable [OC] with axis 1 (Fluid's conv bias, the folded
    batch_norm), or Y = reshape2/unsqueeze2 of a persistable [OC] to [1, OC, 1, 1]
    (Paddle 2.x / 3.x's Conv2D): then the [OC] itself is the bias, and the reshape
    goes too when nothing else reads its result.
    """
    y = _one(add.inputs, "Y")
    if _one(add.inputs, "X") != cur or y in (None, cur) or _one(add.outputs, "Out") is None:
        return None
    if graph.persistable(y):
        ok = _dims(graph, y) == [dims[1]] and _num(_attrs(add), "axis", -1) == 1
        return (y, None) if ok and _dtype(graph, y) == dtype else None
    if _dims(graph, y) != [1, dims[1], 1, 1] or y not in producer:
        return None
    k = producer[y]
    reshape = ops[k]
    src = _one(reshape.inputs, "X")
    if (reshape.type not in _RESHAPES or _one(reshape.outputs, "Out") != y
            or graph.writers[y] != 1 or not graph.persistable(src)
            or _dims(graph, src) != [dims[1]] or _dtype(graph, src) != dtype
            or any(_slot(reshape.inputs, s) for s in ("Shape", "ShapeTensor", "AxesTensor",
                                                      "AxesTensorList"))):
        return None
    rattrs = _attrs(reshape)
    if reshape.type == "reshape2" and list(rattrs.get("shape", [])) not in (
            [1, dims[1], 1, 1], [1, -1, 1, 1]):
        return None
    if reshape.type == "unsqueeze2" and list(rattrs.get("axes", [])) != [0, 2, 3]:
        return None
    others = [a for v in reshape.outputs if v.parameter != "Out" for a in v.arguments]
    alone = graph.private(y, 1) and all(graph.unread(a) for a in others)
    return src, (k if alone else None)


def _fuse_conv_chains(graph: _Graph) -> int:
    """conv + bias add [+ residual add] [+ activation] -> one fused_conv2d (module doc)."""
    ops = list(graph.block.ops)
    reader_of: dict[str, int] = {}
    for i, op in enumerate(ops):
        for v in op.inputs:
            for arg in v.arguments:
                reader_of[arg] = i  # used only for names with exactly one reader
    producer = {arg: i for i, op in enumerate(ops) for v in op.outputs for arg in v.arguments}
    removed: set[int] = set()
    drop: set[str] = set()
    changed = 0
    for i, conv in enumerate(ops):
        if conv.type not in _CONVS or i in removed:
            continue
        bias_reshapes: list[int] = []
        slots = {v.parameter: list(v.arguments) for v in conv.inputs if v.arguments}
        cattrs = _attrs(conv)
        out = _one(conv.outputs, "Output")
        if (set(slots) != {"Input", "Filter"} or out is None
                or cattrs.get("data_format", "NCHW") not in ("NCHW", "AnyLayout")):
            continue
        dims, dtype = _dims(graph, out), _dtype(graph, out)
        if dims is None or len(dims) != 4 or dims[1] <= 0:
            continue
        chain, cur, bias, residual, act = [i], out, None, None, None
        # where the chain's ops read each input: the fused op, in the last one's place,
        # must see the values they saw
        read_at = {slots["Input"][0]: i, slots["Filter"][0]: i}
        j = _chain_next(graph, cur, reader_of)
        if j is not None and ops[j].type == "elementwise_add" and j not in removed:
            found = _channel_bias(graph, ops[j], cur, dims, dtype, producer, ops)
            if found is not None:
                bias, reshape = found
                read_at.setdefault(bias, j)
                cur = _one(ops[j].outputs, "Out")
                chain.append(j)
                if reshape is not None:
                    bias_reshapes.append(reshape)
                j = _chain_next(graph, cur, reader_of)
        if j is not None and ops[j].type == "elementwise_add" and j not in removed:
            add = ops[j]
            x, y = _one(add.inputs, "X"), _one(add.inputs, "Y")
            other = y if x == cur else x if y == cur else None
            # the add's Out takes X's LoD, fused_conv2d's Output none: a residual with LoD
            # in X would lose it
            if (other is not None and other != cur and x != y and other in graph.vars
                    and not graph.vars[other].lod_desc.lod_level
                    and _dims(graph, other) == _dims(graph, cur) and min(_dims(graph, cur)[1:]) > 0
                    and _dtype(graph, other) == dtype
                    and _num(_attrs(add), "axis", -1) in (-1, 0)
                    and _one(add.outputs, "Out") is not None):
                residual, cur = other, _one(add.outputs, "Out")
                read_at.setdefault(residual, j)
                chain.append(j)
                j = _chain_next(graph, cur, reader_of)
        if j is not None and j not in removed and _one(ops[j].inputs, "X") == cur \
                and _fused_activation(ops[j]) is not None and _one(ops[j].outputs, "Out"):
            act = ops[j]
            cur = _one(act.outputs, "Out")
            chain.append(j)
        if len(chain) == 1 or not graph.persistable(slots["Filter"][0]):
            continue
        end = chain[-1]
        between = (k for k in range(i + 1, end) if k not in chain)
        # A residual computed between the conv and its add (ResNet's shortcut after the
        # main branch's conv) is fine; a value rewritten after the chain read it is not.
        if any(k > read_at.get(arg, end) for k in between for v in ops[k].outputs
               for arg in v.arguments):
            continue  # something in between rewrites an input: the fused op would see it
        alpha, beta = _fused_activation(act) if act is not None else (0.0, 0.0)
        act_type = act.type if act is not None else ""  # read before ops[end] is rewritten
        inputs = {"Input": slots["Input"], "Filter": slots["Filter"]}
        if bias is not None:
            inputs["Bias"] = [bias]
        if residual is not None:
            inputs["ResidualData"] = [residual]
        _rewrite_chain(ops, chain, "fused_conv2d", inputs, {"Output": [cur]},
                       [a for a in conv.attrs if a.name in _CONV_ATTRS] + [
                           to_attr_proto("fuse_activation", "string", act_type),
                           to_attr_proto("fuse_alpha", "float", alpha),
                           to_attr_proto("fuse_beta", "float", beta)])
        removed.update(chain[:-1] + bias_reshapes)
        for k in chain[:-1] + bias_reshapes:  # the temporaries between the fused ops
            drop.update(a for v in ops[k].outputs for a in v.arguments)
        changed += 1
    _apply_removals(graph, ops, removed, drop, changed)
    return changed


def _rewrite_chain(ops, chain: list[int], op_type: str, inputs: dict, outputs: dict,
                   attrs: list) -> None:
    """Make the chain's last op the fused op (built before anything is rewritten: its
    attributes may come from the chain's own ops)."""
    fused = pb.OpDesc()
    fused.type = op_type
    for slot, names in inputs.items():
        fused.inputs.add(parameter=slot, arguments=names)
    for slot, names in outputs.items():
        fused.outputs.add(parameter=slot, arguments=names)
    fused.attrs.extend(attrs)
    ops[chain[-1]].CopyFrom(fused)


def _apply_removals(graph: _Graph, ops, removed: set[int], drop: set[str], changed: int):
    if changed:
        del graph.block.ops[:]
        graph.block.ops.extend(op for k, op in enumerate(ops) if k not in removed)
        kept = [v for v in graph.block.vars if v.name not in drop]
        del graph.block.vars[:]
        graph.block.vars.extend(kept)
        graph.refresh()


def _ops_and_readers(graph: _Graph) -> tuple[list, dict[str, int]]:
    """Block 0's ops, and for each name the index of an op reading it (the one, where
    _chain_next asks)."""
    ops = list(graph.block.ops)
    return ops, {arg: i for i, op in enumerate(ops) for v in op.inputs for arg in v.arguments}


def _fuse_fc(graph: _Graph) -> int:
    """matmul_v2 / mul by a persistable [K, N] weight + bias add [+ relu / hard_swish] ->
    one `fc` (ops/nn/fc.py), where the last op of the chain was."""
    ops, reader_of = _ops_and_readers(graph)
    removed: set[int] = set()
    drop: set[str] = set()
    changed = 0
    for i, op in enumerate(ops):
        if op.type not in ("matmul_v2", "mul") or i in removed:
            continue
        attrs = _attrs(op)
        x, w, out = _one(op.inputs, "X"), _one(op.inputs, "Y"), _one(op.outputs, "Out")
        x_dims, w_dims = _dims(graph, x), _dims(graph, w)
        if None in (x, w, out, x_dims, w_dims) or len(w_dims) != 2 or min(w_dims) <= 0 \
                or not graph.persistable(w) or _dtype(graph, w) != _dtype(graph, x):
            continue
        if op.type == "matmul_v2":
            # fc passes Input's LoD on (as mul does); matmul_v2 does not: only LoD-free X
            if attrs.get("trans_x") or attrs.get("trans_y") or len(x_dims) < 2 \
                    or graph.vars[x].lod_desc.lod_level:
                continue
            k = len(x_dims) - 1
        else:
            k = _num(attrs, "x_num_col_dims", 1)
            if _num(attrs, "y_num_col_dims", 1) != 1 or not isinstance(k, int) \
                    or not 1 <= k < len(x_dims):
                continue
        chain, cur, act_type = [i], out, ""
        j = _chain_next(graph, cur, reader_of)
        if j is None or j in removed or ops[j].type != "elementwise_add":
            continue
        add = ops[j]
        bias = _one(add.inputs, "Y")
        rank = k + 1  # Out's rank
        if (_one(add.inputs, "X") != cur or bias in (None, cur) or not graph.persistable(bias)
                or _dims(graph, bias) not in ([w_dims[1]], [1, w_dims[1]])
                or _dtype(graph, bias) != _dtype(graph, w)
                or _num(_attrs(add), "axis", -1) not in (-1, rank - len(_dims(graph, bias)))
                or _one(add.outputs, "Out") is None):
            continue
        cur = _one(add.outputs, "Out")
        chain.append(j)
        j = _chain_next(graph, cur, reader_of)
        if j is not None and j not in removed and _one(ops[j].inputs, "X") == cur \
                and ops[j].type in ("relu", "hard_swish") \
                and _fused_activation(ops[j]) is not None and _one(ops[j].outputs, "Out"):
            act_type, cur = ops[j].type, _one(ops[j].outputs, "Out")
            chain.append(j)
        end = chain[-1]
        between = (n for n in range(i + 1, end) if n not in chain)
        if any(arg in (x, w, bias) for n in between for v in ops[n].outputs
               for arg in v.arguments):
            continue  # something in between rewrites an input: the fc would see it
        _rewrite_chain(ops, chain, "fc", {"Input": [x], "W": [w], "Bias": [bias]},
                       {"Out": [cur]},
                       [to_attr_proto("in_num_col_dims", "int", k),
                        to_attr_proto("activation_type", "string", act_type)])
        removed.update(chain[:-1])
        for n in chain[:-1]:
            drop.update(a for v in ops[n].outputs for a in v.arguments)
        changed += 1
    _apply_removals(graph, ops, removed, drop, changed)
    return changed


def _reshape_to(graph: _Graph, op: pb.OpDesc, dims: list[int]) -> bool:
    """`op` is a reshape2 by its `shape` attribute alone whose Out is `dims` (dims[0], the
    batch, may be written -1 or 0) and whose XShape nobody reads."""
    shape = _attrs(op).get("shape")
    if (op.type != "reshape2" or _slot(op.inputs, "Shape") or _slot(op.inputs, "ShapeTensor")
            or not isinstance(shape, list) or len(shape) != len(dims)):
        return False
    if not all(graph.unread(a) for a in _slot(op.outputs, "XShape")):
        return False
    return shape[0] in (-1, 0, dims[0]) and list(shape[1:]) == dims[1:]


def _fuse_channel_shuffles(graph: _Graph) -> int:
    """reshape2 [N, C, H, W] -> [N, g, C/g, H, W], transpose2 (0, 2, 1, 3, 4), reshape2
    back to [N, C, H, W] -> one channel_shuffle(groups=g), where the last reshape was."""
    ops, reader_of = _ops_and_readers(graph)
    removed: set[int] = set()
    drop: set[str] = set()
    changed = 0
    for i, op in enumerate(ops):
        x, grouped = _one(op.inputs, "X"), _one(op.outputs, "Out")
        dims = _dims(graph, x) if op.type == "reshape2" and x else None
        if dims is None or len(dims) != 4 or min(dims[1:]) <= 0 or grouped is None:
            continue
        g_dims = _dims(graph, grouped)
        if g_dims is None or len(g_dims) != 5 or g_dims[1] <= 0 or dims[1] % g_dims[1]:
            continue
        n, c, h, w = dims
        g = g_dims[1]
        j = _chain_next(graph, grouped, reader_of)
        if not _reshape_to(graph, op, [n, g, c // g, h, w]) or j is None:
            continue
        t = ops[j]
        swapped = _one(t.outputs, "Out")
        if (t.type != "transpose2" or _attrs(t).get("axis") != [0, 2, 1, 3, 4]
                or swapped is None
                or not all(graph.unread(a) for a in _slot(t.outputs, "XShape"))):
            continue
        k = _chain_next(graph, swapped, reader_of)
        if k is None or not _reshape_to(graph, ops[k], dims) or _one(ops[k].outputs,
                                                                       "Out") is None:
            continue
        if any(x in (a for v in ops[m].outputs for a in v.arguments) for m in range(i + 1, k)):
            continue  # X rewritten in between: the shuffle would read the new value
        chain = [i, j, k]
        _rewrite_chain(ops, chain, "channel_shuffle", {"X": [x]},
                       {"Out": [_one(ops[k].outputs, "Out")]},
                       [to_attr_proto("groups", "int", g),
                        to_attr_proto("data_format", "string", "NCHW")])
        removed.update(chain[:-1])
        drop.update([grouped, swapped, *_slot(op.outputs, "XShape"),
                     *_slot(t.outputs, "XShape")])
        changed += 1
    _apply_removals(graph, ops, removed, drop, changed)
    return changed


def optimize_inference(program: Program, scope=None, keep: Iterable[str] = ()) -> Program:
    """An optimized copy of an inference program (module docstring); others unchanged.

    After this module's rewrites, two passes that need the values in `scope`:
    a bias carried into the 1x1 convolution after it (passes/pointwise_bias.py),
    then 1x1 filters stored GEMM-ready in `scope` (passes/gemm_filters.py)."""
    # Imported here: both passes build on this module's graph helpers.
    from paddle_ir.passes.gemm_filters import lay_out_gemm_filters
    from paddle_ir.passes.pointwise_bias import fold_pointwise_bias

    if not is_inference(program):
        return program
    keep = list(keep)
    optimized = fold_pointwise_bias(_rewrite(program, scope, keep), scope, keep)
    lay_out_gemm_filters(optimized, scope)
    return optimized


def _rewrite(program: Program, scope, keep: list[str]) -> Program:
    """This module's rewrites of inference `program`: a copy, or `program` if none applies."""
    if not any(op.type in _FOLDABLE or op.type in _IDENTITIES or op.type in _CONVS
               or op.type in ("matmul_v2", "mul", "reshape2") or op.type in PURE_OPS
               for op in program.desc.blocks[0].ops):
        return program
    desc = pb.ProgramDesc()
    desc.CopyFrom(program.desc)
    graph = _Graph(desc, keep)
    changed = _remove_identities(graph) + _fold_affine(graph, scope)
    changed += _fuse_conv_chains(graph) + _fuse_fc(graph) + _fuse_channel_shuffles(graph)
    # Last: a fusion above may take a parameter's reshape into its op instead.
    changed += precompute_constants(graph, scope)
    if not changed:
        return program
    result = Program.from_desc(desc)
    result.random_seed = program.random_seed
    return result
