"""`redecode report DIR -o report.html`: the provenance of a run (and a diff) as charts, in one file."""

from __future__ import annotations

import click

from redecode_jobs.options import CONTEXT_SETTINGS, output_options
from redecode_jobs.stops import Refused, stopping_cleanly
from redecode.query import QueryError
from redecode.report import ReportError, write_report
from redecode.schema import SchemaVersionError


@click.command(name="report", context_settings=CONTEXT_SETTINGS)
@click.argument("directory")
@click.option("-o", "--output", required=True, metavar="FILE.html",
              help="The HTML file to write (replaced if it exists).")
@click.option("--run", "more_runs", multiple=True, metavar="DIR",
              help="Another run directory to include (repeatable).")
@click.option("--diff", "diff_dir", metavar="DIFF_DIR",
              help="Add the charts of a diff: the --out DIR of `redecode diff` (diff.parquet, _diff.json).")
@click.option("--examples", type=click.IntRange(min=0), default=5, show_default=True,
              help="With --diff: changed records shown per category, old and new text side by side.")
@output_options("Do not print where the report was written (warnings and errors still).")
def report(directory: str, output: str, more_runs: tuple[str, ...], diff_dir: str | None,
           examples: int, quiet: bool) -> None:
    """Write an HTML report with charts of a run's provenance (and of a diff).

    DIRECTORY is the --out DIR of `redecode run`. The page shows records by status and reason,
    the failed and truncated records (URL, input, offset, error, and the `redecode query` line
    that lists them all), encodings by deciding step, the detector's answers with their
    confidence, decode errors, top-level domain x encoding, encodings by language, the decisions
    for review (each with its text under the competing readings side by side, the records read
    again from their archives) and each input's outcome (from _run.json); with --diff, the
    changed records by category, the encoding transitions and examples of old and new text side
    by side. Each chart's caption sums the rows the chart draws. It reads the provenance columns
    only, never the text column.

    The file is self-contained: the chart library's JavaScript is inlined and the page loads
    nothing from the network, so it can be mailed or archived. Needs the [report] extra
    (pip install 'warc-redecode[report]').

    \b
    Example:
      redecode report out -o report.html
      redecode diff old out --out d && redecode report out --diff d -o report.html

    \b
    Exit codes: 0 ok; 1 a part of a run cannot be read (cut short, damaged: the message names
    it); 2 usage error (no such run directory, not a run or diff directory, an output in a
    directory that does not exist, the [report] extra missing); 4 the operating system refused
    to write the output (disk full...); 130/143 stopped by SIGINT/SIGTERM.
    """
    with stopping_cleanly(output, kept=None):
        try:
            data = write_report([directory, *more_runs], output, diff=diff_dir, examples=examples)
        except SchemaVersionError as exc:  # (not a run's output: the command line was right)
            raise Refused(str(exc)) from exc
        except (QueryError, ReportError, ImportError) as exc:
            raise click.UsageError(str(exc)) from exc
    if not quiet:
        click.echo(f"report of {data.records} records written to {output}", err=True)
