"""fluid.nets: small networks composed of layers, with Fluid 1.x's names and defaults.

    import paddle_ir.layers.nets as nets        # or: from paddle_ir import fluid; fluid.nets
    pooled = nets.sequence_conv_pool(emb, num_filters=64, filter_size=3, act="tanh",
                                     pool_type="sqrt")

`glu`, the multi-head path of `scaled_dot_product_attention`,
`simple_img_conv_pool` and `img_conv_group` call layers.split, transpose,
dropout, conv2d, pool2d and batch_norm (Fluid's signatures), which come from
the vision and tensor layers.
"""

from __future__ import annotations

from paddle_ir import layers
from paddle_ir.framework import Variable

__all__ = ["glu", "img_conv_group", "scaled_dot_product_attention", "sequence_conv_pool",
           "simple_img_conv_pool"]


def sequence_conv_pool(input: Variable, num_filters: int, filter_size: int,  # noqa: A002
                       param_attr=None, act: str | None = "sigmoid", pool_type: str = "max",
                       bias_attr=None) -> Variable:
    """sequence_pool(sequence_conv(input), pool_type): one row per sequence, [N, num_filters]."""
    conv = layers.sequence_conv(input=input, num_filters=num_filters, filter_size=filter_size,
                                param_attr=param_attr, bias_attr=bias_attr, act=act)
    return layers.sequence_pool(input=conv, pool_type=pool_type)


def glu(input: Variable, dim: int = -1) -> Variable:  # noqa: A002
    """Gated linear unit: split input in halves a, b along `dim`; a * sigmoid(b)."""
    a, b = layers.split(input, num_or_sections=2, dim=dim)
    return layers.elementwise_mul(x=a, y=layers.sigmoid(b))


def _check_attention_inputs(queries: Variable, keys: Variable, values: Variable,
                            num_heads: int) -> None:
    if not queries.dtype == keys.dtype == values.dtype:
        raise TypeError(f"The dtype of keys, values and queries should be the same, got "
                        f"{queries.dtype}, {keys.dtype} and {values.dtype}")
    if not len(queries.shape) == len(keys.shape) == len(values.shape) == 3:
        raise ValueError(f"Inputs queries, keys and values should all be 3-D tensors, got "
                         f"shapes {list(queries.shape)}, {list(keys.shape)} and "
                         f"{list(values.shape)}")
    if queries.shape[-1] != keys.shape[-1]:
        raise ValueError(f"The hidden size of queries and keys should be the same, got "
                         f"{queries.shape[-1]} and {keys.shape[-1]}")
    if keys.shape[-2] != values.shape[-2]:
        raise ValueError(f"The max sequence length in value batch and in key batch should be "
                         f"the same, got {values.shape[-2]} and {keys.shape[-2]}")
    for what, var in (("keys", keys), ("values", values)):
        if var.shape[-1] % num_heads:
            raise ValueError(f"The hidden size of {what} ({var.shape[-1]}) must be divisible "
                             f"by the number of attention heads ({num_heads})")


def scaled_dot_product_attention(queries: Variable, keys: Variable, values: Variable,
                                 num_heads: int = 1, dropout_rate: float = 0.0) -> Variable:
    """softmax(Q K^T / sqrt(d_k)) V over [N, L, d] batches; [N, L_q, d_v].

    With num_heads > 1, Q, K and V are first projected by an fc each
    (num_flatten_dims=2), split into heads of d / num_heads, attended per head
    and joined again, as Fluid's nets.scaled_dot_product_attention does.
    """
    _check_attention_inputs(queries, keys, values, num_heads)
    q, k, v = queries, keys, values
    if num_heads > 1:
        q, k, v = (layers.fc(x, size=x.shape[-1], num_flatten_dims=2) for x in (q, k, v))
        q, k, v = (_split_heads(x, num_heads) for x in (q, k, v))
    key_dim = keys.shape[-1] // num_heads
    product = layers.matmul(layers.scale(q, scale=key_dim ** -0.5), k, transpose_y=True)
    weights = layers.reshape(layers.softmax(layers.reshape(product, [-1, product.shape[-1]])),
                             list(product.shape))
    if dropout_rate:
        weights = layers.dropout(weights, dropout_prob=dropout_rate)
    context = layers.matmul(weights, v)
    if num_heads == 1:
        return context
    joined = layers.transpose(context, perm=[0, 2, 1, 3])
    return layers.reshape(joined, [0, 0, joined.shape[2] * joined.shape[3]])


