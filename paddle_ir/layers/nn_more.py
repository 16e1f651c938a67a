"""Fluid 1.7's remaining nn layers over ops/nn_more.py and ops/misc_more.py: per-channel
and normalization layers (with their parameters), image patches, sampling and decoding."""

from __future__ import annotations

from paddle_ir.core.dtypes import convert_dtype, from_numpy_dtype
from paddle_ir.framework import Variable
from paddle_ir.framework.initializer import Constant
from paddle_ir.framework.param_attr import ParamAttr
from paddle_ir.layers.helper import LayerHelper

__all__ = ["add_position_encoding", "affine_channel", "argmin", "bilinear_tensor_product",
           "continuous_value_model", "ctc_greedy_decoder", "edit_distance", "filter_by_instag",
           "fsp_matrix", "gather_tree", "gaussian_random_batch_size_like", "group_norm",
           "im2sequence", "instance_norm", "l2_normalize", "lrn", "maxout", "mean_iou",
           "multiplex", "prelu", "random_crop", "row_conv", "sampling_id", "shard_index",
           "temporal_shift", "unfold", "uniform_random_batch_size_like"]


def _op(op_type: str, inputs: dict, outputs, attrs=None, name=None, act=None, dtype=None):
    """Append op_type; outputs is a list of slots (all of the first input's dtype unless
    a {slot: dtype} dict). Returns the first output, or all of them for several."""
    helper = LayerHelper(op_type, name)
    first = next(iter(inputs.values()))
    first = first[0] if isinstance(first, list) else first
    if not isinstance(outputs, dict):
        outputs = {slot: dtype for slot in outputs}
    outs = {slot: helper.create_variable_for_type_inference(
        convert_dtype(dt) if dt is not None else first.dtype) for slot, dt in outputs.items()}
    helper.append_op(op_type, inputs=inputs, outputs=outs, attrs=attrs)
    values = list(outs.values())
    values[0] = helper.append_activation(values[0], act)
    return values[0] if len(values) == 1 else tuple(values)


def affine_channel(x: Variable, scale: Variable | None = None, bias: Variable | None = None,
                   data_layout: str = "NCHW", name=None, act=None) -> Variable:
    """x * scale[c] + bias[c] along the channel axis."""
    return _op("affine_channel", {"X": x, "Scale": scale, "Bias": bias}, ["Out"],
               {"data_layout": data_layout}, name, act)


def add_position_encoding(input: Variable, alpha: float, beta: float,  # noqa: A002
                          name=None) -> Variable:
    """alpha * input + beta * the sinusoid position encoding (per sequence with a LoD)."""
    return _op("add_position_encoding", {"X": input}, ["Out"],
               {"alpha": float(alpha), "beta": float(beta)}, name)


def bilinear_tensor_product(x: Variable, y: Variable, size: int, act=None, name=None,
                            param_attr=None, bias_attr=None) -> Variable:
    """out[:, i] = x W_i y^T + b_i with a [size, M, N] weight parameter."""
    helper = LayerHelper("bilinear_tensor_product", name)
    w = helper.create_parameter(ParamAttr.to_attr(param_attr) or ParamAttr(),
                                [size, x.shape[1], y.shape[1]], x.dtype)
    inputs = {"X": x, "Y": y, "Weight": w}
    bias = ParamAttr.to_attr(bias_attr)
    if bias is not None:
        inputs["Bias"] = helper.create_parameter(bias, [1, size], x.dtype, is_bias=True)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("bilinear_tensor_product", inputs=inputs, outputs={"Out": out})
    return helper.append_activation(out, act)


def continuous_value_model(input: Variable, cvm: Variable,  # noqa: A002
                           use_cvm: bool = True) -> Variable:
    """The CTR show/click columns log-transformed (use_cvm) or dropped."""
    return _op("cvm", {"X": input, "CVM": cvm}, ["Y"], {"use_cvm": bool(use_cvm)})


def fsp_matrix(x: Variable, y: Variable) -> Variable:
    """[N, C1, C2]: the flow-of-solution matrix x y^T / (H W)."""
    return _op("fsp_matrix", {"X": x, "Y": y}, ["Out"])


