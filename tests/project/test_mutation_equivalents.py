"""tools/mutation/equivalent.toml stays true to the code: every entry matches a mutant of
the current source (tools/mutation/equivalents.py), checked without cosmic-ray."""

import pytest

from tools.mutation.equivalents import Entry, load_entries, produces, stale_entries


def test_every_equivalent_and_tuning_entry_matches_a_mutant_of_the_current_code():
    entries = load_entries()
    assert entries, "equivalent.toml lists nothing"
    stale = [f"{e.module}: {why}" for e, why in stale_entries(entries)]
    assert stale == [], "fix or remove these entries:\n" + "\n".join(stale)


def test_every_entry_gives_a_reason_and_a_known_kind():
    for e in load_entries():
        assert e.kind in ("equivalent", "tuning") and len(e.reason) > 20, e


def _entry(tmp_path, line, mutant, operator, source=None):
    (tmp_path / "m.py").write_text((source or line) + "\n")
    return Entry("equivalent", "m.py", operator, line, mutant, "a reason")


@pytest.mark.parametrize("line, mutant, operator", [
    ("if a == b:", "if a > b:", "core/ReplaceComparisonOperator_Eq_Gt"),
    ("if a is not b:", "if a != b:", "core/ReplaceComparisonOperator_IsNot_NotEq"),
    ("x = f(y)", "pass", "paddle-ir/StatementDeletion"),
    ("x = y[0]", "x = y[ -1]", "core/NumberReplacer"),
    ("t = s * 1e3", "t = s * 1001.0", "core/NumberReplacer"),
    ("z = bytes(16)  # why", "z = bytes( 15)  # why", "core/NumberReplacer"),
    ("flag: bool = False", "flag: bool = True", "core/ReplaceFalseWithTrue"),
    ("n = a.reshape(3, -1)", "n = a.reshape(3, ~1)", "core/ReplaceUnaryOperator_USub_Invert"),
    ("x = a.reshape(-1)[0]", "x = a.reshape(1)[0]", "core/ReplaceUnaryOperator_Delete_USub"),
    ("elif k > 1:", "elif not k > 1:", "core/AddNot"),
    ("except KeyError as exc:", "except CosmicRayTestingException as exc:",
     "core/ExceptionReplacer"),
    ("continue  # later", "break  # later", "core/ReplaceContinueWithBreak"),
    ("for n in v.args:", "for n in []:", "core/ZeroIterationForLoop"),
    # a line holding " / " (the separator of a mutant's lines) is one line
    ("return 1 / (n if k == 2 else m)", "return 1 / (n if k <= 2 else m)",
     "core/ReplaceComparisonOperator_Eq_LtE"),
])
def test_an_entry_whose_operator_makes_its_mutant_is_current(tmp_path, line, mutant, operator):
    assert produces(operator, line, mutant)
    assert stale_entries([_entry(tmp_path, line, mutant, operator)], tmp_path) == []


@pytest.mark.parametrize("line, mutant, operator, why", [
    # the line moved on: the module no longer holds it
    ("x = y[0]", "x = y[ -1]", "core/NumberReplacer", "has no line"),
    # the operator cannot make that mutant
    ("if a == b:", "if a >= b:", "core/ReplaceComparisonOperator_Eq_Gt", "does not turn"),
    ("x = y[0]", "x = y[2]", "core/NumberReplacer", "does not turn"),
    ("x = f(y)", "x = None", "paddle-ir/StatementDeletion", "does not turn"),
    ("x = a.reshape(-1)", "x = a.reshape(~1)", "core/ReplaceUnaryOperator_Delete_USub",
     "does not turn"),
    ("if a == b:", "if a == c:", "core/NoSuchOperator", "does not turn"),
])
def test_an_entry_matching_no_mutant_is_reported_stale(tmp_path, line, mutant, operator, why):
    source = "x = y[1]" if why == "has no line" else None
    stale = stale_entries([_entry(tmp_path, line, mutant, operator, source)], tmp_path)
    assert len(stale) == 1 and why in stale[0][1]


def test_an_entry_listed_twice_or_without_a_reason_is_refused(tmp_path):
    entry = ('[[equivalent]]\nmodule = "m.py"\noperator = "core/NumberReplacer"\n'
             'line = "x = 0"\nmutant = "x = 1"\nreason = "{}"\n')
    path = tmp_path / "equivalent.toml"
    path.write_text(entry.format("the value is never read") * 2)
    with pytest.raises(ValueError, match="listed twice"):
        load_entries(path)
    path.write_text(entry.format(" "))
    with pytest.raises(ValueError, match="gives no reason"):
        load_entries(path)
    path.write_text(entry.replace("[[equivalent]]", "[[equivalents]]").format("r"))
    with pytest.raises(ValueError, match="unknown table"):
        load_entries(path)
