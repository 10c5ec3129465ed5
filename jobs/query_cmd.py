"""`redecode query` (not implemented yet)."""

import click


@click.command(name="query")
def query() -> None:
    """Not implemented yet."""
    raise click.ClickException("redecode query is not implemented yet")
