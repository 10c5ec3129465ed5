"""``redecode run INPUT... --out DIR``: the nightly re-decode job."""

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
    list_prefix_option,
    output_options,
    rules_option,
    workers_option,
)
from redecode import native
from redecode_jobs.printing import print_data
from redecode_jobs.stops import EXIT_HELP, Refused, stopping_cleanly
from redecode.inputs import suffix_list
from redecode.job import run as run_job
from redecode.layout import FLAT, PARTITION_COLUMNS, Layout
from redecode.logs import FILE_ONLY
from redecode.record import DEFAULT_MAX_RECORD_BYTES
from redecode.rundir import RunDirectoryConflict, RunDirectoryLocked
from redecode.selection import Selection

log = logging.getLogger("redecode.cli")


@click.command(name="run", context_settings=CONTEXT_SETTINGS, help=f"""Re-decode every record of INPUT... into UTF-8 Parquet with provenance in --out.

    INPUT is a file, a directory (searched recursively), a glob, a URL (s3://...) or @LIST (a file,
    plain or gzip, naming one input per line; --prefix is prepended to each line) of {suffix_list()}
    files (.parquet: a Parquet table of raw responses, columns url, content_type, body; a .wacz
    is read as the WARC files inside it, each row naming CRAWL.wacz#archive/NAME). One row
    per response, resource and revisit record; the run manifest is DIR/_run.json. Re-running into
    the same DIR skips shards already complete whose input has not changed since (size, mtime, a
    hash of both ends); an input that changed is read again whole, one cut short, damaged or
    unreadable before is retried.

    --index INDEX re-decodes only the records a record index selects, each read by its offset and
    length (a ranged GET for s3:// inputs), grouped per file: a CDX or CDXJ index (plain or gzip;
    pywb's and Common Crawl's line formats) or a Parquet table with Common Crawl's columnar-index
    columns (warc_filename, warc_record_offset, warc_record_length), a file or a directory, local
    or s3://; --prefix is prepended to the file names it holds (s3://commoncrawl/), and --where SQL
    keeps the index rows for which the condition holds (DuckDB, before any archive is opened:
    "content_charset <> 'UTF-8'"). No INPUT is given then.

    Output layout: one Parquet part per shard of an input by default. --max-part-bytes and
    --max-part-rows cut parts to a size instead (the rows of many small inputs share a part, a large
    input's rows are split over several), and --partition-by COLUMN writes them in Hive-style
    folders, DIR/COLUMN=VALUE/part-*.parquet, which DuckDB (hive_partitioning), Spark and pyarrow
    datasets read as they are; query, diff, backfill and report read every layout.

    To try a large crawl quickly: --sample 0.01 keeps the records whose WARC-Record-ID hashes into
    the first 1% (the same records on every run, with any --workers); --limit 1000 stops after
    1000 rows, reading the inputs in order.

    One --out directory holds one rule set's output, made with one selection (--limit, --sample;
    --index with its --where and --prefix): a run with other rules or another selection into it is
    refused (use another --out, or --force to replace it). Inputs completed there by earlier runs
    with the same rules stay and are listed in _run.json; with --index, the directory holds the
    index's records only (files it no longer names are removed).
    --normalize, --graphemes and --language are part of the rules (their digest): a run with other such options
    into the same --out is refused too.

    \b
    Exit codes: 0 every input read to its end; 1 an input was cut short, damaged or unreadable
    (the rows read before the error are kept, and past a damaged stretch reading goes on at the
    next record; stderr and _run.json name the file and offset),
    or a directory or file in the inputs could not be read (files_not_read in _run.json);
    2 usage error (bad option, no such input, --out locked or holding other rules' output);
    """ + EXIT_HELP)
@click.argument("inputs", nargs=-1, required=False)
@click.option("--out", "out", required=True, type=click.Path(file_okay=False),
              help="Run directory to write: a local path or a URL (s3://...; each part is staged on local disk, then uploaded).")
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
              help="Also write grapheme_count (extended grapheme clusters; costs CPU: see docs/columns.md).")
@click.option("--language", is_flag=True,
              help="Also write language and language_confidence (CLD2 on a sample of the visible text; "
                   "costs CPU: see docs/columns.md).")
@executor_options("one Spark task per archive")
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N",
              help="Stop after N rows (response, resource and revisit records), inputs read in order.")
@click.option("--sample", type=click.FloatRange(0, 1, min_open=True), default=None, metavar="FRACTION",
              help="Keep this fraction of the records, chosen by a hash of their WARC-Record-ID (0.01: 1%).")
@click.option("--max-part-bytes", type=click.IntRange(min=1), default=None, metavar="BYTES",
              help="Cut parts to about this many bytes of Parquet (many small inputs share a part).")
@click.option("--max-part-rows", type=click.IntRange(min=1), default=None, metavar="N",
              help="Cut parts to at most N rows.")
