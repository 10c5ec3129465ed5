"""``redecode rules [--json]``: list the shipped rule sets with their digests."""

from __future__ import annotations

import click

from redecode_jobs.options import CONTEXT_SETTINGS, output_options, table_width
from redecode_jobs.printing import print_data
from redecode.rules import format_rules


@click.command(name="rules", context_settings=CONTEXT_SETTINGS)
@click.option("--json", "as_json", is_flag=True, help="Print the rule sets as JSON on stdout.")
@output_options("Nothing on stderr but warnings and errors (rules prints nothing else there).")
def rules(as_json: bool, quiet: bool) -> None:
    """List the rule sets `redecode run --rules NAME` accepts: name, description, digest and
    every parameter. The digest changes whenever anything that can change the output does
    (a parameter, the Encoding Standard tables, the detector version, the decision code).
    Lines are broken to fit the terminal ($COLUMNS; piped output is not broken).

    \b
    Exit codes: 0 ok; 4 the output could not be written (a full disk under `> FILE`; a reader
    that closed the pipe).
    """
    print_data(format_rules(as_json=as_json, width=table_width()))
