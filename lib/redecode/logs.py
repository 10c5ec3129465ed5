"""Where log records go: the ``redecode`` loggers and warcio's, at each verbosity.

Contract. Every module logs through :mod:`logging` under the ``redecode`` logger
(``logging.getLogger(__name__)``): what a run plans and does at INFO (inputs and shards, each
shard's outcome and rows, the manifest written), details at DEBUG (FastWARC handing a record to
warcio, object-store publishing). A library caller configures logging as usual; the command line
calls :func:`configure` once, before any work:

=============  ==============================================  ===================================
verbosity      stderr (``redecode: level: message``)            ``--log-file`` (appended)
=============  ==============================================  ===================================
0 (default)    warnings and errors                             INFO and up
1 (``-v``)     INFO and up                                     INFO and up
2 (``-vv``)    DEBUG and up, and warcio's records              DEBUG and up, and warcio's records
=============  ==============================================  ===================================

warcio logs a warning for every record whose WARC-Target-URI holds spaces (which both readers
repair, :mod:`redecode.warc`); :mod:`redecode.warc` silences that logger unless it was configured
before, and verbosity 2 lets it speak. Records logged with ``extra=FILE_ONLY`` (a command's summary,
which it also prints) go to the log file only.

Nothing an archive holds reaches the terminal raw: :func:`printable` writes control characters (and
the other characters Python does not print: format characters such as bidi overrides, separators)
as escapes, so that bytes of a damaged stretch quoted in a message cannot set the terminal's title
or clear its screen (``ESC ] 0 ; ... BEL``, ``ESC [ 2 J``); :class:`redecode.record.ArchiveError`
escapes its message, and the console handler escapes every record but for its line breaks.

Deviations: none.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["FILE_ONLY", "LOGGER", "WARCIO_LOGGERS", "configure", "printable"]

#: The library's logger; every module's logger is a child of it.
LOGGER = "redecode"
#: warcio's loggers (its record loader warns about repaired target URIs).
WARCIO_LOGGERS = ("warcio", "warcio.recordloader")
#: ``extra=`` for a record meant for the log file only (not stderr).
FILE_ONLY = {"file_only": True}

_MARK = "_redecode_handler"


def printable(text: str, keep: str = "") -> str:
    """``text`` with every character Python does not print (``str.isprintable``: C0 and C1
    controls, DEL, format characters such as U+202E RIGHT-TO-LEFT OVERRIDE, line and paragraph
    separators, lone surrogates) but those in ``keep`` written as a Python escape: ``\\x1b``,
    ``\\u202e``, and a surrogate-escaped byte of a file name (``surrogateescape``) as ``\\xNN``, as
    :func:`redecode.storage.path_text` shows it. Text that is printable is returned as it is."""
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() or c in keep
        else f"\\x{ord(c) - 0xDC00:02x}" if "\udc80" <= c <= "\udcff"
        else repr(c)[1:-1]
        for c in text
    )


class _Console(logging.Formatter):
    """``redecode: warning: message`` (``warcio: ...`` for warcio's records), as the commands' own
    messages read; what the message holds is made :func:`printable` (line breaks kept: a message
    of several lines)."""

    def format(self, record: logging.LogRecord) -> str:
        who = "warcio" if record.name.startswith("warcio") else "redecode"
        return f"{who}: {record.levelname.lower()}: {printable(record.getMessage(), keep=chr(10))}"


def _not_file_only(record: logging.LogRecord) -> bool:
    return not getattr(record, "file_only", False)


def configure(verbosity: int = 0, *, log_file: str | None = None, stream=None) -> None:
    """Send log records to ``stream`` (default: ``sys.stderr`` as it is now) and to ``log_file``
    (appended; None: none) at ``verbosity`` (see the module docstring). Replaces the handlers an
    earlier call installed (a process that runs several commands, such as tests). Raises
    :class:`OSError` when ``log_file`` cannot be opened for appending."""
    console_level = {0: logging.WARNING, 1: logging.INFO}.get(verbosity, logging.DEBUG)
    file_level = logging.DEBUG if verbosity >= 2 else logging.INFO
    handlers: list[logging.Handler] = []
    console = logging.StreamHandler(stream if stream is not None else sys.stderr)
    console.setLevel(console_level)
    console.setFormatter(_Console())
    console.addFilter(_not_file_only)
    handlers.append(console)
    if log_file:
        to_file = logging.FileHandler(log_file, mode="a", encoding="utf-8")
        to_file.setLevel(file_level)
        to_file.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"))
        handlers.append(to_file)
    for h in handlers:
        setattr(h, _MARK, True)
    names = (LOGGER, *WARCIO_LOGGERS[:1]) if verbosity >= 2 else (LOGGER,)
    for name in (LOGGER, *WARCIO_LOGGERS):
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if getattr(h, _MARK, False)]:
            logger.removeHandler(old)
            old.close()
    for name in names:
        logger = logging.getLogger(name)
        logger.setLevel(min(console_level, file_level) if log_file else console_level)
        logger.propagate = False
        for h in handlers:
            logger.addHandler(h)
    if verbosity >= 2:
        # warcio's record loader, silenced by redecode.warc, speaks again (set, not NOTSET, so that
        # a later import of redecode.warc leaves it alone)
        logging.getLogger("warcio.recordloader").setLevel(logging.DEBUG)
    else:
        logging.getLogger("warcio.recordloader").setLevel(logging.ERROR)
        logging.getLogger("warcio").propagate = True
