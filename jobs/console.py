"""The ``redecode`` console script: ``redecode --version`` answered before anything is imported,
every other command line handed to the click group (:mod:`redecode_jobs.cli`).

click and the group's modules cost more start-up than the whole answer to ``--version`` (about 0.1 G
instructions of the 0.2 G an interpreter with click takes), so that one command line, exactly, is
answered here with click's own text (``tests/test_cli_startup.py`` checks that it is the same).
"""

from __future__ import annotations

import errno
import sys


def main() -> None:
    """Console-script entry point."""
    if sys.argv[1:] == ["--version"]:
        from redecode import __version__  # noqa: PLC0415 - (the package's __init__ imports nothing)

        try:
            sys.stdout.write(f"redecode, version {__version__}\n")
            sys.stdout.flush()
        except OSError as exc:  # (as redecode_jobs.printing does for the other commands: exit 4)
            if exc.errno != errno.EPIPE:  # (a reader that closed the pipe: no message)
                sys.stderr.write(f"redecode: error: cannot write <stdout>: {exc.strerror} (errno {exc.errno})\n")
            sys.exit(4)
        return
    from redecode_jobs.cli import main as cli_main  # noqa: PLC0415

    cli_main()
