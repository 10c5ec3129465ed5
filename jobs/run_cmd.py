"""``redecode run INPUT... --out DIR``: the nightly re-decode job."""

from __future__ import annotations

import json
import sys

import click

from redecode_jobs.options import executor_options, rules_option, workers_option
from redecode_jobs.stops import EXIT_HELP, stopping_cleanly
from redecode.inputs import suffix_list
from redecode.job import run as run_job
from redecode.record import DEFAULT_MAX_RECORD_BYTES
from redecode.rundir import RunDirectoryConflict, RunDirectoryLocked


@click.command(name="run", help=f"""Re-decode every record of INPUT... into UTF-8 Parquet with provenance in --out.

    INPUT is a file, a directory (searched recursively), a glob, a URL (s3://...) or @LIST (a file
    naming one input per line) of {suffix_list()} files (.parquet: a Parquet table of raw
    responses, columns url, content_type, body). One row per response, resource and revisit record;
    the run manifest is DIR/_run.json. Re-running into the same DIR skips shards already complete
    whose input has not changed since (size, mtime, a hash of both ends); an input that changed is
    read again whole, one cut short or unreadable before is retried.

    One --out directory holds one rule set's output: a run with other rules into it is refused
    (use another --out, or --force to replace it). Inputs completed there by earlier runs with the
    same rules stay and are listed in _run.json. --normalize and --graphemes are part of the rules
    (their digest): a run with other such options into the same --out is refused too.

    \b
    Exit codes: 0 every input read to its end; 1 an input was cut short, damaged or unreadable
    (the rows read before the error are kept, and past a damaged stretch reading goes on at the
    next record; stderr and _run.json name the file and offset),
    or a directory or file in the inputs could not be read (files_not_read in _run.json);
    2 usage error (bad option, no such input, --out locked or holding other rules' output);
    """ + EXIT_HELP)
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), help="Run directory to write.")
@rules_option("Named, versioned rules (see `redecode rules`).")
@workers_option
@click.option("--force", is_flag=True, help="Redo inputs already complete in --out.")
@click.option(
    "--max-record-bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_RECORD_BYTES,
    show_default=True,
    help="Cap on a record's decoded payload size (bytes); larger records fail with 'too-large'.",
)
@click.option("--normalize", type=click.Choice(["NFC", "NFKC"]), default=None,
              help="Also write text_normalized: the text in this Unicode normalization form "
                   "(the form and Unicode version go into the rules digest).")
@click.option("--graphemes", is_flag=True,
              help="Also write grapheme_count (extended grapheme clusters; costs CPU: see README).")
@executor_options("one Spark task per archive")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print the run summary as JSON on stdout.")
def run(inputs, out, rules, workers, force, max_record_bytes, normalize, graphemes, executor, master, quiet,
        as_json) -> None:
    """``redecode run``: parse the options, call :func:`redecode.job.run` (or the Spark executor),
    report on stderr (help text: the command's ``help`` above)."""
    # the output options are the rules' parameters: resolved here, once, with the rule set
    rules = rules.with_outputs(normalize=normalize, graphemes=graphemes)
    show_bar = not quiet and sys.stderr.isatty()
    bar = None

    def on_progress(done: int, total: int) -> None:
        nonlocal bar
        if not show_bar:
            return
        if bar is None:
            bar = click.progressbar(length=total, label="re-decoding", file=sys.stderr, show_pos=False)
            bar.__enter__()
        bar.update(done - bar.pos)

    def on_error(message: str) -> None:
        click.echo(f"redecode: error: {message}", err=True)

    with stopping_cleanly(out):
        summary = _run(inputs, out, rules, workers, force, max_record_bytes, executor, master, quiet,
                       on_progress, on_error, lambda: bar)
    _report(summary, out, quiet, as_json)


