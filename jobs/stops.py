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
from redecode.storage import OutputError, os_error_message

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


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the signal arrives as Ctrl-C raises :class:`KeyboardInterrupt`
    (``signum``: the signal's number)."""

    signum = signal.SIGTERM


def _raise_terminated(signum, frame) -> None:
    raise Terminated()


@contextlib.contextmanager
def stopping_cleanly(out: str) -> Iterator[None]:
    """Run the body with SIGTERM raising :class:`Terminated`; turn an interrupt into exit
    130/143 and an OS error into :data:`EXIT_OS_ERROR`, each with one line on stderr naming
    ``out`` (the run directory) and what to do."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    except KeyboardInterrupt as exc:
        signum = getattr(exc, "signum", signal.SIGINT)
        click.echo(f"redecode: stopped by {signal.Signals(signum).name}; the shards finished are kept in "
                   f"{out}; run the same command again to finish", err=True)
        sys.exit(128 + signum)
    except OutputError as exc:
        click.echo(f"redecode: error: {printable(str(exc))}; then run the same command again (the shards finished are "
                   f"kept in {out})", err=True)
        sys.exit(EXIT_OS_ERROR)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, None):
            raise  # a missing input is the command's usage error; an OSError without errno is a bug
        click.echo(f"redecode: error: {printable(os_error_message(exc, 'operating system error on'))}; then run the "
                   f"same command again (the shards finished are kept in {out})", err=True)
        sys.exit(EXIT_OS_ERROR)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
