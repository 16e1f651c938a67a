"""Shape and indexing layers with Fluid 1.7's signatures: reshape (reshape2), flatten
(flatten2), transpose (transpose2), squeeze (squeeze2), unsqueeze (unsqueeze2), slice,
split, stack and argmax.

The *2 ops also write an XShape variable (X's shape for the grad op, no data),
as Fluid's layers do, so programs built here match Paddle's op for op.
"""

from __future__ import annotations

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper

__all__ = ["argmax", "flatten", "reshape", "slice", "split", "squeeze", "stack", "transpose",
           "unsqueeze"]


def _with_xshape(op_type: str, x: Variable, attrs: dict, name=None, inputs=None,
                 layer: str | None = None) -> Variable:
    helper = LayerHelper(layer or op_type, name)
    out = helper.create_variable_for_type_inference(x.dtype)
    xshape = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op(op_type, inputs={"X": x, **(inputs or {})},
                     outputs={"Out": out, "XShape": xshape}, attrs=attrs)
    return out


def reshape(x: Variable, shape, actual_shape: Variable | None = None, act=None,
            inplace: bool = False, name=None) -> Variable:
    """x in a new shape (a reshape2 op): a 0 copies x's dim at that index, one -1 is inferred.

    `shape` is a list of ints and int Variables ([1] each, passed as ShapeTensor),
    or one int Variable (passed as Shape); `actual_shape`, a Variable, takes
    precedence over the attribute as in Fluid. `inplace` is accepted for Paddle's sake.
    """
    inputs, attr_shape = {}, []
    if isinstance(shape, Variable):
        inputs["Shape"] = shape
    else:
        shape = list(shape)
        if any(isinstance(d, Variable) for d in shape):
            tensors = []
            helper = LayerHelper("reshape", None)
            for d in shape:
                if isinstance(d, Variable):
                    tensors.append(d)
                    attr_shape.append(-1)
                else:
                    t = helper.create_variable_for_type_inference("int32", stop_gradient=True)
                    helper.append_op("fill_constant", outputs={"Out": t},
                                     attrs={"shape": [1], "dtype": 2, "value": float(d)})
                    tensors.append(t)
                    attr_shape.append(int(d))
            inputs["ShapeTensor"] = tensors
        else:
            attr_shape = [int(d) for d in shape]
    if actual_shape is not None:
        inputs["Shape"] = actual_shape
    out = _with_xshape("reshape2", x, {"shape": attr_shape}, name, inputs, layer="reshape")
    if act is None:
        return out
    return LayerHelper("reshape").append_activation(out, act)


def flatten(x: Variable, axis: int = 1, name=None) -> Variable:
    """x as a matrix [prod(x.shape[:axis]), prod(x.shape[axis:])] (a flatten2 op)."""
    if not 0 <= axis <= len(x.shape):
        raise InvalidProgramError(f"flatten: axis must be in [0, {len(x.shape)}] for {x.name} "
                                  f"of shape {list(x.shape)}, got {axis}")
    return _with_xshape("flatten2", x, {"axis": axis}, name, layer="flatten")


def transpose(x: Variable, perm, name=None) -> Variable:
    """x with its dims permuted: out.shape[i] = x.shape[perm[i]] (a transpose2 op)."""
    return _with_xshape("transpose2", x, {"axis": [int(a) for a in perm]}, name,
                        layer="transpose")


def squeeze(input: Variable, axes, name=None) -> Variable:  # noqa: A002 - Paddle's name
    """input without the listed size-1 dims (a squeeze2 op)."""
    return _with_xshape("squeeze2", input, {"axes": [int(a) for a in axes]}, name,
                        layer="squeeze")


def unsqueeze(input: Variable, axes, name=None) -> Variable:  # noqa: A002 - Paddle's name
    """input with unit dims inserted at axes, one at a time (an unsqueeze2 op)."""
    if isinstance(axes, int):
        axes = [axes]
    return _with_xshape("unsqueeze2", input, {"axes": [int(a) for a in axes]}, name,
                        layer="unsqueeze")


def slice(input: Variable, axes, starts, ends) -> Variable:  # noqa: A001, A002 - Paddle's names
    """input[starts:ends] along axes; starts/ends may be lists of ints or one int Variable."""
    helper = LayerHelper("slice")
    inputs, attrs = {"Input": input}, {"axes": [int(a) for a in axes]}
    flags = [1] * len(axes)
    for key, values, slot in (("starts", starts, "StartsTensor"), ("ends", ends, "EndsTensor")):
        if isinstance(values, Variable):
            inputs[slot] = values
            attrs[key] = [-1] * len(axes)
            flags = [-1] * len(axes)
        else:
            attrs[key] = [int(v) for v in values]
    attrs["infer_flags"] = flags
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("slice", inputs=inputs, outputs={"Out": out}, attrs=attrs)
    return out


def split(input: Variable, num_or_sections, dim: int = -1,  # noqa: A002 - Paddle's name
          name=None) -> list[Variable]:
    """input cut along dim into num_or_sections equal parts (an int) or parts of the listed
    sizes (one may be -1)."""
    helper = LayerHelper("split", name)
    if isinstance(num_or_sections, int):
        count, attrs = num_or_sections, {"num": num_or_sections, "sections": []}
    else:
        sections = [int(s) for s in num_or_sections]
        count, attrs = len(sections), {"num": 0, "sections": sections}
    outs = [helper.create_variable_for_type_inference(input.dtype) for _ in range(count)]
    helper.append_op("split", inputs={"X": input}, outputs={"Out": outs},
                     attrs={"axis": int(dim), **attrs})
    return outs


def stack(x, axis: int = 0) -> Variable:
    """The tensors of x (one shape) joined along a new axis."""
    helper = LayerHelper("stack")
    xs = [x] if isinstance(x, Variable) else list(x)
    out = helper.create_variable_for_type_inference(xs[0].dtype)
    helper.append_op("stack", inputs={"X": xs}, outputs={"Y": out}, attrs={"axis": int(axis)})
    return out


def argmax(x: Variable, axis: int = 0) -> Variable:
    """The int64 index of the largest element along axis (the axis is dropped)."""
    helper = LayerHelper("arg_max")
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("arg_max", inputs={"X": x}, outputs={"Out": out}, attrs={"axis": int(axis)})
    return out
