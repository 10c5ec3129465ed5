"""What a command prints on stdout as its data (``query``'s result, ``diff``'s summary, ``rules``,
``--json``): every byte written, or exit 4 with one line.

Python's buffered stdout loses bytes without a word when the operating system takes part of a
large write: ``write()`` to a file that reaches a full disk (ENOSPC) or the file size limit
(``ulimit -f``: EFBIG, CPython ignores SIGXFSZ) returns the count it took, and
``BufferedWriter.write`` returns that short count instead of raising, so ``click.echo`` (and
``print``) drop the rest; only a write of which nothing is taken (``> /dev/full``) raises. Here
the bytes go out in a loop that writes what was not taken again, which makes the operating
system say why (the errno), and everything is flushed before the command ends, so nothing is
left to fail unchecked at exit.

Exit 4 (:data:`redecode_jobs.stops.EXIT_OS_ERROR`) for any OS error of stdout, with one line on
stderr naming ``<stdout>``, the errno and what to do; a reader that closes the pipe early
(``| head``: EPIPE) ends the command with 4 and no message (docs/operations.md, "Exit codes").
"""

from __future__ import annotations

import errno
import os
import sys

import click

from redecode.logs import printable
from redecode.storage import os_error_message, output_error
from redecode_jobs.stops import EXIT_OS_ERROR

#: The name the messages give stdout.
STDOUT = "<stdout>"


def print_data(text: str, *, utf8: bool = False, prefix: bytes = b"") -> None:
    """Write *text* and a newline to stdout, whole, and flush it: encoded as stdout encodes
    text (its ``encoding`` and ``errors``: what ``click.echo`` writes), or as UTF-8 whatever the
    locale when *utf8* (csv and json; characters UTF-8 cannot hold, lone surrogates, become
    ``?``), after the bytes *prefix* (a byte order mark). Exits :data:`EXIT_OS_ERROR` when the
    operating system refuses any part of it (one line on stderr; none for EPIPE). A stdout
    without bytes underneath (a test's) gets the text through ``click.echo``."""
    out = getattr(sys.stdout, "buffer", None)
    try:
        if out is None:
            click.echo(text)
            sys.stdout.flush()
            return
        if utf8:
            data = (text + "\n").encode("utf-8", "replace")
        else:
            data = (text + "\n").encode(sys.stdout.encoding or "utf-8", sys.stdout.errors or "strict")
        sys.stdout.flush()  # (what was printed before goes first)
        write_all(out, prefix + data)
        out.flush()
    except OSError as exc:
        fail(exc)


def write_all(out, data: bytes) -> None:
    """Write *data* to the binary stream *out* whole: again from where the operating system
    stopped taking it, until it is all taken or a write raises :class:`OSError` (ENOSPC, EFBIG,
    EIO...). A stream that takes nothing, which only a non-blocking one does, raises
    :class:`BlockingIOError`."""
    view = memoryview(data)
    while view:
        n = out.write(view)
        if not n:  # None (non-blocking, would block) or 0
            raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
        view = view[n:]


def flush_stdout() -> None:
    """Flush stdout (what ``click.echo`` left in its buffer), with :func:`print_data`'s exit 4
    when that fails."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        fail(exc)


def fail(exc: OSError) -> None:
    """End the command for *exc*, an error writing stdout: exit 4 with one line on stderr (none
    for EPIPE, a reader that closed the pipe). Stdout is pointed at the null device first, so
    that what its buffer still holds does not fail again at exit."""
    _drop_stdout()
    if exc.errno != errno.EPIPE:
        click.echo(f"redecode: error: {printable(os_error_message(output_error(exc, STDOUT)))}", err=True)
    sys.exit(EXIT_OS_ERROR)


def _drop_stdout() -> None:
    """Point stdout at the null device, so that nothing is written, or fails, at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # (a stdout without a descriptor: a test's)
        pass
