"""docs/paddle_format.md's PIR coverage table is generated from the op table and current."""

from pathlib import Path

from paddle_ir.paddle_format.pir import OPS
from paddle_ir.paddle_format.pir.coverage import BEGIN, END, coverage_table, rewrite
from paddle_ir.paddle_format.pir.op_table import WITHOUT

DOCS = Path(__file__).resolve().parents[3] / "docs" / "paddle_format.md"


def test_the_page_holds_the_current_table():
    page = DOCS.read_text(encoding="utf-8")
    assert coverage_table() in page, ("regenerate: python -m "
                                      "paddle_ir.paddle_format.pir.coverage docs/paddle_format.md")


def test_every_entry_is_a_row_naming_its_old_op():
    rows = sorted((line.split("`")[1], line.split("`")[3]) for line in
                  coverage_table().splitlines() if line.startswith("| `pd_op."))
    assert rows == sorted([(name, entry.type) for name, entry in OPS.items()]
                          + [(name, entry.type) for (name, _), entry in WITHOUT.items()])
    assert "| `pd_op.deformable_conv` (operand #3 null) | `deformable_conv_v1` |" in (
        coverage_table())


def test_rewrite_replaces_only_the_block():
    page = f"before\n{BEGIN}\n| stale |\n{END}\nafter\n"
    assert rewrite(page) == f"before\n{coverage_table()}\nafter\n"
