"""The README states what the code does: its column table is the schema's, its commands exist."""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))

import readme_columns  # noqa: E402

from redecode_jobs.cli import cli  # noqa: E402


def readme() -> str:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


def test_column_table_is_the_schema():
    assert readme_columns.current(readme()) == readme_columns.table(), (
        "README's column table is stale: run .venv/bin/python tools/readme_columns.py --write")


def test_commands_named_in_readme_exist():
    named = set(re.findall(r"`redecode ([a-z-]+)", readme()))
    assert named, "the README names no command"
    assert named <= set(cli.list_commands(None)), named - set(cli.list_commands(None))


def test_ci_runs_the_readme_test_command():
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = f.read()
    command = [line for line in ci.splitlines() if line.startswith("python3 -m venv")][0]
    assert command in readme()
