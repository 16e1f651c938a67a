"""Fluid 1.7's structured losses: center_loss, hsigmoid, nce,
sampled_softmax_with_cross_entropy and warpctc (ops/losses_more.py)."""

from __future__ import annotations

from paddle_ir.framework import Variable, default_main_program, default_startup_program, unique_name
from paddle_ir.framework.initializer import Constant
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper
from paddle_ir.layers.nn import softmax_with_cross_entropy

__all__ = ["center_loss", "hsigmoid", "nce", "sampled_softmax_with_cross_entropy", "warpctc"]


def _outs(helper, dtype, slots, stop=()):
    return {s: helper.create_variable_for_type_inference(dtype, stop_gradient=s in stop)
            for s in slots}


def center_loss(input: Variable, label: Variable, num_classes: int, alpha: float,  # noqa: A002
                param_attr=None, update_center: bool = True) -> Variable:
    """|x - center[label]|^2 / 2 per row; the centers (a parameter the optimizer does not
    train) move toward their class's features at rate alpha when update_center."""
    helper = LayerHelper("center_loss")
    attr = ParamAttr.to_attr(param_attr) or ParamAttr()
    centers = helper.create_parameter(attr, [num_classes, input.shape[1]], input.dtype,
                                      default_initializer=Constant(0.0))
    centers.stop_gradient = True
    centers.trainable = False
    rate_name = unique_name.generate("center_loss_alpha")
    rate = default_main_program().global_block().create_var(
        name=rate_name, shape=[1], dtype=input.dtype, persistable=True, stop_gradient=True)
    startup = default_startup_program().global_block()
    init = startup.create_var(name=rate_name, shape=[1], dtype=input.dtype, persistable=True)
    Constant(float(alpha))(init, startup)
    outs = _outs(helper, input.dtype, ["SampleCenterDiff", "Loss"], stop=("SampleCenterDiff",))
    outs["CentersOut"] = centers
    helper.append_op("center_loss", inputs={"X": input, "Label": label, "Centers": centers,
                                            "CenterUpdateRate": rate},
                     outputs=outs, attrs={"cluster_num": int(num_classes),
                                          "need_update": bool(update_center)})
    return outs["Loss"]


def hsigmoid(input: Variable, label: Variable, num_classes: int, param_attr=None,  # noqa: A002
             bias_attr=None, name=None, path_table=None, path_code=None,
             is_custom: bool = False, is_sparse: bool = False) -> Variable:
    """Hierarchical sigmoid over Paddle's default complete binary tree of num_classes
    leaves: [N, 1] losses (custom trees are not supported)."""
    if is_custom or path_table is not None or path_code is not None:
        raise ValueError("hsigmoid: custom trees (path_table/path_code) are not supported; "
                         "use the default tree")
    helper = LayerHelper("hierarchical_sigmoid", name)
    w = helper.create_parameter(ParamAttr.to_attr(param_attr) or ParamAttr(),
                                [num_classes - 1, input.shape[1]], input.dtype)
    inputs = {"X": input, "W": w, "Label": label}
    bias = ParamAttr.to_attr(bias_attr)
    if bias is not None:
        inputs["Bias"] = helper.create_parameter(bias, [num_classes - 1, 1], input.dtype,
                                                 is_bias=True)
    outs = _outs(helper, input.dtype, ["Out", "PreOut"], stop=("PreOut",))
    helper.append_op("hierarchical_sigmoid", inputs=inputs, outputs=outs,
                     attrs={"num_classes": int(num_classes)})
    return outs["Out"]


def nce(input: Variable, label: Variable, num_total_classes: int,  # noqa: A002
        sample_weight: Variable | None = None, param_attr=None, bias_attr=None,
        num_neg_samples: int | None = None, name=None, sampler: str = "uniform",
        custom_dist=None, seed: int = 0, is_sparse: bool = False) -> Variable:
    """Noise-contrastive estimation with uniformly drawn negatives: [N, 1] costs."""
    if sampler != "uniform" or custom_dist is not None:
        raise ValueError(f"nce: only the uniform sampler is supported, got {sampler!r}")
    helper = LayerHelper("nce", name)
    dim = input.shape[1]
    w = helper.create_parameter(ParamAttr.to_attr(param_attr) or ParamAttr(),
                                [num_total_classes, dim], input.dtype)
    inputs = {"Input": input, "Label": label, "Weight": w}
    bias = ParamAttr.to_attr(bias_attr)
    if bias is not None:
        inputs["Bias"] = helper.create_parameter(bias, [num_total_classes, 1], input.dtype,
                                                 is_bias=True)
    if sample_weight is not None:
        inputs["SampleWeight"] = sample_weight
    outs = _outs(helper, input.dtype, ["Cost", "SampleLogits"], stop=("SampleLogits",))
    outs["SampleLabels"] = helper.create_variable_for_type_inference("int64",
                                                                     stop_gradient=True)
    helper.append_op("nce", inputs=inputs, outputs=outs,
                     attrs={"num_total_classes": int(num_total_classes),
                            "num_neg_samples": int(num_neg_samples or 10), "seed": int(seed)})
    return outs["Cost"]


def sampled_softmax_with_cross_entropy(logits: Variable, label: Variable, num_samples: int,
                                       num_true: int = 1, remove_accidental_hits: bool = True,
                                       use_customized_samples: bool = False,
                                       customized_samples=None, customized_probabilities=None,
                                       seed: int = 0) -> Variable:
    """Softmax cross entropy over the true classes and num_samples log-uniformly drawn
    classes (logits corrected by log Q): [N, 1]."""
    if use_customized_samples:
        raise ValueError("sampled_softmax_with_cross_entropy: customized samples are not "
                         "supported")
    helper = LayerHelper("sample_logits")
    outs = _outs(helper, logits.dtype, ["SampledLogits", "Probabilities"],
                 stop=("Probabilities",))
    outs["Samples"] = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    outs["SampledLabels"] = helper.create_variable_for_type_inference("int64",
                                                                      stop_gradient=True)
    helper.append_op("sample_logits", inputs={"Logits": logits, "Labels": label}, outputs=outs,
                     attrs={"num_samples": int(num_samples), "seed": int(seed),
                            "remove_accidental_hits": bool(remove_accidental_hits)})
    return softmax_with_cross_entropy(outs["SampledLogits"], outs["SampledLabels"])


def warpctc(input: Variable, label: Variable, blank: int = 0,  # noqa: A002
            norm_by_times: bool = False, input_length=None, label_length=None) -> Variable:
    """The CTC loss of each sequence ([nseq, 1]) of unnormalized logits against its label."""
    if input_length is not None or label_length is not None:
        raise ValueError("warpctc: padded inputs with lengths are not supported; pass "
                         "LoDTensors")
    helper = LayerHelper("warpctc")
    outs = _outs(helper, input.dtype, ["WarpCTCGrad", "Loss"], stop=("WarpCTCGrad",))
    helper.append_op("warpctc", inputs={"Logits": input, "Label": label}, outputs=outs,
                     attrs={"blank": int(blank), "norm_by_times": bool(norm_by_times)})
    return outs["Loss"]
