"""Click options shared by the commands that scan archives (`run`, `backfill`, `diff --rules`)."""

from __future__ import annotations

from collections.abc import Callable

import click

from redecode.rules import DEFAULT_RULES, RULES

MASTER_HELP = "Spark master URL (local[4], spark://host:7077, yarn) [default: spark-submit's, else local[*]]."


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


workers_option = click.option(
    "--workers", type=click.IntRange(min=1), default=None, help="Processes [default: all cores]."
)