def _run(inputs, out, rules, workers, force, max_record_bytes, executor, master, quiet, on_progress,
         on_error, current_bar):
    try:
        if executor == "spark":
            from redecode.spark import run_spark  # the [spark] extra; ImportError -> usage error

            summary = run_spark(
                list(inputs), out, rules=rules, master=master, force=force,
                max_record_bytes=max_record_bytes, on_error=on_error,
            )
        else:
            summary = run_job(
                list(inputs), out, rules=rules, workers=workers, force=force,
                max_record_bytes=max_record_bytes, quiet=quiet,
                on_progress=on_progress, on_error=on_error,
            )
    except (ValueError, FileNotFoundError, ImportError) as exc:
        raise click.UsageError(str(exc)) from exc
    except (RunDirectoryLocked, RunDirectoryConflict) as exc:
        raise click.UsageError(str(exc)) from exc
    finally:
        bar = current_bar()
        if bar is not None:
            bar.__exit__(None, None, None)
    return summary


def _report(summary, out: str, quiet: bool, as_json: bool) -> None:
    manifest = summary.manifest
    if not manifest["inputs"]:
        # before the summary, and even with --quiet: a nightly run over an empty folder says so
        click.echo(f"redecode: warning: no {suffix_list()} input found", err=True)
    skipped_files = manifest.get("files_not_read") or {}
    unreadable = {e["path"] for e in skipped_files.get("unreadable", ())}
    count = skipped_files.get("count", 0) - len(unreadable)
    if count:
        names = [n for n in skipped_files["names"] if n not in unreadable]
        shown = ", ".join(names[:3]) + (", ..." if count > 3 else "")
        click.echo(
            f"redecode: note: {count} file(s) in the inputs were not read (not named "
            f"{suffix_list()}): {shown}; see files_not_read in {out}/_run.json",
            err=True,
        )
    if as_json:
        click.echo(json.dumps(_summary_json(manifest), indent=2, sort_keys=True))
    elif not quiet:
        c = manifest["counts"]
        n = len(manifest["inputs"])
        click.echo(
            f"{n} input{'s' if n != 1 else ''}" + _resumed(summary)
            + f", {c['records_seen']} record{'s' if c['records_seen'] != 1 else ''}: {c['decoded']} decoded, "
            f"{c['skipped']} skipped, {c['failed']} failed -> {out}",
            err=True,
        )
    if summary.exit_code:
        outcomes = [entry["outcome"] for entry in manifest["inputs"]]
        cut, damaged = sum(o in ("truncated", "error") for o in outcomes), outcomes.count("damaged")
        said = []
        if cut:
            said.append(f"{cut} input(s) could not be read to the end (the rows read before the error "
                        f"are kept in {out})")
        if damaged:
            said.append(f"{damaged} input(s) damaged (the stretches that held no readable record were "
                        "skipped, the records after them read)")
        if unreadable:
            said.append(f"{len(unreadable)} directory(ies) or file(s) in the inputs could not be read")
        click.echo(f"redecode: {'; '.join(said) or 'an input could not be read'}; see {out}/_run.json", err=True)
    sys.exit(summary.exit_code)


def _resumed(summary) -> str:
    """What the run found in --out and did about it: `` (2 already complete, skipped; 1 partly
    done before, finished now; ...)``, or nothing."""
    said = []
    if summary.resumed:
        said.append(f"{len(summary.resumed)} already complete, skipped")
    if summary.partial:
        said.append(f"{len(summary.partial)} partly done before, finished now")
    if summary.changed:
        said.append(f"{len(summary.changed)} changed since the last run, read again")
    if summary.retried:
        said.append(f"{len(summary.retried)} cut short, damaged or unreadable before, read again")
    if not said:
        return ""
    return " (" + "; ".join(said) + ("; --force redoes them)" if summary.resumed else ")")


def _summary_json(manifest: dict) -> dict:
    return {
        "counts": manifest["counts"],
        "rules": manifest["rules"]["name"],
        "rules_digest": manifest["rules"]["digest"],
        "inputs": [
            {k: entry[k] for k in ("path", "outcome", "error", "rows")} for entry in manifest["inputs"]
        ],
        "wall_seconds": manifest["wall_seconds"],
        "cpu_seconds": manifest["cpu_seconds"],
    }
