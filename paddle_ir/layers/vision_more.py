"""affine_grid, grid_sampler, spectral_norm and similarity_focus layers (ops/vision_more.py)."""

from __future__ import annotations

import math

from paddle_ir.framework import Variable
from paddle_ir.framework.initializer import Normal
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper

__all__ = ["affine_grid", "grid_sampler", "similarity_focus", "spectral_norm"]


def _single(op_type, inputs, out_slot, attrs=None, name=None, dtype=None) -> Variable:
    helper = LayerHelper(op_type, name)
    out = helper.create_variable_for_type_inference(dtype or next(iter(inputs.values())).dtype)
    helper.append_op(op_type, inputs=inputs, outputs={out_slot: out}, attrs=attrs)
    return out


def affine_grid(theta: Variable, out_shape, name=None) -> Variable:
    """[N, H, W, 2] sampling points theta @ [x, y, 1] for out_shape [N, C, H, W] (a list or
    an int Variable)."""
    inputs, attrs = {"Theta": theta}, {}
    if isinstance(out_shape, Variable):
        inputs["OutputShape"] = out_shape
    else:
        attrs["output_shape"] = [int(d) for d in out_shape]
    return _single("affine_grid", inputs, "Output", attrs, name)


def grid_sampler(x: Variable, grid: Variable, name=None) -> Variable:
    """x bilinearly sampled at grid's [-1, 1] coordinates (zeros outside)."""
    return _single("grid_sampler", {"X": x, "Grid": grid}, "Output", name=name)


def spectral_norm(weight: Variable, dim: int = 0, power_iters: int = 1, eps: float = 1e-12,
                  name=None) -> Variable:
    """weight / its largest singular value, estimated by power iteration from the vectors U
    and V (non-trainable parameters drawn from N(0, 1))."""
    helper = LayerHelper("spectral_norm", name)
    h = weight.shape[dim]
    w = math.prod(d for i, d in enumerate(weight.shape) if i != dim)
    u = helper.create_parameter(ParamAttr(initializer=Normal(0.0, 1.0), trainable=False), [h],
                                weight.dtype)
    v = helper.create_parameter(ParamAttr(initializer=Normal(0.0, 1.0), trainable=False), [w],
                                weight.dtype)
    u.stop_gradient = v.stop_gradient = True
    out = helper.create_variable_for_type_inference(weight.dtype)
    helper.append_op("spectral_norm", inputs={"Weight": weight, "U": u, "V": v},
                     outputs={"Out": out},
                     attrs={"dim": int(dim), "power_iters": int(power_iters),
                            "eps": float(eps)})
    return out


def similarity_focus(input: Variable, axis: int, indexes, name=None) -> Variable:  # noqa: A002
    """A 0/1 mask of input's shape marking, per index along axis, the greedy row- and
    column-exclusive maxima of that slice."""
    return _single("similarity_focus", {"X": input}, "Out",
                   {"axis": int(axis), "indexes": [int(i) for i in indexes]}, name)
