"""The core layer: dtypes, errors, values (LoDTensor, SelectedRows) and files.

Nothing here knows about operators, the builder or the executor.

It also answers for Fluid's `fluid.core` (`import paddle_ir as fluid`): the
names a Fluid program takes from it (`fluid.core.LoDTensor`, `Scope`,
`CPUPlace`, `is_compiled_with_cuda`, `EOFException`, `VarDesc.VarType.FP32`)
resolve on first use; `Scope` comes from the executor, above this layer, so
paddle_ir/__init__.py (which imports both) sets it here.
"""

from __future__ import annotations

_FLUID_NAMES = ("CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "EOFException", "LoDTensor", "Scope",
                "SelectedRows", "VarDesc", "get_cuda_device_count", "is_compiled_with_cuda")


def __getattr__(name: str):
    # Explicit imports on first use (never by computed module name).
    if name in ("CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "get_cuda_device_count",
                "is_compiled_with_cuda"):
        from paddle_ir.core import places

        return getattr(places, name)
    if name == "LoDTensor":
        from paddle_ir.core.lod_tensor import LoDTensor

        return LoDTensor
    if name == "SelectedRows":
        from paddle_ir.core.selected_rows import SelectedRows

        return SelectedRows
    if name == "EOFException":
        from paddle_ir.core.errors import EOFException

        return EOFException
    if name == "VarDesc":
        from paddle_ir.core.dtypes import FluidVarDesc

        return FluidVarDesc
    raise AttributeError(f"module 'paddle_ir.core' has no attribute {name!r}; Fluid's "
                         f"fluid.core names here: {list(_FLUID_NAMES)}")
