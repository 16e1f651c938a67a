"""Which of a Paddle op's attributes and slots paddle-ir may keep without interpreting them.

A Paddle program's ops carry more than their math: framework attributes (where
the op was built, its role in training), backend switches (oneDNN, cuDNN,
quantization passes) and, in newer Paddle versions, attributes whose saved
value is a no-op. paddle-ir keeps all of these verbatim through a round trip
(OpDesc.paddle_attrs) but never lets them change a result. Anything else an op
spec does not declare could change results, so the converter refuses it, naming
the op and the attribute, instead of running something different from Paddle.
"""

from __future__ import annotations

# Attributes Paddle's framework adds to every op: bookkeeping, never math.
FRAMEWORK_ATTRS = frozenset({
    "op_role", "op_role_var", "op_namescope", "op_callstack", "op_device",
    "with_quant_attr", "name",
    # kAllKernelsMustComputeRuntimeShape: tells Paddle's executor to skip InferShape
    # (hash, the sequence ops, ...); paddle-ir infers shapes its own way either way
    "ALL_KERNELS_MUST_COMPUTE_RUNTIME_SHAPE",
    # while / conditional_block / recurrent: variables Paddle's garbage collector must not
    # free early (kSkipEagerDeletionVars); memory only, paddle-ir frees by its own plan
    "skip_eager_deletion_vars",
})

# Backend and pass switches ("extra" attributes in Paddle's op definitions). Paddle's
# plain CPU kernels ignore them, so ignoring them reproduces Paddle's CPU results.
EXTRA_ATTRS = frozenset({
    "use_mkldnn", "use_cudnn", "mkldnn_data_type", "use_quantizer", "is_test",
    "workspace_size_MB", "exhaustive_search", "use_addto", "force_fp32_output",
    "fuse_relu_before_depthwise_conv", "fuse_with_relu", "fuse_relu", "fuse_activation",
    "fuse_alpha", "fuse_beta", "fuse_residual_connection", "fuse_brelu",
    "fuse_brelu_threshold", "Scale_in", "Scale_out", "Scale_in_eltwise", "Scale_weights",
    "Scale_x", "Scale_y", "scale_x", "scale_y", "scale_out", "x_data_format",
    "y_data_format", "min_row_size_to_use_multithread", "use_onednn", "onednn_data_type",
    "fused_output_scale", "fused_reshape_Out", "fused_transpose_Out",
    "fused_reshape_X", "fused_transpose_X", "fused_reshape_Y", "fused_transpose_Y",
    "use_cpu_seed", "force_cpu", "sampling_id", "enable_int8", "fuse_dropout", "trainer_id",
    "grad_inplace",
})

# Attributes accepted only at the value that makes them a no-op (newer attributes, and
# switches for behaviours paddle-ir does not implement); any other value would change
# the result, so it is refused. None as the op type means any op; a grad op shares its
# forward op's entries.
NOOP_VALUES: dict[tuple[str | None, str], object] = {
    (None, "in_dtype"): -1,
    (None, "out_dtype"): -1,
    (None, "multi_precision"): False,
    ("adam", "amsgrad"): False,
    ("adam", "use_global_beta_pow"): False,
    ("adamw", "amsgrad"): False,
    ("momentum", "rescale_grad"): 1.0,
    ("momentum", "regularization_method"): "",
    ("momentum", "regularization_coeff"): 0.0,
    ("softmax_with_cross_entropy", "numeric_stable_mode"): True,
    ("softmax_with_cross_entropy", "use_softmax"): True,
    ("batch_norm", "trainable_statistics"): False,
    ("uniform_random", "diag_num"): 0,
    ("uniform_random", "diag_step"): 0,
    ("uniform_random", "diag_val"): 1.0,
    ("gaussian_random", "diag_num"): 0,
    ("gaussian_random", "diag_step"): 0,
    ("gaussian_random", "diag_val"): 1.0,
    # fluid 1.x's distributed lookup tables: off in a program that runs on one machine.
    (None, "is_distributed"): False,
    (None, "remote_prefetch"): False,
    (None, "height_sections"): [],
    (None, "epmap"): [],
    (None, "table_names"): [],
    ("lookup_table", "entry"): "none",
    ("lookup_table_v2", "entry"): "none",
    # hierarchical_sigmoid's W gradient as SelectedRows (paddle-ir's is dense).
    ("hierarchical_sigmoid", "is_sparse"): False,
    # fluid 1.x: matmul's multi-head split, softmax's layout tag.
    ("matmul", "head_number"): 1,
    ("softmax", "data_format"): "AnyLayout",
}
# fill_constant's place_type picks the device of the result: never math.
_PLACE_ATTRS = frozenset({"place_type"})



def _keys(op_type: str, name: str):
    forward = op_type[:-5] if op_type.endswith("_grad") else op_type
    return ((op_type, name), (forward, name), (None, name))


def keeps_verbatim(op_type: str, name: str, value, siblings: dict | None = None) -> str | None:
    """Why an attribute the op spec lacks may be kept without interpreting it, or None.

    `siblings` are the op's other attributes (name -> value), for an attribute whose
    no-op condition is agreeing with another one.
    """
    if name in FRAMEWORK_ATTRS:
        return "framework attribute"
    if name in EXTRA_ATTRS or name in _PLACE_ATTRS:
        return "backend attribute"
    for key in _keys(op_type, name):
        if key in NOOP_VALUES:
            want = NOOP_VALUES[key]
            same = (abs(float(value) - float(want)) < 1e-12
                    if isinstance(want, float) and isinstance(value, (int, float))
                    else value == want)
            return "no-op value" if same else None
    return None


def noop_value(op_type: str, name: str):
    """The value at which an attribute is a no-op (for the error message), or None."""
    for key in _keys(op_type, name):
        if key in NOOP_VALUES:
            return NOOP_VALUES[key]
    return None
