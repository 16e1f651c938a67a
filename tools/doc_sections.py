"""Top-level sections of a generated Markdown page that several generators share.

docs/fluid_coverage.md holds one `# Title` section per generator (the Fluid layers, the
operators, ...). Each generator rewrites only its own section, so a stale check of one
section never depends on another's.
"""

from __future__ import annotations


def _bounds(text: str, title: str) -> tuple[int, int] | None:
    """Start and end offsets of the `# title` section (it ends at the next `# ` heading)."""
    heading = f"# {title}\n"
    if text.startswith(heading):
        start = 0
    else:
        found = text.find("\n" + heading)
        if found < 0:
            return None
        start = found + 1
    following = text.find("\n# ", start + len(heading) - 1)
    return start, (len(text) if following < 0 else following + 1)


def section(text: str, title: str) -> str:
    """The `# title` section of `text`, heading included, without trailing blank lines;
    "" when there is none."""
    bounds = _bounds(text, title)
    return "" if bounds is None else text[bounds[0]:bounds[1]].rstrip("\n") + "\n"


def replace_section(text: str, title: str, body: str) -> str:
    """`text` with its `# title` section replaced by `body` (appended when absent); one
    blank line separates sections."""
    body = body.rstrip("\n") + "\n"
    bounds = _bounds(text, title)
    if bounds is None:
        head = text.rstrip("\n")
        return (head + "\n\n" if head else "") + body
    start, end = bounds
    tail = text[end:]
    return text[:start] + body + ("\n" + tail if tail else "")
