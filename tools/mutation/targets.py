"""Which tests run against which module's mutants: the one table to edit when files move.

Each entry maps a module (a path, or a glob of paths) to test-file globs under tests/.
A glob is a file name or a path relative to tests/ (`ops/test_registry.py`), matched at any
depth. An op module with no entry of its own gets the default rule `_op_tests`: the test
files whose name holds the module's stem (tests/ops/sequence_ops/test_sequence_pool.py),
and when there are none, the test files whose text names the stem. The tests mutation
testing asked for (docs/testing.md) live in their subject's test file, so each module's
entry lists that file.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_EXECUTOR_TESTS = ("executor/test_executor.py", "executor/test_allocator.py",
                   "executor/test_inplace.py", "executor/test_scope.py",
                   "executor/test_sub_blocks.py", "executor/test_no_need_buffer.py",
                   "executor/test_plan.py", "executor/test_runner.py", "executor/test_steps.py",
                   "layers/test_control_flow.py", "ops/test_harness.py",
                   "ops/test_storage_types.py")  # dispatch.py's storage fallback

# module glob -> test-file globs (matched anywhere under tests/).
TARGETS: dict[str, tuple[str, ...]] = {
    # the ops machinery
    "ops/registry.py": ("ops/test_registry.py", "ops/test_kernel_contract.py",
                        "ops/test_harness.py", "core/test_schema.py", "analysis/test_checker.py",
                        "ops/test_storage_types.py", "framework/test_framework.py"),
    "ops/context.py": ("ops/test_context.py", "ops/test_kernel_contract.py", "ops/test_harness.py",
                       "ops/test_storage_types.py", "executor/test_executor.py",
                       "ops/tensor/test_reshape_family.py", "framework/test_framework.py"),
    # op modules whose tests are not named after them
    "ops/optimizers/sgd.py": ("optimizer/test_optimizers.py",),
    "ops/optimizers/adam.py": ("optimizer/test_optimizers.py", "ops/optimizers/test_adam.py"),
    "ops/optimizers/momentum.py": ("optimizer/test_optimizers.py",),
    "ops/optimizers/adagrad.py": ("optimizer/test_optimizers.py",),
    "ops/optimizers/optimizer_common.py": ("optimizer/test_optimizers.py",),
    "ops/sequence_ops/sequence_pool.py": ("sequence_ops/test_sequence_pool.py",
                                          "sequence_ops/test_sequence_ops.py"),
    # core values and files
    "paddle_ir/core/lod_tensor.py": ("core/test_lod_tensor.py", "sequence_ops/test_lod_reset.py",
                                     "core/test_tensor_io.py"),
    "paddle_ir/core/selected_rows.py": ("core/test_selected_rows.py",
                                        "ops/test_storage_types.py", "math/test_sum.py"),
    "paddle_ir/core/tensor_io.py": ("core/test_tensor_io.py", "io/test_io.py"),
    "paddle_ir/core/csr.py": ("core/test_csr.py", "nn/test_sparse_dot.py",
                              "core/test_segments.py"),
    # the executor: every file of it (plan.py, dispatch.py, steps.py, runner.py, ...)
    "executor/*.py": _EXECUTOR_TESTS,
}

# What `make mutation` runs when no module is named: the core modules.
DEFAULT_MODULES = (
    "ops/registry.py", "ops/context.py", "ops/sequence_ops/sequence_pool.py",
    "ops/optimizers/sgd.py", "ops/optimizers/adam.py",
    "paddle_ir/core/lod_tensor.py", "paddle_ir/core/selected_rows.py",
    "paddle_ir/core/tensor_io.py", "paddle_ir/core/csr.py",
    "executor/runner.py", "executor/executor.py", "executor/plan.py",
    "executor/dispatch.py", "executor/steps.py",
)


def _find(pattern: str) -> list[Path]:
    return sorted(p for p in (ROOT / "tests").rglob(pattern) if p.is_file())


def _op_tests(stem: str) -> list[Path]:
    named = _find(f"test_*{stem}*.py")
    if named:
        return named
    return [p for p in _find("test_*.py") if stem in p.read_text(encoding="utf-8")]


def tests_for(module: str) -> list[str]:
    """Test files (relative to the root) that run against `module`'s mutants."""
    path = Path(module)
    globs = next((g for pattern, g in TARGETS.items() if path.match(pattern)), None)
    if globs is not None:
        files = [p for g in globs for p in _find(g)]
    elif path.parts[0] == "ops":
        files = _op_tests(path.stem)
    else:
        raise SystemExit(f"no tests are listed for {module}; add it to tools/mutation/targets.py")
    seen: dict[str, None] = {}
    for p in files:
        seen.setdefault(str(p.relative_to(ROOT)), None)
    return list(seen)


def expand(modules: list[str]) -> list[str]:
    """Module arguments (paths or globs, relative to the root) as existing module paths."""
    out: list[str] = []
    for m in modules:
        hits = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(m) if p.name != "__init__.py")
        if not hits:
            raise SystemExit(f"no module matches {m!r}")
        out += [h for h in hits if h not in out]
    return out
