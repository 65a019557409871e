"""``sparrow``'s sub-commands: each loads only its own module, and the help reads as if all were loaded."""

from __future__ import annotations

import subprocess
import sys

import pytest

from server.cli import build_parser
from server.cli.commands import COMMANDS

_NAMES = [name for name, _, _ in COMMANDS]


def _help(argv: list[str], capsys: pytest.CaptureFixture[str], *, lazily: bool) -> str:
    parser = build_parser(argv) if lazily else build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(argv)
    return capsys.readouterr().out


def test_the_command_list_reads_the_same_as_with_every_command_loaded(capsys: pytest.CaptureFixture[str]) -> None:
    listed = _help(["--help"], capsys, lazily=True)
    assert listed == _help(["--help"], capsys, lazily=False)
    for name, _, summary in COMMANDS:
        assert name in listed
        assert summary.split()[0] in listed


@pytest.mark.parametrize("name", _NAMES)
def test_each_commands_own_help_is_the_full_one(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    own = _help([name, "--help"], capsys, lazily=True)
    assert own.startswith(f"usage: sparrow {name} ")
    assert own == _help([name, "--help"], capsys, lazily=False)


def test_an_unknown_command_is_refused_with_the_list(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        build_parser(["scrore", "x.json"]).parse_args(["scrore", "x.json"])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'scrore'" in err and "'score'" in err and "'loadtest'" in err


def test_the_help_loads_neither_the_rules_engine_nor_the_database() -> None:
    code = (
        "import sys\n"
        "from server.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('game', 'numpy', 'sqlalchemy', 'starlette', 'rich') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[]"
