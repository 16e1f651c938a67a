"""List every module-level name of Fluid's Python modules and every attribute of their
public classes, from Paddle's own sources, as a table of facts (module, name, kind).

    python -m tools.fluid_api_names SRC_ROOT [--source TEXT] > tests/data/fluid_api_names.tsv

SRC_ROOT is a directory holding `paddle/fluid/` (a checkout of PaddlePaddle/Paddle's
`python/` directory, or an unpacked paddlepaddle wheel). The sources are parsed with
`ast`, never imported or run. Only facts are written: no code, docstring or comment.

What counts: in each module (tests and generated protobuf bindings excepted) the
names a `def`, `class` or assignment binds at module level, also inside module-level
`if`/`try` blocks; imports are left out (they re-export what another row lists). In
each public class (no leading underscore) every name its body binds: methods,
properties, class attributes, dunders and underscores included. Instance state set in
methods (`self._x = ...`) is not listed: it is not part of any class's surface.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

SKIP_PARTS = {"tests", "proto", "unittests"}


def module_name(path: Path, fluid: Path) -> str:
    """`layers/nn.py` -> `layers.nn`; a package's `__init__.py` -> its dotted path ('' at top)."""
    rel = path.relative_to(fluid).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _bound(targets) -> list[str]:
    names = []
    for target in targets:
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            names += _bound(target.elts)
    return names


def _body_names(body) -> list[tuple[str, ast.AST]]:
    """(name, node) for what a block binds, looking into if/try/with blocks at that level."""
    found = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node))
        elif isinstance(node, ast.Assign):
            found += [(n, node) for n in _bound(node.targets)]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            found += [(n, node) for n in _bound([node.target])]
        elif isinstance(node, ast.If):
            found += _body_names(node.body) + _body_names(node.orelse)
        elif isinstance(node, ast.Try):
            found += _body_names(node.body) + _body_names(node.orelse)
            for handler in node.handlers:
                found += _body_names(handler.body)
            found += _body_names(node.finalbody)
        elif isinstance(node, ast.With):
            found += _body_names(node.body)
    return found


def _decorators(node) -> set[str]:
    names = set()
    for dec in getattr(node, "decorator_list", []):
        if isinstance(dec, ast.Name):
            names.add(dec.id)
        elif isinstance(dec, ast.Attribute):
            names.add(dec.attr)
    return names


def _member_kind(node) -> str:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        decorators = _decorators(node)
        if "property" in decorators or "setter" in decorators:
            return "property"
        if "staticmethod" in decorators:
            return "staticmethod"
        if "classmethod" in decorators:
            return "classmethod"
        return "method"
    if isinstance(node, ast.ClassDef):
        return "class"
    return "attribute"


def module_rows(source: str, module: str) -> list[tuple[str, str, str]]:
    """(module, name, kind) rows of one module's source; a class's members as `Class.member`."""
    tree = ast.parse(source)
    rows = {}
    for name, node in _body_names(tree.body):
        if isinstance(node, ast.ClassDef):
            rows[name] = "class"
            if not name.startswith("_"):
                for member, inner in _body_names(node.body):
                    rows[f"{name}.{member}"] = _member_kind(inner)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            rows[name] = "function"
        else:
            rows.setdefault(name, "variable")
    return [(module, name, kind) for name, kind in rows.items()]


def collect(src_root: Path) -> list[tuple[str, str, str]]:
    fluid = src_root / "paddle" / "fluid"
    if not (fluid / "__init__.py").is_file():
        raise SystemExit(f"{src_root} holds no paddle/fluid/__init__.py")
    rows = []
    for path in sorted(fluid.rglob("*.py")):
        if SKIP_PARTS & set(path.relative_to(fluid).parts) or path.name.endswith("_pb2.py"):
            continue
        rows += module_rows(path.read_text(encoding="utf-8"), module_name(path, fluid))
    return sorted(set(rows))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src_root", type=Path)
    parser.add_argument("--source", default="",
                        help="where the sources came from, written in the table's header")
    args = parser.parse_args(argv)
    rows = collect(args.src_root)
    out = sys.stdout
    out.write("# Fluid's Python names (module, name, kind), generated by tools/fluid_api_names.py"
              " from Paddle's sources; facts only, no code\n")
    if args.source:
        out.write(f"# source: {args.source}\n")
    for module, name, kind in rows:
        out.write(f"{module}\t{name}\t{kind}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
