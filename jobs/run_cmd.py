"""`redecode run` (not implemented yet)."""

import click


@click.command(name="run")
def run() -> None:
    """Not implemented yet."""
    raise click.ClickException("redecode run is not implemented yet")
