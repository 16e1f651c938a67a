"""Places: where Fluid 1.x says a program runs (`CPUPlace()`, `CUDAPlace(0)`, ...).

paddle-ir computes with numpy on the CPU only. The place classes exist so that
Fluid programs, which construct them on nearly every page, run unchanged: a
CUDA place is accepted and runs on the CPU, with one warning per process so the
substitution is never silent. `is_compiled_with_cuda()` answers False, which
is what well-written Fluid programs test before choosing a CUDA place.
"""

from __future__ import annotations

import warnings

from paddle_ir.core.errors import PaddleIRError


class Place:
    """A device; equal to another place of the same kind and device id."""

    kind = ""

    def __init__(self, device_id: int = 0):
        self.device_id = int(device_id)

    def is_cpu_place(self) -> bool:
        return self.kind == "cpu"

    def is_gpu_place(self) -> bool:
        return self.kind == "cuda"

    def is_cuda_pinned_place(self) -> bool:
        return self.kind == "cuda_pinned"

    def gpu_device_id(self) -> int:
        return self.device_id

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.device_id == self.device_id

    def __hash__(self) -> int:
        return hash((self.kind, self.device_id))


class CPUPlace(Place):
    kind = "cpu"

    def __init__(self):
        super().__init__(0)

    def __repr__(self) -> str:
        return "CPUPlace"


class CUDAPlace(Place):
    kind = "cuda"

    def __repr__(self) -> str:
        return f"CUDAPlace({self.device_id})"


class CUDAPinnedPlace(Place):
    kind = "cuda_pinned"

    def __init__(self):
        super().__init__(0)

    def __repr__(self) -> str:
        return "CUDAPinnedPlace"


def is_compiled_with_cuda() -> bool:
    """False: paddle-ir has no CUDA kernels (Fluid programs branch on this)."""
    return False


def get_cuda_device_count() -> int:
    """0: no CUDA devices (Fluid's fluid.core.get_cuda_device_count)."""
    return 0


def cpu_places(device_count: int | None = None) -> list[CPUPlace]:
    """Fluid's `fluid.cpu_places`: `device_count` CPU places (one by default: one device)."""
    return [CPUPlace() for _ in range(device_count or 1)]


def cuda_places(device_ids=None) -> list[CUDAPlace]:
    """Fluid's `fluid.cuda_places`: CUDA places (they run on the CPU; see resolve_place)."""
    return [CUDAPlace(i) for i in (device_ids if device_ids is not None else [0])]


_warned_cuda = False


def warn_cuda_once(what: str) -> None:
    """One UserWarning per process that a CUDA request runs on the CPU instead."""
    global _warned_cuda
    if not _warned_cuda:
        _warned_cuda = True
        warnings.warn(f"{what}: paddle-ir has no CUDA; running on the CPU instead "
                      f"(results are the same, only slower)", UserWarning, stacklevel=3)


_CPU_SPELLINGS = ("cpu", "cpuplace", "cpuplace()")


def resolve_place(place) -> str:
    """The executor's device key ('cpu') for any place a Fluid program passes.

    Accepts None, a Place object, a Place class (a common slip: `CPUPlace`
    without the call), or the strings 'cpu'/'cuda'/'gpu'. A CUDA place warns
    once and resolves to the CPU.
    """
    if place is None:
        return "cpu"
    if isinstance(place, type) and issubclass(place, Place):
        place = place() if place is not CUDAPlace else CUDAPlace(0)
    if isinstance(place, Place):
        if place.kind != "cpu":
            warn_cuda_once(repr(place))
        return "cpu"
    if isinstance(place, str):
        text = place.lower()
        if text in _CPU_SPELLINGS:
            return "cpu"
        if text.startswith(("cuda", "gpu")):
            warn_cuda_once(f"place {place!r}")
            return "cpu"
    raise PaddleIRError(
        f"place {place!r} is not a place; paddle-ir runs on the CPU",
        hint="pass fluid.CPUPlace() (a CUDAPlace also works and runs on the CPU)")
