"""``redecode backfill PRIOR_DIR --rules NEW --out DIR``: targeted re-decode after a rules update."""

from __future__ import annotations

import json
import logging
import sys

import click

from redecode_jobs.options import (
    CONTEXT_SETTINGS,
    EXIT_ALL_FAILED,
    all_failed,
    executor_options,
    fail_on_failed_option,
    output_options,
    rules_option,
    workers_option,
)
from redecode_jobs.printing import print_data
from redecode_jobs.stops import Refused, stopping_cleanly
from redecode.logs import printable
from redecode.record import DEFAULT_MAX_RECORD_BYTES
from redecode.rundir import RunDirectoryConflict, RunDirectoryLocked


@click.command(name="backfill", context_settings=CONTEXT_SETTINGS)
@click.argument("prior_dir")
@rules_option("The new rules (see `redecode rules`).")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False),
              help="Run directory to write (a local path or a URL, s3://...).")
@workers_option
@click.option(
    "--max-record-bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_RECORD_BYTES,
    show_default=True,
    help="Cap on a re-read record's decoded payload size (bytes); use the prior run's value.",
)
@executor_options("one Spark task per prior part")
@click.option("--force", is_flag=True,
              help="Replace parts in --out made under other rules (otherwise refused, as by `run`).")
@fail_on_failed_option
@output_options("No summary on stderr (warnings and errors still).")
@click.option("--json", "as_json", is_flag=True, help="Print the backfill summary as JSON on stdout.")
def backfill(prior_dir, rules, out, workers, max_record_bytes, executor, master, force, fail_on_failed, quiet,
             as_json) -> None:
    """Write to --out what `redecode run --rules RULES` over PRIOR_DIR's inputs would write,
    reading again only the records whose result can change under RULES.

    PRIOR_DIR is a run directory of `redecode run` (its _run.json, parts and _done markers), local
    or a URL (s3://...); its inputs must still be at the paths it recorded. Rows whose status does not depend on the rules
    are copied; decisions are replayed from the stored provenance where possible; the rest are
    read again by offset. _run.json gets a "backfill" section: rows re-read and copied, bytes read.
    --out is a run directory like `run`'s: parts made there under other rules are refused (--force
    replaces them); other inputs' parts made under the same rules stay and stay listed (one that
    an earlier run into --out did not read to its end is a warning, not an error of the backfill).

    \b
    Exit codes: 0 done; 1 an input of the prior run had been cut short or damaged (its rows up to
    the error are kept, as in the prior run); 2 usage error or PRIOR_DIR cannot be backfilled; 4 the operating
    system refused to write the output (disk full...); 5 with --fail-on-failed, records failed and
    none was decoded (1 wins over 5); 130/143 stopped by SIGINT/SIGTERM.
    """
    # Imported here, as every command imports its module on use (jobs/cli.py).
    from redecode.backfill import BackfillError, backfill as run_backfill

    with stopping_cleanly(out):
        try:
            summary = run_backfill(prior_dir, rules, out, workers=workers, max_record_bytes=max_record_bytes,
                                   executor=executor, master=master, force=force)
        except (BackfillError, ImportError) as exc:
            raise click.UsageError(str(exc)) from exc
        except RunDirectoryConflict as exc:
            if exc.details:
                logging.getLogger("redecode.cli").info("%s", exc.details)  # every difference, with -v
            raise click.UsageError(str(exc)) from exc
        except RunDirectoryLocked as exc:
            raise Refused(str(exc)) from exc
    if as_json:
        m = summary.manifest
        print_data(json.dumps({"backfill": m["backfill"], "counts": m["counts"], "rules": m["rules"]["name"],
                               "rules_digest": m["rules"]["digest"], "summary": summary.describe()},
                              indent=2, sort_keys=True))
    elif not quiet:
        click.echo(f"{summary.describe()} -> {out}", err=True)
    for message in summary.earlier_errors:
        click.echo(f"redecode: warning (an earlier run into {out}, not the prior run): {message}", err=True)
    for message in summary.errors:
        click.echo(f"redecode: error (as in the prior run): {printable(message)}", err=True)
    counts = summary.manifest["counts"]
    if fail_on_failed and all_failed(counts):
        click.echo(f"redecode: error: every record that was not skipped failed ({counts['failed']} failed, "
                   "none decoded); error_kind and error in the rows say why", err=True)
        sys.exit(summary.exit_code or EXIT_ALL_FAILED)
    sys.exit(summary.exit_code)
