"""The operator library: the registry machinery at this root, one package per Paddle op family.

The root holds what knows no op: `registry` (OpDef, register_op, on-demand loading),
`context` (what InferShape / InferVarType rules see), `grad` (grad-op naming and makers),
`_index` (the generated table below), and the helpers several families share: `storage`
(SelectedRows rules and kernels), `simple_op` (register_simple), `broadcast` (Paddle's
`axis` rule) and `special` (scipy functions loaded on first use).

The ops live in packages named as Paddle's operator folders: math/, elementwise/,
reduce_ops/, tensor/, nn/, loss/, sequence_ops/, rnn/, controlflow/, optimizers/,
metrics/, detection/, sparse/, distributed_ops/. A file is named after an op type it
registers (`_v2` only when the op type has it) or after the Paddle source its ops come from,
and holds each op's whole story: spec, shape and var-type rules, kernels, grad maker and
grad op (tests/ops/test_op_file_names.py checks the names). A file that registers nothing
is a helper of its family.

Each op module registers its ops with `register_op` when it is imported. Importing this
package imports none of them: the registry imports the module that registers an op type
the first time `get_op_def` is asked for it, from the table `ops/_index.py` (op module ->
the op types it registers).

To add an op: write its module in its family's folder (or add the op to the family file it
belongs with), run `make op-index` (tools/gen_op_index.py) to rewrite ops/_index.py, and
test it in tests/ops/. tests/test_op_index.py fails while the table is stale.
"""

if __name__ != "paddle_ir.ops":  # the repository root on sys.path must not make a second copy
    raise ImportError(f"ops/ installs as paddle_ir.ops; import that, not {__name__}")

from paddle_ir.ops.registry import get_op_def, load_all, registered_op_types

__all__ = ["get_op_def", "load_all", "registered_op_types"]
