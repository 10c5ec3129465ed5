"""Print (or --write) docs/cli.md, the command-line reference: `redecode --help` and each command's
`--help`, as click renders them at a fixed width (so the page does not depend on the terminal).

    .venv/bin/python tools/cli_reference.py            # print the page
    .venv/bin/python tools/cli_reference.py --write    # rewrite docs/cli.md

`tests/test_docs.py` checks that docs/cli.md is what this prints.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from redecode_jobs.cli import cli

PAGE = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
#: Characters per line of the rendered help (click wraps to it).
WIDTH = 100


def _context(command: click.Command, name: str, parent: click.Context | None) -> click.Context:
    # the command's own context settings (-h/--help), as when it runs; subcommands inherit them
    settings = {"terminal_width": WIDTH, "max_content_width": WIDTH, **command.context_settings}
    return click.Context(command, info_name=name, parent=parent, **settings)


def _help(command: click.Command, name: str, parent: click.Context | None) -> str:
    return command.get_help(_context(command, name, parent))


def page() -> str:
    """The Markdown page: the group's help, then each command's, in the order `--help` lists them."""
    root = _context(cli, "redecode", None)
    out = [
        "# Command-line reference",
        "",
        "Generated from `--help` by `tools/cli_reference.py --write` (do not edit; `tests/test_docs.py`",
        "checks it is current). The [README](../README.md) shows the commands at work; the other pages",
        "in [docs/](.) explain what the options do.",
        "",
        "## redecode",
        "",
        "```text",
        _help(cli, "redecode", None),
        "```",
    ]
    for name in cli.list_commands(root):
        out += ["", f"## redecode {name}", "", "```text", _help(cli.get_command(root, name), name, root), "```"]
    return "\n".join(out) + "\n"


def main() -> None:
    if "--write" in sys.argv:
        PAGE.write_text(page(), encoding="utf-8")
    else:
        sys.stdout.write(page())


if __name__ == "__main__":
    main()
