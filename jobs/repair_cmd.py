"""``redecode repair PARQUET... --text-col COL [--key COL] --out DIR``: repair text-only priors."""

from __future__ import annotations

import json
import sys

import click

from redecode_jobs.options import CONTEXT_SETTINGS, output_options, workers_option
from redecode_jobs.printing import print_data
from redecode_jobs.stops import Refused, stopping_cleanly
from redecode.logs import printable


@click.command(name="repair", context_settings=CONTEXT_SETTINGS)
@click.argument("inputs", nargs=-1, required=True, metavar="PARQUET...")
@click.option("--text-col", required=True, metavar="COL", help="Column holding the old decoded text.")
@click.option("--key", "key", multiple=True, metavar="COL",
              help="Column copied to the output to join it back to the input (repeatable); "
                   "source_path and source_row are always there.")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), help="Directory to write.")
@workers_option
@click.option("--force", is_flag=True, help="Replace the output of an earlier repair in --out.")
@output_options("No summary on stderr (warnings and errors still).")
@click.option("--json", "as_json", is_flag=True, help="Print the repair summary as JSON on stdout.")
def repair(inputs, text_col, key, out, workers, force, quiet, as_json) -> None:
    """Repair mojibake in old decoded text whose raw bytes are gone, with ftfy's encoding fixes
    only (no cosmetic fixes), and record how.

    PARQUET is a file, a directory (searched recursively for *.parquet) or a glob. Every row gives
    one output row in DIR/<name>.<8 hex>.parquet: the --key columns, source_path and source_row,
    the repaired text, ftfy's plan (replayable with ftfy.apply_plan on the old text), a status
    (repaired, unchanged or doubtful) and why it is doubtful. DIR/_repair.json is the manifest.

    \b
    Exit codes: 0 every input repaired; 1 an input could not be read (the others are done;
    _repair.json names it); 2 usage error (no input, a missing or non-text column, --out
    holding another repair's output or other files without --force, or being written by another
    repair); 4 the operating system refused to write the output (disk full...); 130/143 stopped
    by SIGINT/SIGTERM. A repair into a directory holding an earlier repair of the same columns
    resumes it: the inputs finished there are skipped (run the same command again to finish).
    """
    # Imported here: ftfy loads its tables at import, which other commands should not pay.
    from redecode.repair import RepairLocked, RepairUsageError, repair as run_repair

    with stopping_cleanly(out, kept="the inputs finished are kept in {out}"):
        try:
            summary = run_repair(list(inputs), out, text_col=text_col, key=key, workers=workers, force=force)
        except RepairLocked as exc:  # (one line: the command line was right)
            raise Refused(str(exc)) from exc
        except RepairUsageError as exc:
            raise click.UsageError(str(exc)) from exc
    if as_json:
        m = summary.manifest
        print_data(json.dumps({"counts": m["counts"], "inputs": [
            {k: e[k] for k in ("path", "part", "outcome", "error", "rows")} for e in m["inputs"]],
            "ftfy": m["ftfy"]["version"], "summary": summary.describe()}, indent=2, sort_keys=True))
    elif not quiet:
        click.echo(f"{summary.describe()} -> {out}", err=True)
    for message in summary.errors:
        click.echo(f"redecode: error: {printable(message)}", err=True)
    sys.exit(summary.exit_code)
