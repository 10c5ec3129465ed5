"""`redecode backfill` (not implemented yet)."""

import click


@click.command(name="backfill")
def backfill() -> None:
    """Not implemented yet."""
    raise click.ClickException("redecode backfill is not implemented yet")
