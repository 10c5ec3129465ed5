"""`redecode rules` (not implemented yet)."""

import click


@click.command(name="rules")
def rules() -> None:
    """Not implemented yet."""
    raise click.ClickException("redecode rules is not implemented yet")
