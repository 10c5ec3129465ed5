"""Click options shared by the commands: those that scan archives (`run`, `backfill`, `diff --rules`),
-q/-v/--log-file, which every command takes, --fail-on-failed, and the width tables are fitted to."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable

import click

from redecode import logs
from redecode.rules import DEFAULT_RULES, RULES
from redecode_jobs import stops

#: Every command's context settings: ``-h`` as well as ``--help``. Set on each command, not only on
#: the group, so a command invoked on its own (the tests, the API) has the same help option.
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}

MASTER_HELP = ("Spark master URL (local[4], spark://host:7077, yarn), or inline: the Spark tasks in this "
               "process, without Spark [default: spark-submit's, else local[*]].")


def executor_options(task: str) -> Callable:
    """``--executor local|spark`` and ``--master URL``; *task* says what one Spark task does."""

    def decorate(command: Callable) -> Callable:
        command = click.option("--master", default=None, help=MASTER_HELP)(command)
        return click.option(
            "--executor",
            type=click.Choice(["local", "spark"]),
            default="local",
            show_default=True,
            help=f"local: processes on this machine; spark: {task} (the [spark] extra).",
        )(command)

    return decorate


def rules_option(help: str) -> Callable:
    """``--rules NAME``, one of the shipped rule sets (default :data:`redecode.rules.DEFAULT_RULES`),
    handed to the command as the :class:`redecode.rules.Rules` object: resolved here, once."""
    return click.option("--rules", default=DEFAULT_RULES, show_default=True, type=click.Choice(sorted(RULES)),
                        callback=lambda ctx, param, value: RULES[value], help=help)


#: Every command that reads archives in parallel takes --workers with this default: all cores.
workers_option = click.option(
    "--workers", type=click.IntRange(min=1), default=None, help="Processes [default: all cores]."
)

#: The exit code of ``--fail-on-failed`` when records failed and none was decoded (see
#: :mod:`redecode_jobs.stops` for every command's exit codes).
EXIT_ALL_FAILED = stops.EXIT_ALL_FAILED

fail_on_failed_option = click.option(
    "--fail-on-failed", is_flag=True,
    help=f"Exit {EXIT_ALL_FAILED} when records failed and none was decoded (every record that was not "
         "skipped failed), so a nightly job notices a run that produced no text.")


def all_failed(counts: dict) -> bool:
    """Whether a run's ``counts`` (``_run.json``) are what ``--fail-on-failed`` reports: at least
    one ``failed`` row and no ``decoded`` one."""
    return counts.get("failed", 0) > 0 and counts.get("decoded", 0) == 0


def expanded_option(rows: str) -> Callable:
    """``-x/--expanded``: *rows* (``row``: every table's) as psql's expanded display, every value
    whole (see :func:`redecode.query.render_table`)."""
    return click.option(
        "-x", "--expanded", is_flag=True,
        help=f"Show each {rows} as `column  value` lines, every value whole: wrapped at the terminal's "
             "width, never cut (a table in a terminal cuts the cells that do not fit, marked …).")


def table_width() -> int | None:
    """The width (characters) a command's tables and wrapped lines must fit when stdout is a
    terminal: the terminal's (``$COLUMNS`` when set, as :func:`shutil.get_terminal_size` reads
    it); None when stdout is not a terminal (piped output is not cut: every cell whole)."""
    if not sys.stdout.isatty():
        return None
    import shutil  # noqa: PLC0415 - (only a help text or a table needs it)

    return shutil.get_terminal_size().columns


def output_options(quiet_help: str) -> Callable:
    """``-q/--quiet`` (``quiet_help`` says what it leaves out), ``-v/--verbose`` (repeatable) and
    ``--log-file FILE``: the command's logging is configured (:func:`redecode.logs.configure`)
    before its body runs, which gets ``quiet`` only."""

    def decorate(command: Callable) -> Callable:
        @functools.wraps(command)
        def configured(*args, verbose: int, log_file: str | None, **kwargs):
            try:
                logs.configure(verbose, log_file=log_file)
            except OSError as exc:
                raise click.UsageError(f"--log-file {log_file}: {exc.strerror or exc}") from None
            return command(*args, **kwargs)

        configured = click.option(
            "--log-file", metavar="FILE", default=None,
            help="Append log records to FILE (INFO and up; DEBUG and warcio's with -vv).")(configured)
        configured = click.option(
            "-v", "--verbose", count=True,
            help="-v: say what is planned and done on stderr (INFO); -vv: details, warcio's warnings too (DEBUG).",
        )(configured)
        return click.option("-q", "--quiet", is_flag=True, help=quiet_help)(configured)

    return decorate


def list_prefix_option(command: Callable) -> Callable:
    """``--prefix P``: prepended to every line of the @LIST inputs."""
    return click.option(
        "--prefix", "list_prefix", metavar="PREFIX", default=None,
        help="Prepend PREFIX to every line of @LIST files (s3://commoncrawl/ for Common Crawl's warc.paths.gz).",
    )(command)
