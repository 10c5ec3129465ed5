"""`redecode diff`: what a rule change changes, record by record."""

from __future__ import annotations

import json
import os

import click

from redecode_jobs.options import CONTEXT_SETTINGS, expanded_option, list_prefix_option, output_options, table_width
from redecode_jobs.printing import print_data
from redecode_jobs.stops import Refused, stopping_cleanly
from redecode.diff import DiffError, ExternalOld, diff_rules, diff_runs, format_summary, input_error_message
from redecode.logs import printable
from redecode.query import QueryError
from redecode.rundir import MANIFEST
from redecode.schema import COLUMNS, NoSchemaVersionError, SchemaVersionError


def _key(value: str) -> tuple[str, str]:
    old, _, new = value.partition(":")
    if not new:
        new = old if old in COLUMNS else "record_id"
    return old, new


@click.command(name="diff", context_settings=CONTEXT_SETTINGS)
@click.argument("paths", nargs=-1, required=True, metavar="OLD NEW | INPUT...")
@click.option("--rules", "rules", multiple=True,
              help="Twice: diff rules A against rules B over the INPUT archives (no run needed).")
@click.option("--out", type=click.Path(file_okay=False),
              help="Write DIR/diff.parquet (every record, with its category) and DIR/_diff.json.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.option("--check", is_flag=True, help="Exit 3 when any record changed (0 otherwise).")
@click.option("--check-text", is_flag=True,
              help="Exit 3 when any record's text, status or presence changed; a change of "
                   "encoding label with the same text is allowed.")
@click.option("--old-key", "old_key", multiple=True, metavar="COL[:NEWCOL]",
              help="OLD is any Parquet; match its COL to the output column NEWCOL (default: the "
                   "same name if it is an output column, else record_id). Repeatable.")
@click.option("--old-text", help="OLD is any Parquet; its column holding the old text (default: text). "
                                 "Without any --old-* option, a Parquet that is not a redecode output "
                                 "is matched on record_id with its text column.")
@click.option("--old-codec", help="Python codec the OLD text was decoded with (mojibake check; "
                                  "default: try latin-1 and cp1252).")
@click.option("--max-record-bytes", type=click.IntRange(min=1), default=None,
              help="With --rules: cap on a decoded payload in bytes (default 64 MiB).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="With --rules: inputs diffed in parallel processes [default: all cores].")
@click.option("--examples", type=click.IntRange(min=0), default=10, show_default=True,
              help="Changed records shown in the summary.")
@click.option("--compare", type=click.Choice(["text", "normalized"]), default="text", show_default=True,
              help="OLD NEW: compare the text, or text_normalized (runs made with run --normalize; "
                   "an OLD made by another tool is compared with NEW's text_normalized).")
@click.option("--executor", type=click.Choice(["local", "spark"]), default="local", show_default=True,
              help="With --rules: local: --workers processes; spark: one Spark task per archive "
                   "(the [spark] extra).")
@click.option("--master", default=None,
              help="With --executor spark: Spark master URL (local[4], spark://host:7077, yarn) "
                   "[default: spark-submit's, else local[*]].")
@list_prefix_option
@expanded_option("row of the Examples table")
@output_options("No summary on stdout (the exit code of --check/--check-text, the files of --out; "
                "--json still prints); input errors still go to stderr.")
def diff(paths, rules, out, as_json, check, check_text, old_key, old_text, old_codec, max_record_bytes,
         workers, examples, compare, executor, master, list_prefix, expanded, quiet) -> None:
    """Compare two decodes: OLD NEW run directories, or --rules A --rules B INPUT...

    \b
    redecode diff OLD NEW              two outputs of `redecode run`
    redecode diff OLD.parquet NEW --old-key record_id --old-text text
                                       OLD made by another tool
    redecode diff --rules requests-2.32 --rules browser-2026.11 sample_warcs
                                       both rule sets over the archives, in one pass

    Records are matched on (warc_path, warc_offset), then record_id, and fall in one category:
    unchanged, encoding-changed, text-changed, status-changed, only-old, only-new. Changed
    records carry old/new encoding, source, decode_errors, an excerpt around the first difference
    and whether the old text was mojibake of the new (mojibake_fixed).

    Exit codes: 0 ok; 1 (with --rules) an input archive could not be read, or not to its end; 2 usage error;
    3 with --check, something changed (with --check-text, some text changed); 4 the operating
    system refused to write the output (disk full...); 130/143 stopped by SIGINT/SIGTERM.
    """
    with stopping_cleanly(out or "the --out directory", kept=None):  # (diff.parquet is written whole, at the end)
        try:
            if rules:
                if len(rules) != 2:
                    raise click.UsageError("--rules must be given exactly twice: --rules OLD --rules NEW")
                if old_key or old_text or old_codec:
                    raise click.UsageError("--old-key/--old-text/--old-codec compare run outputs, not --rules")
                if compare != "text":
                    raise click.UsageError("--compare normalized compares the text_normalized of two runs "
                                           "made with --normalize (redecode diff OLD NEW), not --rules")
                for p in paths:
                    if os.path.isfile(os.path.join(p, MANIFEST)):
                        raise click.UsageError(
                            f"{p} is a run directory: --rules A --rules B reads archives; compare two runs "
                            "with `redecode diff OLD NEW` (without --rules)")
                from redecode.rules import get_rules  # the decision code only for --rules

                try:
                    old_rules, new_rules = (get_rules(name) for name in rules)  # resolved here, once
                except KeyError as exc:
                    raise click.UsageError(exc.args[0]) from None
                summary = diff_rules(list(paths), old_rules, new_rules, out=out,
                                     max_record_bytes=max_record_bytes, workers=workers,
                                     examples=examples, executor=executor, master=master,
                                     list_prefix=list_prefix)
            else:
                if len(paths) != 2:
                    raise click.UsageError("give OLD and NEW (or --rules A --rules B INPUT...)")
                if executor != "local" or master or list_prefix:
                    raise click.UsageError("--executor/--master/--prefix scan archives: they go with --rules A --rules B")
                external = None
                if old_key or old_text or old_codec:
                    external = ExternalOld(
                        path=paths[0],
                        key=tuple(_key(k) for k in old_key) or (("record_id", "record_id"),),
                        text=old_text or "text",
                        codec=old_codec,
                    )
                summary = diff_runs(paths[0], paths[1], out=out, external=external, examples=examples,
                                    compare=compare)
        except SchemaVersionError as exc:
            hint = ""
            if not rules and isinstance(exc, NoSchemaVersionError):
                hint = ("; for a Parquet made by another tool without columns record_id and text, give "
                        "--old-key and --old-text")
            raise Refused(f"{exc}{hint}") from exc  # (one line: not a run's output)
        except (DiffError, QueryError, ImportError) as exc:
            raise click.UsageError(str(exc)) from exc
    if as_json:
        print_data(json.dumps(summary.to_json(), indent=2, ensure_ascii=False, default=str))
    elif not quiet:
        print_data(format_summary(summary, width=table_width(), expanded=expanded))
    for e in summary.input_errors:
        click.echo(f"redecode: error: {printable(input_error_message(e))}", err=True)
    click.get_current_context().exit(summary.exit_code(check=check, check_text=check_text))