def l2_normalize(x: Variable, axis: int, epsilon: float = 1e-12, name=None) -> Variable:
    """x / sqrt(sum(x^2, axis) + epsilon)."""
    if len(x.shape) == 1:
        axis = 0
    return _op("norm", {"X": x}, ["Out", "Norm"], {"axis": int(axis),
                                                   "epsilon": float(epsilon)}, name)[0]


def lrn(input: Variable, n: int = 5, k: float = 1.0, alpha: float = 1e-4,  # noqa: A002
        beta: float = 0.75, name=None, data_format: str = "NCHW") -> Variable:
    """Local response normalization across n channels."""
    return _op("lrn", {"X": input}, ["Out", "MidOut"],
               {"n": int(n), "k": float(k), "alpha": float(alpha), "beta": float(beta)},
               name)[0]


def maxout(x: Variable, groups: int, name=None, axis: int = 1) -> Variable:
    """The max over each group of `groups` consecutive channels."""
    return _op("maxout", {"X": x}, ["Out"], {"groups": int(groups), "axis": int(axis)}, name)


def prelu(x: Variable, mode: str, param_attr=None, name=None) -> Variable:
    """x where positive, alpha * x elsewhere; alpha is a parameter (0.25) shared per mode:
    all (one), channel (one per channel) or element (one per element of an instance)."""
    helper = LayerHelper("prelu", name)
    shape = {"all": [1], "channel": [1, x.shape[1], 1, 1] if len(x.shape) == 4 else
             [x.shape[1]], "element": [1] + list(x.shape[1:])}.get(mode)
    if shape is None:
        raise ValueError(f"prelu: mode must be all, channel or element, got {mode!r}")
    attr = ParamAttr.to_attr(param_attr) or ParamAttr()
    alpha = helper.create_parameter(attr, shape, x.dtype, default_initializer=Constant(0.25))
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("prelu", inputs={"X": x, "Alpha": alpha}, outputs={"Out": out},
                     attrs={"mode": mode})
    return out


def temporal_shift(x: Variable, seg_num: int, shift_ratio: float = 0.25,
                   name=None) -> Variable:
    """TSM's shift of shift_ratio of the channels one step back and forward in time."""
    return _op("temporal_shift", {"X": x}, ["Out"],
               {"seg_num": int(seg_num), "shift_ratio": float(shift_ratio)}, name)


def row_conv(input: Variable, future_context_size: int, param_attr=None,  # noqa: A002
             act=None) -> Variable:
    """The lookahead convolution over each sequence, with a [future + 1, D] filter."""
    helper = LayerHelper("row_conv")
    filt = helper.create_parameter(ParamAttr.to_attr(param_attr) or ParamAttr(),
                                   [future_context_size + 1, input.shape[-1]], input.dtype)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("row_conv", inputs={"X": input, "Filter": filt}, outputs={"Out": out})
    return helper.append_activation(out, act)


def _norm_layer(op_type, input, outputs, attrs, param_attr, bias_attr, name):  # noqa: A002
    helper = LayerHelper(op_type, name)
    channels = input.shape[1]
    inputs = {"X": input}
    scale = ParamAttr.to_attr(param_attr)
    if scale is not None:
        inputs["Scale"] = helper.create_parameter(scale, [channels], input.dtype,
                                                  default_initializer=Constant(1.0))
    bias = ParamAttr.to_attr(bias_attr)
    if bias is not None:
        inputs["Bias"] = helper.create_parameter(bias, [channels], input.dtype, is_bias=True)
    outs = {slot: helper.create_variable_for_type_inference(input.dtype, stop_gradient=k > 0)
            for k, slot in enumerate(outputs)}
    helper.append_op(op_type, inputs=inputs, outputs=outs, attrs=attrs)
    return helper, outs[outputs[0]]


def group_norm(input: Variable, groups: int, epsilon: float = 1e-05,  # noqa: A002
               param_attr=None, bias_attr=None, act=None, data_layout: str = "NCHW",
               name=None) -> Variable:
    """Normalization over groups of channels, with scale (1) and bias (0) parameters."""
    if data_layout != "NCHW":
        raise ValueError(f"group_norm: only NCHW is supported, got {data_layout!r}")
    helper, out = _norm_layer("group_norm", input, ["Y", "Mean", "Variance"],
                              {"groups": int(groups), "epsilon": float(epsilon)}, param_attr,
                              bias_attr, name)
    return helper.append_activation(out, act)


