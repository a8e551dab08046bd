"""`hoplab validate SCENARIO`: check a scenario file without running it.

    hoplab validate SCENARIO [--set key=value ...]
"""

from __future__ import annotations

from pathlib import Path

import click

from ._check import check, load

__all__ = ["validate_cmd"]


@click.command("validate")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a scenario field.")
def validate_cmd(scenario: Path, sets: tuple[str, ...]) -> None:
    """Check a scenario file without running it: `OK` with its name and node
    count (exit 0), or the one-line error (exit 2)."""
    name, nodes = check(scenario, *load(scenario, sets), sets)
    click.echo(f"{scenario}: OK: {name}, {nodes} node{'s' if nodes != 1 else ''}")
