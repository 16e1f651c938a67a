"""Make the f-string messages of `ctx.enforce` lazy: `f"..."` -> `lambda: f"..."`.

    python -m tools.lazy_enforce_messages [--check] [PATH ...]     (default: ops)

An op's inference rule runs on every compile; an f-string message passed to
`ctx.enforce(cond, f"...")` is formatted every time, even when the condition holds.
`enforce` also takes a callable (ops/context.py) and calls it only on failure. This
rewrites every f-string message or hint of an `enforce` call into a lambda, as text
(comments and layout kept): `lambda: ` goes before the f-string; where that makes a
line longer than 100 characters the lambda moves to the end of the line before (or
the argument to a line of its own). Then it checks that each rewritten module's AST,
with those lambdas unwrapped, is the old one: the messages are byte-identical. Lines
it cannot fit are listed for a hand edit. `--check` lists the eager messages and
exits 1 if there are any (tests/project/test_lazy_enforce_messages_tool.py runs it
over ops/).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

LIMIT = 100


def _eager_sites(tree: ast.AST) -> list[tuple[int, int, ast.Call]]:
    """(line, byte column, call) of every f-string message or hint of an enforce call."""
    sites = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "enforce":
            args = list(node.args[1:3]) + [k.value for k in node.keywords
                                           if k.arg in ("message", "hint")]
            sites += [(a.lineno, a.col_offset, node) for a in args
                      if isinstance(a, ast.JoinedStr)]
    return sites


class _Unwrap(ast.NodeTransformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "enforce":
            node.args = [a.body if isinstance(a, ast.Lambda) else a for a in node.args]
            for k in node.keywords:
                if isinstance(k.value, ast.Lambda):
                    k.value = k.value.body
        return node


def rewrite(source: str) -> tuple[str, list[int]]:
    """(the rewritten source, lines left too long)."""
    lines = source.splitlines(keepends=True)
    long_lines = []
    sites = sorted(_eager_sites(ast.parse(source)), key=lambda s: s[:2], reverse=True)
    for lineno, col, call in sites:
        raw = lines[lineno - 1].encode()
        head, rest = raw[:col], raw[col:]
        text = (head + b"lambda: " + rest).decode()
        if len(text.rstrip("\n")) > LIMIT:
            prev = lines[lineno - 2].rstrip("\n") if lineno >= 2 else ""
            first = call.args[0]
            indent = first.col_offset if first.lineno == lineno else (
                len(lines[lineno - 1]) - len(lines[lineno - 1].lstrip()))
            own_line = head.decode().rstrip() + "\n" + " " * indent + "lambda: " + rest.decode()
            if not head.strip() and prev.endswith(",") and len(prev) + 8 <= LIMIT:
                lines[lineno - 2] = prev + " lambda:\n"
                text = lines[lineno - 1]
            elif head.strip() and not head.rstrip().endswith(b"(") and all(
                    len(part) <= LIMIT for part in own_line.rstrip("\n").split("\n")):
                text = own_line
            else:
                long_lines.append(lineno)
        lines[lineno - 1] = text
    return "".join(lines), long_lines


def main(argv: list[str]) -> int:
    check = "--check" in argv
    roots = [Path(a) for a in argv if a != "--check"] or [Path("ops")]
    eager = 0
    for root in roots:
        for path in sorted(root.rglob("*.py") if root.is_dir() else [root]):
            source = path.read_text()
            sites = _eager_sites(ast.parse(source))
            if not sites:
                continue
            eager += len(sites)
            if check:
                for lineno, _, _ in sites:
                    print(f"{path}:{lineno}: eager enforce message")
                continue
            new, long_lines = rewrite(source)
            if ast.dump(_Unwrap().visit(ast.parse(new))) != ast.dump(ast.parse(source)):
                raise SystemExit(f"{path}: the rewrite changed more than the messages")
            path.write_text(new)
            for lineno in long_lines:
                print(f"{path}:{lineno}: longer than {LIMIT} characters, fit it by hand")
    return 1 if check and eager else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