def _split_heads(x: Variable, num_heads: int) -> Variable:
    """[N, L, d] -> [N, heads, L, d / heads]."""
    shape = [0, 0, num_heads, x.shape[-1] // num_heads]
    return layers.transpose(layers.reshape(x, shape), perm=[0, 2, 1, 3])


def simple_img_conv_pool(input: Variable, num_filters: int, filter_size, pool_size,  # noqa: A002
                         pool_stride, pool_padding=0, pool_type: str = "max",
                         global_pooling: bool = False, conv_stride=1, conv_padding=0,
                         conv_dilation=1, conv_groups=1, param_attr=None, bias_attr=None,
                         act: str | None = None, use_cudnn: bool = True) -> Variable:
    """pool2d(conv2d(input)) on NCHW images, with Fluid's arguments."""
    conv = layers.conv2d(input=input, num_filters=num_filters, filter_size=filter_size,
                         stride=conv_stride, padding=conv_padding, dilation=conv_dilation,
                         groups=conv_groups, param_attr=param_attr, bias_attr=bias_attr,
                         act=act, use_cudnn=use_cudnn)
    return layers.pool2d(input=conv, pool_size=pool_size, pool_type=pool_type,
                         pool_stride=pool_stride, pool_padding=pool_padding,
                         global_pooling=global_pooling, use_cudnn=use_cudnn)


def img_conv_group(input: Variable, conv_num_filter, pool_size, conv_padding=1,  # noqa: A002
                   conv_filter_size=3, conv_act: str | None = None, param_attr=None,
                   conv_with_batchnorm=False, conv_batchnorm_drop_rate=0.0, pool_stride=1,
                   pool_type: str = "max", use_cudnn: bool = True) -> Variable:
    """A VGG block: conv2d (+ batch_norm + dropout) per entry of conv_num_filter, then pool2d.

    conv_padding, conv_filter_size, param_attr, conv_with_batchnorm and
    conv_batchnorm_drop_rate are one value for every conv or a list with one each.
    """
    count = len(conv_num_filter)

    def per_conv(value, what):
        if isinstance(value, (list, tuple)):
            if len(value) != count:
                raise ValueError(f"img_conv_group: {what} has {len(value)} entries for "
                                 f"{count} convolutions")
            return list(value)
        return [value] * count

    paddings = per_conv(conv_padding, "conv_padding")
    sizes = per_conv(conv_filter_size, "conv_filter_size")
    attrs = per_conv(param_attr, "param_attr")
    with_bn = per_conv(conv_with_batchnorm, "conv_with_batchnorm")
    drops = per_conv(conv_batchnorm_drop_rate, "conv_batchnorm_drop_rate")
    x = input
    for k in range(count):
        x = layers.conv2d(input=x, num_filters=conv_num_filter[k], filter_size=sizes[k],
                          padding=paddings[k], param_attr=attrs[k],
                          act=None if with_bn[k] else conv_act, use_cudnn=use_cudnn)
        if with_bn[k]:
            x = layers.batch_norm(input=x, act=conv_act)
            if abs(drops[k]) > 1e-5:
                x = layers.dropout(x, dropout_prob=drops[k])
    return layers.pool2d(input=x, pool_size=pool_size, pool_type=pool_type,
                         pool_stride=pool_stride, use_cudnn=use_cudnn)
