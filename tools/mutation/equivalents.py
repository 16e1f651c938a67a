"""equivalent.toml: the survivors set apart from the score, and whether each still exists.

Two kinds of entry, each naming a module, an operator, the source line as it reads unmutated
and as the mutant reads (stripped), and a reason:
- `[[equivalent]]`: no caller can tell the mutant from the code (the reason says why);
- `[[tuning]]`: a tuning constant moved by one (a cache size): callers see a different limit,
  and the tests read the limit from the module instead of pinning a number no contract fixes.

An entry that matches no mutant of the current code is stale (the line changed or moved to
another module) and must be fixed or removed: `stale_entries` finds those without cosmic-ray,
by checking that the module still holds the line and that the entry's operator turns that
line into the entry's mutant (a token-level model of cosmic-ray's operators, below);
report.py checks the same against cosmic-ray's own mutants. Kept free of cosmic-ray so that
tests/project/test_mutation_equivalents.py runs in `make test`.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path

import tomllib

from tools.mutation.targets import ROOT

EQUIVALENT_FILE = Path(__file__).with_name("equivalent.toml")
KINDS = ("equivalent", "tuning")


@dataclass(frozen=True)
class Entry:
    kind: str  # "equivalent" or "tuning"
    module: str
    operator: str
    line: str
    mutant: str
    reason: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.module, self.operator, self.line, self.mutant)


def load_entries(path: Path = EQUIVALENT_FILE) -> list[Entry]:
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    unknown = set(data) - set(KINDS)
    if unknown:
        raise ValueError(f"{path}: unknown table(s) {sorted(unknown)}; use {list(KINDS)}")
    entries = []
    for kind in KINDS:
        for raw in data.get(kind, []):
            entry = Entry(kind, raw["module"], raw["operator"], raw["line"].strip(),
                          raw["mutant"].strip(), raw.get("reason", "").strip())
            if not entry.reason:
                raise ValueError(f"{path}: the {kind} entry for {entry.key} gives no reason")
            entries.append(entry)
    seen: set = set()
    for e in entries:
        if e.key in seen:
            raise ValueError(f"{path}: {e.key} is listed twice")
        seen.add(e.key)
    return entries


# -- a token-level model of the operators' rewrites -------------------------------------------

_SYMBOLS = {
    "Eq": ["=="], "NotEq": ["!="], "Lt": ["<"], "LtE": ["<="], "Gt": [">"], "GtE": [">="],
    "Is": ["is"], "IsNot": ["is", "not"], "In": ["in"], "NotIn": ["not", "in"],
    "Add": ["+"], "Sub": ["-"], "Mul": ["*"], "Div": ["/"], "FloorDiv": ["//"], "Mod": ["%"],
    "Pow": ["**"], "LShift": ["<<"], "RShift": [">>"], "BitAnd": ["&"], "BitOr": ["|"],
    "BitXor": ["^"], "MatMult": ["@"], "USub": ["-"], "UAdd": ["+"], "Invert": ["~"],
    "Not": ["not"], "Delete": [],  # Delete: see produces
}
_SWAPS = {
    "ReplaceTrueWithFalse": (["True"], ["False"]), "ReplaceFalseWithTrue": (["False"], ["True"]),
    "ReplaceAndWithOr": (["and"], ["or"]), "ReplaceOrWithAnd": (["or"], ["and"]),
    "ReplaceBreakWithContinue": (["break"], ["continue"]),
    "ReplaceContinueWithBreak": (["continue"], ["break"]),
}
_SKIP = {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}


def tokens(text: str) -> list[str]:
    """The tokens of one source line (an unfinished statement's too: `f(a,` is a line)."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type not in _SKIP:
                out.append(tok.string)
    except (tokenize.TokenError, IndentationError):
        pass  # a line of a longer statement ends inside its brackets
    return out


def _replacements(old: list[str], find: list[str], put: list[str]):
    n = len(find)
    for i in range(len(old) - n + 1):
        if old[i:i + n] == find:
            yield old[:i] + put + old[i + n:]


def _number(tok: str) -> float | None:
    try:
        return float(ast.literal_eval(tok))
    except (SyntaxError, ValueError, TypeError):
        return None  # not a number, or a complex one


def _number_replaced(old: list[str], new: list[str]) -> bool:
    """One number n became n + 1 or n - 1 (written `-1` for 0 - 1: two tokens)."""
    for i, tok in enumerate(old):
        if not tok[:1].isdigit() and not (tok[:1] == "." and tok[1:2].isdigit()):
            continue
        value = _number(tok)
        if value is None:
            continue
        for width, sign in ((1, 1), (2, -1)):
            got = new[i:i + width]
            if new[:i] != old[:i] or new[i + width:] != old[i + 1:] or len(got) != width:
                continue
            if width == 2 and got[0] != "-":
                continue
            mutated = _number(got[-1])
            if mutated is not None and sign * mutated in (value + 1, value - 1):
                return True
    return False


def produces(operator: str, line: str, mutant: str) -> bool:
    """Whether `operator` (cosmic-ray's name, e.g. core/ReplaceComparisonOperator_Eq_Gt)
    can turn the stripped source `line` into the stripped `mutant`."""
    provider, _, name = operator.partition("/")
    old, new = tokens(line), tokens(mutant)
    if name == "StatementDeletion":
        # the statement becomes `pass`; a comment after it stays
        return new == ["pass"] or (new[:1] == ["pass"] and new[1:] == old[-1:]
                                   and old[-1].startswith("#"))
    if name == "ReturnValueReplacement":
        return old[:1] == ["return"] and new[:2] == ["return", "None"]
    if name in _SWAPS:
        find, put = _SWAPS[name]
        return any(new == cand for cand in _replacements(old, find, put))
    family, _, pair = name.partition("_")
    if family in ("ReplaceComparisonOperator", "ReplaceBinaryOperator",
                  "ReplaceUnaryOperator"):
        a, _, b = pair.partition("_")
        if a not in _SYMBOLS or b not in _SYMBOLS:
            return False
        # cosmic-ray names a replacement From_To, and a removal Delete_From
        find, put = (_SYMBOLS[b], []) if a == "Delete" else (_SYMBOLS[a], _SYMBOLS[b])
        return any(new == cand for cand in _replacements(old, find, put))
    if name == "NumberReplacer":
        return _number_replaced(old, new)
    if name == "AddNot":
        return any(new == old[:i + 1] + ["not"] + old[i + 1:]
                   for i, tok in enumerate(old) if tok in ("if", "elif", "while"))
    if name == "ExceptionReplacer":
        return any(new == old[:i] + ["CosmicRayTestingException"] + old[i + 1:]
                   for i, tok in enumerate(old) if "except" in old[:i])
    if name == "ZeroIterationForLoop":
        if old[:1] != ["for"] or "in" not in old:
            return False
        cut = old.index("in") + 1
        colon = len(old) - 1 - old[::-1].index(":") if ":" in old else len(old)
        return new == old[:cut] + ["[", "]"] + old[colon:]
    if name == "RemoveDecorator":
        return old[:1] == ["@"] and new == []
    return False


def stale_entries(entries: list[Entry], root: Path = ROOT) -> list[tuple[Entry, str]]:
    """Entries that match no mutant of the current code, each with what is wrong."""
    out = []
    for e in entries:
        path = root / e.module
        if not path.is_file():
            out.append((e, f"{e.module} does not exist"))
            continue
        lines = {ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()}
        # " / " joins the lines of a mutant spanning several; a line may hold " / " itself
        parts = [e.line] if e.line in lines else [p.strip() for p in e.line.split(" / ")]
        if not all(p in lines for p in parts):
            out.append((e, f"{e.module} has no line {e.line!r}"))
        elif not produces(e.operator, e.line, e.mutant):
            out.append((e, f"{e.operator} does not turn {e.line!r} into {e.mutant!r}"))
    return out