@click.option("--partition-by", type=click.Choice(PARTITION_COLUMNS), default=None, metavar="COLUMN",
              help=f"Write parts in Hive-style folders DIR/COLUMN=VALUE/ ({', '.join(PARTITION_COLUMNS)}).")
@click.option("--index", "index_paths", multiple=True, metavar="INDEX",
              help="Re-decode only the records this CDX/CDXJ/Parquet index selects (a file or a directory, "
                   "local or s3://; repeatable), instead of INPUT...")
@click.option("--where", metavar="SQL", default=None,
              help="With --index: keep the index rows for which this SQL condition holds, over Common Crawl's "
                   "columnar-index column names (content_charset, content_languages, fetch_status, url...).")
@list_prefix_option
@fail_on_failed_option
@output_options("No progress bar and no summary on stderr (warnings and errors still).")
@click.option("--json", "as_json", is_flag=True, help="Print the run summary as JSON on stdout.")
def run(inputs, out, rules, workers, force, max_record_bytes, normalize, graphemes, language, executor, master, limit,
        sample, max_part_bytes, max_part_rows, partition_by, index_paths, where, list_prefix, fail_on_failed,
        quiet, as_json) -> None:
    """``redecode run``: parse the options, call :func:`redecode.job.run` (or the Spark executor),
    report on stderr (help text: the command's ``help`` above)."""
    # the output options are the rules' parameters: resolved here, once, with the rule set
    rules = rules.with_outputs(normalize=normalize, graphemes=graphemes, language=language)
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
        log.error(message)

    selection = Selection(limit=limit, sample=sample)
    layout = Layout(max_part_bytes=max_part_bytes, max_part_rows=max_part_rows, partition_by=partition_by)
    if not inputs and not index_paths:
        raise click.UsageError("give INPUT... (archives to re-decode) or --index INDEX (the records an index selects)")
    if inputs and index_paths:
        raise click.UsageError("give INPUT... or --index INDEX, not both: an index names the files it selects records of")
    if where is not None and not index_paths:
        raise click.UsageError("--where selects rows of an index: give --index INDEX too")
    with stopping_cleanly(out):
        index = _read_index(index_paths, list_prefix, where) if index_paths else None
        summary = _run(inputs, out, rules, workers, force, max_record_bytes, executor, master, quiet,
                       on_progress if show_bar else None, on_error, lambda: bar, selection, list_prefix, index,
                       layout)
    _report(summary, out, quiet, as_json, fail_on_failed)


def _read_index(index_paths, list_prefix, where):
    """The index's selection (:func:`redecode.index.read_index`); what cannot be read is a usage
    error naming the index."""
    from redecode.index import IndexError_, read_index

    try:
        index = read_index(list(index_paths), prefix=list_prefix, where=where)
    except (FileNotFoundError, IndexError_, ImportError) as exc:
        raise click.UsageError(str(exc)) from exc
    except OSError as exc:
        raise click.UsageError(f"--index: {exc}") from exc
    log.info("index: %d entries, %d records in %d files selected%s", index.entries, index.selected,
             len(index.files), f" (--where {where})" if where else "")
    return index


def _run(inputs, out, rules, workers, force, max_record_bytes, executor, master, quiet, on_progress,
         on_error, current_bar, selection, list_prefix, index=None, layout=FLAT):
    try:
        if executor == "spark":
            from redecode.spark import run_spark  # the [spark] extra; ImportError -> usage error

            summary = run_spark(
                list(inputs), out, rules=rules, master=master, force=force,
                max_record_bytes=max_record_bytes, on_error=on_error, selection=selection,
                list_prefix=list_prefix, index=index, layout=layout, on_progress=on_progress,
            )
        else:
            summary = run_job(
                list(inputs), out, rules=rules, workers=workers, force=force,
                max_record_bytes=max_record_bytes, quiet=quiet,
                on_progress=on_progress, on_error=on_error, selection=selection, list_prefix=list_prefix,
                index=index, layout=layout,
            )
    except (ValueError, FileNotFoundError, ImportError) as exc:
        raise click.UsageError(str(exc)) from exc
    except RunDirectoryConflict as exc:
        if exc.details:
            log.info("%s", exc.details)  # every difference, with -v
        raise Refused(str(exc)) from exc  # the command line is right: one line, not click's Usage: form
    except RunDirectoryLocked as exc:
        raise Refused(str(exc)) from exc
    finally:
        bar = current_bar()
        if bar is not None:
            bar.__exit__(None, None, None)
    return summary