def instance_norm(input: Variable, epsilon: float = 1e-05, param_attr=None,  # noqa: A002
                  bias_attr=None, name=None) -> Variable:
    """Normalization over each instance's channel, with scale and bias parameters."""
    return _norm_layer("instance_norm", input, ["Y", "SavedMean", "SavedVariance"],
                       {"epsilon": float(epsilon)}, param_attr, bias_attr, name)[1]


def _batch_like(op_type, input, shape, dtype, input_dim_idx, output_dim_idx, attrs):  # noqa: A002
    dtype = convert_dtype(dtype)
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(op_type, inputs={"Input": input}, outputs={"Out": out},
                     attrs={"shape": [int(d) for d in shape], "dtype": from_numpy_dtype(dtype),
                            "input_dim_idx": int(input_dim_idx),
                            "output_dim_idx": int(output_dim_idx), **attrs})
    return out


def gaussian_random_batch_size_like(input: Variable, shape, input_dim_idx: int = 0,  # noqa: A002
                                    output_dim_idx: int = 0, mean: float = 0.0,
                                    std: float = 1.0, seed: int = 0,
                                    dtype="float32") -> Variable:
    return _batch_like("gaussian_random_batch_size_like", input, shape, dtype, input_dim_idx,
                       output_dim_idx, {"mean": float(mean), "std": float(std),
                                        "seed": int(seed)})


def uniform_random_batch_size_like(input: Variable, shape, dtype="float32",  # noqa: A002
                                   input_dim_idx: int = 0, output_dim_idx: int = 0,
                                   min: float = -1.0, max: float = 1.0,  # noqa: A002
                                   seed: int = 0) -> Variable:
    return _batch_like("uniform_random_batch_size_like", input, shape, dtype, input_dim_idx,
                       output_dim_idx, {"min": float(min), "max": float(max),
                                        "seed": int(seed)})


def mean_iou(input: Variable, label: Variable, num_classes: int):  # noqa: A002
    """(mean IoU [1], wrong counts [C], correct counts [C]) of int predictions."""
    return _op("mean_iou", {"Predictions": input, "Labels": label},
               {"OutMeanIou": "float32", "OutWrong": "int32", "OutCorrect": "int32"},
               {"num_classes": int(num_classes)})


def multiplex(inputs, index: Variable) -> Variable:
    """Row i of inputs[index[i]]."""
    helper = LayerHelper("multiplex")
    xs = list(inputs)
    out = helper.create_variable_for_type_inference(xs[0].dtype)
    helper.append_op("multiplex", inputs={"X": xs, "Ids": index}, outputs={"Out": out})
    return out


def random_crop(x: Variable, shape, seed=None) -> Variable:
    """Each instance's trailing dims cropped to shape at a random place."""
    from paddle_ir.layers.tensor import fill_constant

    helper = LayerHelper("random_crop")
    if not isinstance(seed, Variable):
        import random

        seed = fill_constant([1], "int64", random.randint(1, 2 ** 31 - 1) if seed is None
                             else int(seed))
    out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    seed_out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("random_crop", inputs={"X": x, "Seed": seed},
                     outputs={"Out": out, "SeedOut": seed_out},
                     attrs={"shape": [int(d) for d in shape]})
    return out


def sampling_id(x: Variable, min: float = 0.0, max: float = 1.0,  # noqa: A002
                seed: int = 0, dtype="float32") -> Variable:
    """One class id per row, drawn from the row's probabilities."""
    return _op("sampling_id", {"X": x}, {"Out": "int64"},
               {"min": float(min), "max": float(max), "seed": int(seed)})


def shard_index(input: Variable, index_num: int, nshards: int, shard_id: int,  # noqa: A002
                ignore_value: int = -1) -> Variable:
    return _op("shard_index", {"X": input}, ["Out"],
               {"index_num": int(index_num), "nshards": int(nshards),
                "shard_id": int(shard_id), "ignore_value": int(ignore_value)})


def gather_tree(ids: Variable, parents: Variable) -> Variable:
    """The full id path of each final beam, backtracking parents ([T, B, beam])."""
    return _op("gather_tree", {"Ids": ids, "Parents": parents}, ["Out"])


