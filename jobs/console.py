"""The ``redecode`` console script: ``redecode --version`` answered before anything is imported,
every other command line handed to the click group (:mod:`redecode_jobs.cli`).

click and the group's modules cost more start-up than the whole answer to ``--version`` (about 0.1 G
instructions of the 0.2 G an interpreter with click takes), so that one command line, exactly, is
answered here with click's own text (``tests/test_cli_startup.py`` checks that it is the same).

Every other command line imports click, the group and the command's module with the cyclic garbage
collector off, then moves what they made out of its view (:func:`gc.freeze`) and turns it on
again: start-up makes objects that live as long as the process (modules, classes, functions,
tables), which the collections that their allocations trigger would walk again and again for
nothing to free (issue 27: 26 M of an empty run's 0.59 G instructions, with the executors'
collection before the first record, which then walks only what the command made since).
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
    import gc  # noqa: PLC0415 - (not for --version: nothing to collect there)
    import importlib  # noqa: PLC0415

    gc.disable()
    try:
        from redecode_jobs.cli import SUBCOMMANDS  # noqa: PLC0415
        from redecode_jobs.cli import main as cli_main  # noqa: PLC0415

        target = SUBCOMMANDS.get(sys.argv[1]) if len(sys.argv) > 1 else None
        if target is not None:
            try:  # (click imports it again when it gets the command, and reports what this raised)
                importlib.import_module(target.split(":")[0])
            except Exception:  # noqa: BLE001, S110
                pass
    finally:
        gc.freeze()
        gc.enable()
    cli_main()
