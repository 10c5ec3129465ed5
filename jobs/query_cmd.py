"""`redecode query DIR [SQL]`: DuckDB over a run's Parquet, or the standard report."""

from __future__ import annotations

import click

from redecode_jobs.options import CONTEXT_SETTINGS, output_options, table_width
from redecode.query import QueryError, execute, format_report, format_result, open_query, report
from redecode.schema import SchemaVersionError


@click.command(name="query", context_settings=CONTEXT_SETTINGS)
@click.argument("directory")
@click.argument("sql", required=False)
@click.option("--run", "more_runs", multiple=True, metavar="DIR",
              help="Another run directory to include (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True,
              help="Output format; table lines fit the terminal ($COLUMNS; piped output is not cut to a "
                   "width, but each cell is cut to 60 characters: use csv or json for whole values).")
@output_options("Nothing on stderr but warnings and errors (query prints nothing else there).")
def query(directory: str, sql: str | None, more_runs: tuple[str, ...], fmt: str, quiet: bool) -> None:
    """Query run outputs with DuckDB (read-only, confined to the run directories), or print the standard report.

    DIRECTORY is the --out DIR of `redecode run`, a local path or a URL (s3://bucket/run). SQL sees
    two views: `decodes` (one row per
    record, the output columns plus `run`) and `runs` (one row per input of each _run.json).
    Without SQL, prints the standard report (status and skip reasons, encodings by deciding step,
    declared label vs decoded encoding, header/meta conflicts, late metas, low-confidence detector
    decisions, decode errors by encoding and TLD, failed inputs); it never reads the text column.

    \b
    Example:
      redecode query out "SELECT encoding, source, count(*) FROM decodes GROUP BY ALL"

    \b
    Exit codes: 0 ok; 2 usage error (no such run directory, SQL that does not parse or
    that would write).
    """
    runs = [directory, *more_runs]
    try:
        if sql is None:
            click.echo(format_report(report(runs), fmt, width=table_width()))
            return
        con = open_query(runs)
        try:
            results = execute(con, sql)
        finally:
            con.close()
    except (QueryError, SchemaVersionError, ImportError) as exc:
        raise click.UsageError(str(exc)) from exc
    width = table_width()
    click.echo("\n\n".join(format_result(r, fmt, width=width) for r in results))
