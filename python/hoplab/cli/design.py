"""`hoplab design expand`: the runs of an experiment design (hoplab/lab).

    hoplab design expand DESIGN [--csv]
"""

from __future__ import annotations

from pathlib import Path

import click

from . import _runs_table
from ._designs import lab_errors, load_design

__all__ = ["design_group"]


@click.group("design")
def design_group() -> None:
    """Experiment designs: factors, levels, replicas and run order (see docs/GUIDE.md)."""


@design_group.command("expand")
@click.argument("design", type=click.Path(path_type=Path))
@click.option("--csv", "as_csv", is_flag=True, help="One CSV line per run instead of a table.")
def expand_cmd(design: Path, as_csv: bool) -> None:
    """Show the runs of DESIGN in run order: index, cell, replica, seed and key."""
    d = load_design(design)
    with lab_errors(design):
        runs = d.expand()
    rows = [{"run": r.index, **r.cell, "replica": r.replica, "seed": r.seed, "key": r.key[:12]} for r in runs]
    if as_csv:
        click.echo(_runs_table.to_csv(rows), nl=False)
        return
    click.echo(f"design {d.name}: {len(d.cells())} cells x {len(d.seeds)} seeds = {len(runs)} runs, "
               f"order {d.order}; base {d.base_name}")
    click.echo(_runs_table.to_string(rows))
