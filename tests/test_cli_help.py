"""Every command has help text and the group answers --version."""

import pytest
from click.testing import CliRunner

from redecode_jobs.cli import cli


def test_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert "redecode" in result.output


@pytest.mark.parametrize("command", ["run", "diff", "backfill", "query", "report", "repair", "rules"])
def test_every_command_has_help(command):
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0, result.output
    assert cli.get_command(None, command).help


def test_group_lists_every_command():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for command in ("run", "diff", "backfill", "query", "report", "repair", "rules"):
        assert command in result.output