def _pair(v):
    return [int(v), int(v)] if isinstance(v, int) else [int(d) for d in v]


def unfold(x: Variable, kernel_sizes, strides=1, paddings=0, dilations=1,
           name=None) -> Variable:
    """im2col: [N, C, H, W] -> [N, C kh kw, L] sliding blocks."""
    pads = [int(paddings)] * 4 if isinstance(paddings, int) else [int(p) for p in paddings]
    if len(pads) == 2:
        pads = pads * 2
    return _op("unfold", {"X": x}, ["Y"],
               {"kernel_sizes": _pair(kernel_sizes), "strides": _pair(strides),
                "paddings": pads, "dilations": _pair(dilations)}, name)


def im2sequence(input: Variable, filter_size=1, stride=1, padding=0,  # noqa: A002
                input_image_size=None, out_stride=1, name=None) -> Variable:
    """Each image's filter_size blocks as one sequence of rows (a LoDTensor)."""
    if input_image_size is not None:
        raise ValueError("im2sequence: input_image_size (per-image real sizes) is not "
                         "supported; pass images of one size")
    pads = [int(padding)] * 4 if isinstance(padding, int) else [int(p) for p in padding]
    if len(pads) == 2:
        pads = pads * 2
    return _op("im2sequence", {"X": input}, ["Out"],
               {"kernels": _pair(filter_size), "strides": _pair(stride), "paddings": pads},
               name)


def ctc_greedy_decoder(input: Variable, blank: int, name=None) -> Variable:  # noqa: A002
    """The best path of CTC probabilities per sequence: argmax ids, repeats merged, blanks
    dropped (a LoDTensor of int64 ids)."""
    from paddle_ir.layers.nn import topk

    _, ids = topk(input, 1)
    return _op("ctc_align", {"Input": ids}, ["Output"],
               {"blank": int(blank), "merge_repeated": True}, name)


def edit_distance(input: Variable, label: Variable, normalized: bool = True,  # noqa: A002
                  ignored_tokens=None, input_length=None, label_length=None):
    """(distances [nseq, 1], sequence count [1]) between LoD id sequences; ignored_tokens
    are erased from both first."""
    if input_length is not None or label_length is not None:
        raise ValueError("edit_distance: padded inputs with lengths are not supported; pass "
                         "LoDTensors")
    if ignored_tokens:
        tokens = [int(t) for t in ignored_tokens]
        input = _op("sequence_erase", {"X": input}, ["Out"], {"tokens": tokens})  # noqa: A001
        label = _op("sequence_erase", {"X": label}, ["Out"], {"tokens": tokens})
    return _op("edit_distance", {"Hyps": input, "Refs": label},
               {"Out": "float32", "SequenceNum": "int64"}, {"normalized": bool(normalized)})


def argmin(x: Variable, axis: int = 0) -> Variable:
    """The index of the first minimum along axis (int64), via a stable argsort."""
    from paddle_ir.layers.extra_nn import strided_slice
    from paddle_ir.layers.tensor_more import argsort
    from paddle_ir.layers.tensor_ops import reshape

    rank = len(x.shape)
    axis = axis % rank
    _, order = argsort(x, axis=axis)
    first = strided_slice(order, [axis], [0], [1], [1])
    shape = [d if d >= 0 else -1 for i, d in enumerate(x.shape) if i != axis]
    if sum(1 for d in shape if d < 0) > 1:
        raise ValueError(f"argmin: x may have at most one unknown dim besides axis, got "
                         f"{list(x.shape)}")
    return reshape(first, shape or [1])


def filter_by_instag(ins: Variable, ins_tag: Variable, filter_tag: Variable, is_lod: bool):
    """(the instances of ins whose tags meet filter_tag, their loss weights)."""
    helper = LayerHelper("filter_by_instag")
    out = helper.create_variable_for_type_inference(ins.dtype)
    weight = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    index_map = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("filter_by_instag",
                     inputs={"Ins": ins, "Ins_tag": ins_tag, "Filter_tag": filter_tag},
                     outputs={"Out": out, "LossWeight": weight, "IndexMap": index_map},
                     attrs={"is_lod": bool(is_lod)})
    return out, weight
