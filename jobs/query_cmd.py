"""`redecode query DIR [SQL]`: DuckDB over a run's Parquet, or the standard report."""

from __future__ import annotations

import click

from redecode_jobs.options import CONTEXT_SETTINGS, expanded_option, output_options, table_width
from redecode_jobs.printing import print_data
from redecode_jobs.stops import Refused, stopping_cleanly
from redecode.query import (QueryError, cut_to_fit, execute, format_report, format_result, open_query,
                            report)
from redecode.schema import SchemaVersionError


@click.command(name="query", context_settings=CONTEXT_SETTINGS)
@click.argument("directory")
@click.argument("sql", required=False)
@click.option("--run", "more_runs", multiple=True, metavar="DIR",
              help="Another run directory to include (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True,
              help="Output format; in a terminal a table fits its width ($COLUMNS), the cells that do not "
                   "fit cut (marked …; -x shows them whole); piped, every cell is whole.")
@click.option("--bom", is_flag=True,
              help="With --format csv: begin with a UTF-8 byte order mark, for spreadsheets that read a "
                   "CSV without one in the system's legacy code page (Excel). csv and json are UTF-8, "
                   "without BOM unless asked.")
@expanded_option("row")
@output_options("Nothing on stderr but warnings and errors (without -q, also the note that a table's cells "
                "were cut to fit the terminal).")
def query(directory: str, sql: str | None, more_runs: tuple[str, ...], fmt: str, bom: bool, expanded: bool,
          quiet: bool) -> None:
    """Query run outputs with DuckDB (read-only, confined to the run directories), or print the standard report.

    DIRECTORY is the --out DIR of `redecode run`, a local path or a URL (s3://bucket/run). SQL sees
    two views: `decodes` (one row per
    record, the output columns plus `run`) and `runs` (one row per input of each _run.json). The
    --out DIR of `redecode repair` is the view `repairs` (one row per text; it has no report).
    Without SQL, prints the standard report (status and skip reasons, encodings by deciding step,
    declared label vs decoded encoding, header/meta conflicts, late metas, low-confidence detector
    decisions, decode errors by encoding and TLD, failed inputs); it never reads the text column.

    \b
    Example:
      redecode query out "SELECT encoding, source, count(*) FROM decodes GROUP BY ALL"

    \b
    Exit codes: 0 ok; 1 a part of a run cannot be read (cut short, damaged: the message names
    it); 2 usage error (no such run directory, SQL that does not parse or that would write); 4
    the output could not be written (a full disk under `> FILE`; a reader that closed the pipe);
    130/143 stopped by SIGINT/SIGTERM.
    """
    if bom and fmt != "csv":
        raise click.UsageError(f"--bom goes with --format csv (a BOM is for spreadsheets reading CSV), not {fmt}")
    runs = [directory, *more_runs]
    width = table_width()
    with stopping_cleanly(directory, kept=None):
        try:
            if sql is None:
                rep = report(runs)
                results = list(rep.sections.values())
                text = format_report(rep, fmt, width=width, expanded=expanded)
            else:
                con = open_query(runs, repairs=True)
                try:
                    results = execute(con, sql)
                finally:
                    con.close()
                text = "\n\n".join(format_result(r, fmt, width=width, expanded=expanded) for r in results)
        except SchemaVersionError as exc:  # (not a run's output: the command line was right)
            raise Refused(str(exc)) from exc
        except (QueryError, ImportError) as exc:
            raise click.UsageError(str(exc)) from exc
        _print(text, fmt, bom)
    if fmt == "table" and not expanded and not quiet and width is not None and cut_to_fit(results, width):
        click.echo("redecode: cells were cut to fit the terminal (marked …): -x shows every value whole, "
                   "and piped output is never cut", err=True)


#: The UTF-8 byte order mark (U+FEFF encoded), which --bom puts before CSV.
UTF8_BOM = "\ufeff".encode("utf-8")


def _print(text: str, fmt: str, bom: bool) -> None:
    """*text* on stdout, whole and flushed (:func:`redecode_jobs.printing.print_data`: exit 4 and
    one line when any of it cannot be written, a full disk or the file size limit under
    ``> file``; exit 4 and no message for a reader that closes the pipe early, ``| head``): a
    table as the terminal takes text; csv and json as UTF-8 bytes, whatever the locale's
    encoding, after a BOM when *bom* (csv only)."""
    print_data(text, utf8=fmt != "table", prefix=UTF8_BOM if bom else b"")
