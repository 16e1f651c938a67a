"""Write ops/_index.py: which module of paddle_ir.ops registers each op type.

    python -m tools.gen_op_index     (make op-index)

The registry loads op modules on demand (ops/registry.py): `get_op_def(type)`
imports the module this table names. The table is read off the registrations
themselves: every module in ops/ and its family packages is imported and each OpDef
records the module whose import registered it (grad ops sit in their forward op's module).
The old table is not consulted, so the command also works after op modules move.
tests/test_op_index.py fails, naming this command, when the table is stale.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INDEX_PATH = os.path.join(ROOT, "ops", "_index.py")
COMMAND = "make op-index (python -m tools.gen_op_index)"
_WIDTH = 100

_HEADER = f'''"""Which module of paddle_ir.ops registers each op type (grad ops included).

Generated from the registrations themselves by `{COMMAND}`;
do not edit. ops/registry.py imports a module the first time one of its op types is asked
for; tests/test_op_index.py fails when this table is stale.
"""

MODULE_OPS: dict[str, tuple[str, ...]] = {{
'''


def build_index() -> dict[str, tuple[str, ...]]:
    """Import every module of paddle_ir.ops; group the registered op types by module."""
    import paddle_ir.ops
    from paddle_ir.ops import registry

    # The table being rewritten may name modules that have moved since: while the modules
    # import, the registry must not load an op's owner from it.
    listed = dict(registry._MODULE_OF)
    registry._MODULE_OF.clear()
    try:
        # ops/ holds the machinery at its root and one package per op family (ops/nn/, ...)
        for info in pkgutil.walk_packages(paddle_ir.ops.__path__, prefix="paddle_ir.ops."):
            if info.name != "paddle_ir.ops._index":
                importlib.import_module(info.name)
    finally:
        registry._MODULE_OF.update(listed)
    grouped: dict[str, list[str]] = {}
    for op_type, opdef in registry._REGISTRY.items():
        if opdef.module.startswith("paddle_ir.ops."):  # (not the ops a test registers)
            grouped.setdefault(opdef.module, []).append(op_type)
    return {module: tuple(sorted(grouped[module])) for module in sorted(grouped)}


def render(index: dict[str, tuple[str, ...]]) -> str:
    lines = [_HEADER]
    for module, types in index.items():
        lines.append(f'    "{module}": (\n')
        line = " " * 8
        for t in types:
            item = f'"{t}",'
            if len(line) + len(item) + 1 > _WIDTH and line.strip():
                lines.append(line.rstrip() + "\n")
                line = " " * 8
            line += item + " "
        lines.append(line.rstrip() + "\n")
        lines.append("    ),\n")
    lines.append("}\n")
    return "".join(lines)


def main() -> int:
    text = render(build_index())
    with open(INDEX_PATH, "w") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(INDEX_PATH, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
