"""`redecode diff` (not implemented yet)."""

import click


@click.command(name="diff")
def diff() -> None:
    """Not implemented yet."""
    raise click.ClickException("redecode diff is not implemented yet")
