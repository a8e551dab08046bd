"""`hoplab validate SCENARIO`: check a scenario file without running it.

    hoplab validate SCENARIO [--set key=value ...]
"""

from __future__ import annotations

from pathlib import Path

import click

from . import _input, _script
from ._check import check, load, warn_unconnected

__all__ = ["validate_cmd"]


@click.command("validate")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.argument("script_args", nargs=-1, metavar="[-- ARGS]")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a scenario field.")
def validate_cmd(scenario: Path, script_args: tuple[str, ...], sets: tuple[str, ...]) -> None:
    """Check a scenario file without running it: `OK` with its name and node
    count (exit 0), or the one-line error (exit 2). Warns when a flow's ends
    are not connected at its start in a static topology."""
    if _script.is_script(scenario):  # an ns-2 script: read it as `hoplab run` would
        import json

        plan = _script.load(scenario, script_args, 60.0, echo=False)
        text, fmt = _input.with_overrides(scenario, json.dumps(plan.scenario), "json", sets)
    else:
        text, fmt = load(scenario, sets)
    name, nodes = check(scenario, text, fmt, sets)
    warn_unconnected(text, fmt)
    click.echo(f"{scenario}: OK: {name}, {nodes} node{'s' if nodes != 1 else ''}")
