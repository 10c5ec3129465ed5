"""How the commands that write a run directory stop: exit codes, OS errors, SIGINT and SIGTERM.

The exit codes of every ``redecode`` command (``--help`` lists the ones a command can give):

| code | meaning |
|---|---|
| 0 | ok |
| 1 | an input could not be read to its end (cut short, damaged, unreadable; rows before it kept) |
| 2 | usage error (bad option, no such input, ``--out`` locked or holding other rules' output) |
| 3 | ``diff --check`` / ``--check-text`` found changes |
| 4 | the operating system refused to write the output (disk full, no inodes, quota, read-only, I/O error) |
| 5 | ``run`` / ``backfill --fail-on-failed``: records failed and none was decoded (1 wins over 5) |
| 130 / 143 | stopped by SIGINT (Ctrl-C) / SIGTERM |

:func:`stopping_cleanly` wraps a command's work: SIGTERM becomes an exception like Ctrl-C's, so
that both unwind the same way (the executor kills its workers, the run directory removes what was
being written, the parts and markers already published stay), and then one line on stderr says
what happened and what to do. A rerun finishes the work.
"""

from __future__ import annotations

import contextlib
import errno
import signal
import sys
import threading
from collections.abc import Iterator

import click

from redecode.logs import printable
from redecode.storage import OutputError, os_error_message, unreachable

EXIT_OK = 0
EXIT_INPUT = 1
EXIT_USAGE = 2
EXIT_CHANGED = 3
EXIT_OS_ERROR = 4
#: ``--fail-on-failed`` (:mod:`redecode_jobs.options`) when records failed and none was decoded
EXIT_ALL_FAILED = 5

#: The lines ``--help`` of a command that writes a run directory adds to its exit codes
#: (``run``'s: it takes --fail-on-failed).
EXIT_HELP = ("4 the operating system refused to write the output (disk full, no inodes, quota,\n"
             "    read-only; the message names the path and errno: fix that and run again, the shards\n"
             f"    finished are kept); {EXIT_ALL_FAILED} with --fail-on-failed, records failed and none was\n"
             f"    decoded (1 wins over {EXIT_ALL_FAILED}); 130/143 stopped by SIGINT/SIGTERM (run again to finish).")


class Refused(click.ClickException):
    """A usage error that is not about the command line: the output directory is locked by another
    command, or a directory given is not an output of ``redecode run``. Exit :data:`EXIT_USAGE`
    (2) with one line on stderr, ``redecode: error: MESSAGE``, without click's ``Usage:`` and
    ``Try --help`` lines (the command line was right)."""

    exit_code = EXIT_USAGE

    def show(self, file=None) -> None:
        click.echo(f"redecode: error: {printable(self.format_message())}", err=True)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the signal arrives as Ctrl-C raises :class:`KeyboardInterrupt`
    (``signum``: the signal's number)."""

    signum = signal.SIGTERM


#: The signals that arrived while a command ran under :func:`stopping_cleanly` (a library may turn
#: the exception a handler raised into its own: DuckDB's "Query interrupted").
_signalled: list[int] = []


def _raise_terminated(signum, frame) -> None:
    _signalled.append(signum)
    raise Terminated()


def _raise_interrupt(signum, frame) -> None:
    _signalled.append(signum)
    raise KeyboardInterrupt()


@contextlib.contextmanager
def stopping_cleanly(out: str, *, kept: str | None = "the shards finished are kept in {out}") -> Iterator[None]:
    """Run the body with SIGTERM raising :class:`Terminated` (and SIGINT its KeyboardInterrupt, both
    noted); turn an interrupt, or any exception raised after one (DuckDB's "Query interrupted"),
    into exit 130/143, and an OS error (or an object store's client's error that outlasted the
    retries, :func:`redecode.storage.unreachable`) into :data:`EXIT_OS_ERROR`, each with one line on stderr
    naming ``out`` (what the command writes) and what to do. ``kept``: what a stop leaves there
    (``{out}`` replaced), said in the line; None for a command that writes its output whole or
    not at all (``report``, ``query``)."""
    kept_text = f"; {kept.format(out=out)}" if kept else ""
    previous = {}
    del _signalled[:]
    if threading.current_thread() is threading.main_thread():
        previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, _raise_terminated)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            previous[signal.SIGINT] = signal.signal(signal.SIGINT, _raise_interrupt)
    try:
        yield
    except KeyboardInterrupt as exc:
        _stopped(getattr(exc, "signum", signal.SIGINT), kept_text)
    except OutputError as exc:
        if _signalled:
            _stopped(_signalled[-1], kept_text)
        click.echo(f"redecode: error: {printable(str(exc))}; then run the same command again{_paren(kept_text)}",
                   err=True)
        sys.exit(EXIT_OS_ERROR)
    except OSError as exc:
        if _signalled:
            _stopped(_signalled[-1], kept_text)
        if exc.errno in (errno.ENOENT, None):
            raise  # a missing input is the command's usage error; an OSError without errno is a bug
        click.echo(f"redecode: error: {printable(os_error_message(exc, 'operating system error on'))}; then run the "
                   f"same command again{_paren(kept_text)}", err=True)
        sys.exit(EXIT_OS_ERROR)
    except Exception as exc:
        if _signalled:
            _stopped(_signalled[-1], kept_text)
        if unreachable(exc):  # an object store's client's own error, past the retries: not a bug
            what = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
            click.echo(f"redecode: error: the object store stayed unreachable after the retries ({printable(what)}); "
                       f"check the endpoint and the network, then run the same command again{_paren(kept_text)}",
                       err=True)
            sys.exit(EXIT_OS_ERROR)
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _paren(kept_text: str) -> str:
    return f" ({kept_text[2:]})" if kept_text else ""


def _stopped(signum: int, kept_text: str) -> None:
    click.echo(f"redecode: stopped by {signal.Signals(signum).name}{kept_text}; run the same command again to "
               f"finish", err=True)
    sys.exit(128 + signum)
