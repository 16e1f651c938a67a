"""`paddle-ir COMMAND ...` builds only that command's parsers (start-up); the table that
says which module adds which command must match what the modules add."""

import argparse

import pytest

from paddle_ir.cli import main as cli_main


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_the_command_table_names_every_command_of_every_module():
    full = _commands(cli_main.build_parser())
    assert set(cli_main._COMMANDS) == set(full)
    for word in cli_main._COMMANDS:
        module = cli_main.command_module(word)
        alone = _commands(cli_main.build_parser(word))
        assert word in alone, f"{module.__name__}.add_parser does not add {word!r}"
        assert alone[word].format_help() == full[word].format_help()


@pytest.mark.parametrize("argv, word", [
    (["run", "m", "--feed", "x=x.npy"], "run"),
    (["--debug", "dump", "p.pb"], "dump"),
    (["--help"], None),
    ([], None),
])
def test_the_command_word_is_the_first_non_option(argv, word):
    assert cli_main._command_word(argv) == word


def test_an_unknown_command_gets_the_whole_parser_and_its_choices(capsys):
    with pytest.raises(SystemExit) as exc:
        cli_main.main(["rnu", "model"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'rnu'" in err and "'run'" in err and "'merge-checkpoint'" in err


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        cli_main.main(["--help"])
    out = capsys.readouterr().out
    for word in cli_main._COMMANDS:
        assert word in out
