"""print: Out = In, and In is written to stdout (Fluid's Print layer).

The first `first_n` runs print (all when first_n < 0); the run count lives in a
persistable int64 Counter the layer creates, so that the kernel stays a
function of its inputs. Each print shows `message`, then (as the flags say)
the variable's name, dtype, shape, LoD and its first `summarize` values (all
when summarize < 0). The gradient is another print op (is_forward False) that
passes dOut through and prints it when print_phase is 'backward' or 'both'.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.ops.registry import ALL_DTYPES, Attr, In, Out, register_op

_PHASES = ("forward", "backward", "both")

_ATTRS = [
    Attr("first_n", "int", -1, "print in the first n runs only; -1: always"),
    Attr("message", "string", "", "printed first"),
    Attr("summarize", "int", 20, "how many values to print; -1: all"),
    Attr("print_tensor_name", "bool", True, "print the variable's name"),
    Attr("print_tensor_type", "bool", True, "print its dtype"),
    Attr("print_tensor_shape", "bool", True, "print its shape"),
    Attr("print_tensor_lod", "bool", True, "print its LoD"),
    Attr("print_phase", "string", "both", "forward, backward or both"),
    Attr("is_forward", "bool", True, "False in the gradient op"),
    Attr("tensor_name", "string", "", "the name to print"),
]

print_op = register_op(
    "print",
    inputs=[In("In", "the tensor printed"), In("Counter", "int64 [1]: runs so far")],
    outputs=[Out("Out", "In, unchanged"), Out("CounterOut", "Counter + 1 (the same variable)")],
    attrs=_ATTRS,
    key_inputs=["In"],
    doc=__doc__,
)


@print_op.infer_shape
def _(ctx):
    phase = ctx.attr("print_phase")
    ctx.enforce(phase in _PHASES, lambda: f"print_phase must be one of {', '.join(_PHASES)}, got "
                f"{phase!r}")
    ctx.set_output("Out", ctx.input_shape("In"), ctx.input_dtype("In"))
    ctx.share_lod("In", "Out")
    ctx.set_output("CounterOut", ctx.input_shape("Counter"), np.int64)


def format_tensor(attrs, value: LoDTensor) -> str:
    arr = value.numpy()
    lines = [attrs["message"]] if attrs["message"] else []
    if attrs["print_tensor_name"]:
        lines.append(f"Tensor[{attrs['tensor_name']}]")
    if attrs["print_tensor_type"]:
        lines.append(f"  dtype: {arr.dtype}")
    if attrs["print_tensor_shape"]:
        lines.append(f"  shape: {list(arr.shape)}")
    if attrs["print_tensor_lod"] and value.lod_level:
        lines.append(f"  lod: {value.lod()}")
    flat = arr.reshape(-1)
    n = flat.size if attrs["summarize"] < 0 else min(attrs["summarize"], flat.size)
    lines.append("  data: " + ", ".join(str(v) for v in flat[:n].tolist()))
    return "\n".join(lines)


@print_op.kernel(dtypes=ALL_DTYPES, lod=True)
def print_kernel(attrs, x: LoDTensor, counter: LoDTensor):
    count = int(counter.numpy().reshape(-1)[0])
    wanted = attrs["print_phase"] in ("both", "forward" if attrs["is_forward"] else "backward")
    if wanted and (attrs["first_n"] < 0 or count < attrs["first_n"]):
        print(format_tensor(attrs, x), flush=True)
    return x, LoDTensor.unchecked(np.asarray([count + 1], dtype=np.int64))


@print_op.grad_maker
def _(g):
    if not g.input_grad("In"):
        return []
    attrs = {a.name: g.attr(a.name) for a in _ATTRS}
    attrs.update(is_forward=False, tensor_name=g.output_grad("Out")[0])
    return [g.grad_op("print", inputs={"In": g.output_grad("Out"), "Counter": g.input("Counter")},
                      outputs={"Out": g.input_grad("In"), "CounterOut": g.input("Counter")},
                      attrs=attrs)]
