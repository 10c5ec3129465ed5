"""The ``redecode`` command: one click group, one module per subcommand.

Exit codes: 0 ok, 1 failure (an input could not be read to its end, or a check failed), 2 usage
error, 3 ``diff --check`` (or ``--check-text``) found changes, 4 the operating system refused to
write the output, 5 ``run``/``backfill --fail-on-failed``: records failed and none was decoded,
130/143 stopped by SIGINT/SIGTERM (:mod:`redecode_jobs.stops`).
"""

from __future__ import annotations

import importlib

import click

from redecode import __version__

#: Subcommand -> "module:attribute". Loaded on first use, so that `redecode run` does not pay for
#: importing duckdb and ftfy (diff, query, repair): about 0.4 s per run, measured by the benchmark.
SUBCOMMANDS = {
    "run": "redecode_jobs.run_cmd:run",
    "diff": "redecode_jobs.diff_cmd:diff",
    "backfill": "redecode_jobs.backfill_cmd:backfill",
    "query": "redecode_jobs.query_cmd:query",
    "report": "redecode_jobs.report_cmd:report",
    "repair": "redecode_jobs.repair_cmd:repair",
    "rules": "redecode_jobs.rules_cmd:rules",
}

#: Subcommand -> the first paragraph of its help, what `redecode --help` lists (click shortens it
#: to the width), so that the group's help imports no command module (each imports what its
#: command runs: the decoders, pyarrow, duckdb...). tests/test_cli_startup.py checks that each is
#: its command's own.
SUMMARIES = {
    "run": "Re-decode every record of INPUT... into UTF-8 Parquet with provenance in --out.",
    "diff": "Compare two decodes: OLD NEW run directories, or --rules A --rules B INPUT...",
    "backfill": "Write to --out what `redecode run --rules RULES` over PRIOR_DIR's inputs would write, "
                "reading again only the records whose result can change under RULES.",
    "query": "Query run outputs with DuckDB (read-only, confined to the run directories), or print the "
             "standard report.",
    "report": "Write an HTML report with charts of a run's provenance (and of a diff).",
    "repair": "Repair mojibake in old decoded text whose raw bytes are gone, with ftfy's encoding fixes "
              "only (no cosmetic fixes), and record how.",
    "rules": "List the rule sets `redecode run --rules NAME` accepts: name, description, digest and every "
             "parameter. The digest changes whenever anything that can change the output does (a "
             "parameter, the Encoding Standard tables, the detector version, the decision code). Lines "
             "are broken to fit the terminal ($COLUMNS; piped output is not broken).",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported when used (click's documented pattern); its
    help lists them from :data:`SUMMARIES` without importing them. It is the last net under every
    command: an exception no command turned into its exit code gives one line on stderr and exit 1
    (an unreadable input is 1; anything else is a bug to report), the traceback only with
    ``-vv``."""

    _summaries_only = False

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - the net: every exception ends in one line and an exit code
            import logging  # noqa: PLC0415
            import sys  # noqa: PLC0415
            import traceback  # noqa: PLC0415

            from redecode.logs import printable  # noqa: PLC0415

            if logging.getLogger("redecode").isEnabledFor(logging.DEBUG):  # -vv
                traceback.print_exc(file=sys.stderr)
            code = getattr(exc, "exit_code", None)
            if isinstance(code, int):  # an error the library names and gives its exit code (a damaged run)
                click.echo(f"redecode: error: {printable(str(exc))}", err=True)
                sys.exit(code)
            if isinstance(exc, OSError) and exc.errno is not None:
                what = f"operating system error: {exc}"
            else:
                what = (f"unexpected error ({type(exc).__name__}: {exc}); please report it "
                        "(-vv shows the traceback)")
            click.echo(f"redecode: error: {printable(what)}", err=True)
            sys.exit(1)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = SUBCOMMANDS.get(name)
        if target is None:
            return None
        if self._summaries_only:
            return click.Command(name, help=SUMMARIES[name])
        module, attribute = target.split(":")
        return getattr(importlib.import_module(module), attribute)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._summaries_only = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._summaries_only = False


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="redecode")
def cli() -> None:
    """Re-decode the HTML in WARC/ARC archives into the text its authors wrote, as UTF-8 Parquet with provenance.

    \b
    Exit codes: 0 ok; 1 an input failed (see stderr and _run.json); 2 usage error;
    3 `diff --check` (or `--check-text`) found changes; 4 the operating system refused to
    write the output (disk full...; the message names the path and errno); 5 `--fail-on-failed`:
    records failed and none was decoded; 130/143 stopped by SIGINT/SIGTERM (run the same
    command again to finish).
    """



def main() -> None:
    """Console-script entry point."""
    cli()
