"""paddle-ir: PaddlePaddle Fluid's program IR, with LoD and SelectedRows, run by numpy.

    import paddle_ir as pir
    x = pir.layers.data("x", [-1, 784])
    y = pir.layers.fc(x, 10, act="softmax")
    exe = pir.Executor()
    exe.run(pir.default_startup_program())
    out, = exe.run(feed={"x": batch}, fetch_list=[y])

The package holds both the core layer (paddle_ir.core: values, files, errors),
which `ops` and `executor` build on, and the builder, which builds on them.
So that importing the core never drags in the layers above it (and `import
ops` or `import executor` work in any order), the public names below are
loaded on first use (PEP 562) rather than when the package is imported.
"""

__version__ = "0.1.0"
CPUPlace = "cpu"

# public name -> (module, attribute); attribute None means the module itself
_EXPORTS = {
    # values and errors (the core layer)
    "CSRTensor": ("paddle_ir.core.csr", "CSRTensor"),
    "DataType": ("paddle_ir.core.dtypes", "DataType"),
    "LoDRankTable": ("paddle_ir.core.rank_table", "LoDRankTable"),
    "LoDTensor": ("paddle_ir.core.lod_tensor", "LoDTensor"),
    "LoDTensorArray": ("paddle_ir.core.tensor_array", "LoDTensorArray"),
    "PaddleIRError": ("paddle_ir.core.errors", "PaddleIRError"),
    "ProgramError": ("paddle_ir.core.errors", "ProgramError"),
    "SelectedRows": ("paddle_ir.core.selected_rows", "SelectedRows"),
    "create_lod_tensor": ("paddle_ir.core.lod_tensor", "create_lod_tensor"),
    "storage_type": ("paddle_ir.core.storage", "storage_type"),
    "tostype": ("paddle_ir.core.storage", "tostype"),
    "VarType": ("paddle_ir.variable", "VarType"),
    "framework_pb2": ("paddle_ir.proto", "framework_pb2"),
    # the builder
    "Block": ("paddle_ir.framework", "Block"),
    "Operator": ("paddle_ir.framework", "Operator"),
    "Parameter": ("paddle_ir.framework", "Parameter"),
    "Program": ("paddle_ir.framework", "Program"),
    "Variable": ("paddle_ir.framework", "Variable"),
    "default_main_program": ("paddle_ir.framework", "default_main_program"),
    "default_startup_program": ("paddle_ir.framework", "default_startup_program"),
    "grad_var_name": ("paddle_ir.framework", "grad_var_name"),
    "program_guard": ("paddle_ir.framework", "program_guard"),
    "ParamAttr": ("paddle_ir.param_attr", "ParamAttr"),
    "append_backward": ("paddle_ir.backward", "append_backward"),
    "initializer": ("paddle_ir.initializer", None),
    "io": ("paddle_ir.io", None),
    "layers": ("paddle_ir.layers", None),
    "optimizer": ("paddle_ir.optimizer", None),
    "regularizer": ("paddle_ir.regularizer", None),
    "unique_name": ("paddle_ir.unique_name", None),
    "load_inference_model": ("paddle_ir.io", "load_inference_model"),
    "load_persistables": ("paddle_ir.io", "load_persistables"),
    "save_inference_model": ("paddle_ir.io", "save_inference_model"),
    "save_persistables": ("paddle_ir.io", "save_persistables"),
    "save_train_program": ("paddle_ir.io", "save_train_program"),
    # the executor sits beside the builder
    "Executor": ("executor", "Executor"),
    "Scope": ("executor", "Scope"),
    "StorageFallbackWarning": ("executor", "StorageFallbackWarning"),
    "global_scope": ("executor", "global_scope"),
    "scope_guard": ("executor", "scope_guard"),
}


def _load(module_name: str):
    """The module behind an export. Plain import statements, never an import by name:
    paddle-ir imports nothing a string decides (tests/test_bad_inputs.py checks)."""
    if module_name == "paddle_ir.proto":
        import paddle_ir.proto as module
    elif module_name == "paddle_ir.core.csr":
        import paddle_ir.core.csr as module
    elif module_name == "paddle_ir.core.dtypes":
        import paddle_ir.core.dtypes as module
    elif module_name == "paddle_ir.core.rank_table":
        import paddle_ir.core.rank_table as module
    elif module_name == "paddle_ir.core.lod_tensor":
        import paddle_ir.core.lod_tensor as module
    elif module_name == "paddle_ir.core.tensor_array":
        import paddle_ir.core.tensor_array as module
    elif module_name == "paddle_ir.core.errors":
        import paddle_ir.core.errors as module
    elif module_name == "paddle_ir.core.selected_rows":
        import paddle_ir.core.selected_rows as module
    elif module_name == "paddle_ir.core.storage":
        import paddle_ir.core.storage as module
    elif module_name == "paddle_ir.variable":
        import paddle_ir.variable as module
    elif module_name == "paddle_ir.framework":
        import paddle_ir.framework as module
    elif module_name == "paddle_ir.param_attr":
        import paddle_ir.param_attr as module
    elif module_name == "paddle_ir.backward":
        import paddle_ir.backward as module
    elif module_name == "paddle_ir.initializer":
        import paddle_ir.initializer as module
    elif module_name == "paddle_ir.io":
        import paddle_ir.io as module
    elif module_name == "paddle_ir.layers":
        import paddle_ir.layers as module
    elif module_name == "paddle_ir.optimizer":
        import paddle_ir.optimizer as module
    elif module_name == "paddle_ir.regularizer":
        import paddle_ir.regularizer as module
    elif module_name == "paddle_ir.unique_name":
        import paddle_ir.unique_name as module
    elif module_name == "executor":
        import executor as module
    else:  # pragma: no cover - the table above names only the modules listed here
        raise AttributeError(module_name)
    return module


def __getattr__(name):
    try:
        module_name, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'paddle_ir' has no attribute {name!r}") from None
    module = _load(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = ["CPUPlace", *_EXPORTS]
