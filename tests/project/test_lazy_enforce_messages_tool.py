"""tools/lazy_enforce_messages.py: enforce's f-string messages become lambdas, the text
of every message unchanged."""

import ast

from tools.lazy_enforce_messages import _eager_sites, rewrite

SOURCE = '''def rule(ctx, shapes):
    for k, s in enumerate(shapes):
        ctx.enforce(len(s) == 2, f"X[{k}] must be 2-D, got {s}")
    ctx.enforce(bool(shapes), "a constant message stays as it is")
    ctx.enforce(len(shapes) < 9 and all(len(s) == 2 for s in shapes) and shapes[0][0] > 0,
                f"this message is long enough that the lambda cannot go in front of it {1}, ok"
                f" and a second piece")
    ctx.enforce(True, "fine", hint=f"hint {len(shapes)}")
'''


def test_f_string_messages_become_lambdas_with_the_same_text():
    new, long_lines = rewrite(SOURCE)
    assert long_lines == []
    assert 'ctx.enforce(len(s) == 2, lambda: f"X[{k}] must be 2-D, got {s}")' in new
    assert '"a constant message stays as it is")' in new
    assert "shapes[0][0] > 0, lambda:\n" in new  # too long in front: the line before
    assert 'hint=lambda: f"hint {len(shapes)}"' in new
    assert _eager_sites(ast.parse(new)) == [] and len(_eager_sites(ast.parse(SOURCE))) == 3
    messages = []

    class Ctx:
        def enforce(self, cond, message, hint=None):
            messages.append(message() if callable(message) else message)
            if hint is not None:
                messages.append(hint() if callable(hint) else hint)

    for source in (SOURCE, new):
        scope = {}
        exec(compile(source, "<rule>", "exec"), scope)  # noqa: S102 - the test's own text
        scope["rule"](Ctx(), [[1, 2], [3]])
    half = len(messages) // 2
    assert messages[:half] == messages[half:]
    assert messages[1] == "X[1] must be 2-D, got [3]"


def test_no_op_module_formats_an_enforce_message_before_it_is_needed():
    """Every op's inference rule runs on each compile: an eager f-string message is paid
    for on every plan (issue 24's compile cost). The tool's --check lists any."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "ops"
    eager = [f"{path.relative_to(root.parent)}:{line}"
             for path in sorted(root.rglob("*.py"))
             for line, _, _ in _eager_sites(ast.parse(path.read_text()))]
    assert eager == [], "f-string enforce messages; run python -m tools.lazy_enforce_messages"