def _report(summary, out: str, quiet: bool, as_json: bool, fail_on_failed: bool) -> None:
    manifest = summary.manifest
    if not manifest["inputs"]:
        # before the summary, and even with --quiet: a nightly run over an empty folder says so
        log.warning("no %s input found", suffix_list())
    skipped_files = manifest.get("files_not_read") or {}
    unreadable = {e["path"] for e in skipped_files.get("unreadable", ())}
    count = skipped_files.get("count", 0) - len(unreadable)
    if count:
        names = [n for n in skipped_files["names"] if n not in unreadable]
        shown = ", ".join(names[:3]) + (", ..." if count > 3 else "")
        log.warning("%d file(s) in the inputs were not read (not named %s): %s; see files_not_read in %s/_run.json",
                    count, suffix_list(), shown, out)
    if native.NOTICE:
        log.warning("%s", native.NOTICE)
    line = _summary_line(summary, out)
    log.info(line, extra=FILE_ONLY)
    if as_json:
        print_data(json.dumps(_summary_json(manifest), indent=2, sort_keys=True))
    elif not quiet:
        click.echo(line, err=True)
    if summary.exit_code:
        stopped = [e for e in manifest["inputs"] if e["outcome"] in ("truncated", "error")]
        never = sum(not e.get("rows") for e in stopped)  # not opened, not an archive: no row
        cut, damaged = len(stopped) - never, sum(e["outcome"] == "damaged" for e in manifest["inputs"])
        said = []
        if never:
            said.append(f"{never} input(s) could not be read (no row came from them)")
        if cut:
            said.append(f"{cut} input(s) could not be read to the end (the rows read before the error "
                        f"are kept in {out})")
        if damaged:
            said.append(f"{damaged} input(s) damaged (the stretches that held no readable record were "
                        "skipped, the records after them read)")
        if unreadable:
            said.append(f"{len(unreadable)} directory(ies) or file(s) in the inputs could not be read")
        log.error("%s; see %s/_run.json", "; ".join(said) or "an input could not be read", out)
    if fail_on_failed and all_failed(manifest["counts"]):
        log.error("every record that was not skipped failed (%d failed, none decoded); error_kind and "
                  "error in the rows say why", manifest["counts"]["failed"])
        sys.exit(summary.exit_code or EXIT_ALL_FAILED)
    sys.exit(summary.exit_code)


def _summary_line(summary, out: str) -> str:
    """``3 inputs, 44 records: 38 decoded, 6 skipped, 0 failed -> out``, with what was resumed and
    what a selection left out: ``7 of 33 inputs read (--limit 50: the other 26 not reached), 50
    records: ...``."""
    manifest = summary.manifest
    c = manifest["counts"]
    n = len(manifest["inputs"])
    selection = manifest.get("selection") or {}
    left = []
    if c.get("not_sampled"):
        left.append(f"{c['not_sampled']} not in the sample")
    unreached = (selection.get("inputs_not_reached") or {}).get("count")
    said = _resumed(summary)
    if unreached:
        inputs = f"{n} of {n + unreached} inputs read"
        said.insert(0, f"--limit {selection.get('limit')}: the other {unreached} not reached")
    else:
        inputs = f"{n} input{'s' if n != 1 else ''}"
    if c.get("selected") is not None:
        left.insert(0, f"index: {c['selected']} selected, {c['read']} read, {c['missing']} missing from their file")
    return (inputs
            + (f" ({'; '.join(said)})" if said else "")
            + f", {c['records_seen']} record{'s' if c['records_seen'] != 1 else ''}: {c['decoded']} decoded, "
            f"{c['skipped']} skipped, {c['failed']} failed"
            + (f" ({'; '.join(left)})" if left else "")
            + f" -> {out}"
            + _retried(manifest.get("storage_retries")))


def _retried(n: int | None) -> str:
    """`` (3 transient storage errors retried)``: what the object store's hiccups cost, or nothing."""
    if not n:
        return ""
    return f" ({n} transient storage error{'s' if n != 1 else ''} retried)"


def _resumed(summary) -> list[str]:
    """What the run found in --out and did about it: ``["2 already complete, skipped; --force
    redoes them", "1 partly done before, finished now", ...]``, or nothing."""
    said = []
    if summary.resumed:
        said.append(f"{len(summary.resumed)} already complete, skipped")
    if summary.partial:
        said.append(f"{len(summary.partial)} partly done before, finished now")
    if summary.changed:
        said.append(f"{len(summary.changed)} changed since the last run, read again")
    if summary.retried:
        said.append(f"{len(summary.retried)} cut short, damaged or unreadable before, read again")
    if summary.dropped:
        said.append(f"{len(summary.dropped)} no longer named by the index, their rows removed")
    if summary.remade:
        said.append(f"{len(summary.remade)} with a part missing or damaged in --out, read again")
    if summary.resumed:
        said.append("--force redoes them")
    return said


def _summary_json(manifest: dict) -> dict:
    return {
        "counts": manifest["counts"],
        "rules": manifest["rules"]["name"],
        "rules_digest": manifest["rules"]["digest"],
        "selection": manifest.get("selection"),
        "inputs": [
            {k: entry[k] for k in ("path", "outcome", "error", "rows")} for entry in manifest["inputs"]
        ],
        "wall_seconds": manifest["wall_seconds"],
        "cpu_seconds": manifest["cpu_seconds"],
    }
