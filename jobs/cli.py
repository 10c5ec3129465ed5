"""The ``redecode`` command: one click group, one module per subcommand.

Exit codes: 0 ok, 1 failure (an input could not be read to its end, or a check failed), 2 usage
error, 3 ``diff --check`` found changes.
"""

from __future__ import annotations

import click

from redecode import __version__

from .backfill_cmd import backfill
from .diff_cmd import diff
from .query_cmd import query
from .rules_cmd import rules
from .run_cmd import run


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="redecode")
def cli() -> None:
    """Re-decode the HTML in WARC/ARC archives the way browsers do, into UTF-8 Parquet with provenance.

    \b
    Exit codes: 0 ok; 1 an input failed (see stderr and _run.json); 2 usage error;
    3 `diff --check` found changes.
    """


cli.add_command(run)
cli.add_command(diff)
cli.add_command(backfill)
cli.add_command(query)
cli.add_command(rules)


def main() -> None:
    """Console-script entry point."""
    cli()
