"""paddle-ir: PaddlePaddle Fluid's program IR, with LoD and SelectedRows, run by numpy.

    import paddle_ir as pir
    x = pir.layers.data("x", [-1, 784])
    y = pir.layers.fc(x, 10, act="softmax")
    exe = pir.Executor()
    exe.run(pir.default_startup_program())
    out, = exe.run(feed={"x": batch}, fetch_list=[y])
"""

import ops  # noqa: F401,I001 - registers every operator before the builder needs them
from paddle_ir import initializer, io, layers, optimizer, regularizer, unique_name
from paddle_ir.backward import append_backward
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.dtypes import DataType
from paddle_ir.core.errors import PaddleIRError, ProgramError
from paddle_ir.core.lod_tensor import LoDTensor, create_lod_tensor
from paddle_ir.core.rank_table import LoDRankTable
from paddle_ir.core.selected_rows import SelectedRows
from paddle_ir.core.storage import storage_type, tostype
from paddle_ir.core.tensor_array import LoDTensorArray
from paddle_ir.framework import (
    Block,
    Operator,
    Parameter,
    Program,
    Variable,
    default_main_program,
    default_startup_program,
    grad_var_name,
    program_guard,
)
from paddle_ir.io import (
    load_inference_model,
    load_persistables,
    save_inference_model,
    save_persistables,
    save_train_program,
)
from paddle_ir.param_attr import ParamAttr
from paddle_ir.proto import framework_pb2

VarType = framework_pb2.VarDesc.VarType
CPUPlace = "cpu"
__version__ = "0.1.0"

_EXECUTOR_NAMES = {"Executor", "Scope", "StorageFallbackWarning", "global_scope", "scope_guard"}


def __getattr__(name):
    # The executor sits beside the builder, not below it: load it on first use so
    # that `import executor` and `import paddle_ir` never import each other.
    if name in _EXECUTOR_NAMES:
        import executor

        return getattr(executor, name)
    raise AttributeError(f"module 'paddle_ir' has no attribute {name!r}")


__all__ = [
    "CSRTensor", "StorageFallbackWarning",
    "append_backward",
    "optimizer", "regularizer",
    "Block", "CPUPlace", "DataType", "Executor", "LoDRankTable", "LoDTensor", "LoDTensorArray",
    "Operator", "PaddleIRError",
    "ParamAttr", "Parameter", "Program", "ProgramError", "Scope", "SelectedRows", "VarType",
    "Variable", "create_lod_tensor", "default_main_program", "default_startup_program",
    "global_scope", "grad_var_name", "initializer", "layers", "program_guard", "scope_guard",
    "unique_name", "storage_type", "tostype",
    "io", "load_inference_model", "load_persistables", "save_inference_model",
    "save_persistables", "save_train_program",
]
