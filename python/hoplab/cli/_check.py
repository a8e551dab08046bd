"""Reading and checking a scenario without running it (`validate`,
`config --resolved`), and the warning of flows that cannot deliver
(`validate`, `run`)."""

from __future__ import annotations

from pathlib import Path

import click

from .. import _core, _deprecation
from . import _input
from .errors import scenario_failure

__all__ = ["check", "load", "unconnected_warning", "warn_unconnected"]


def load(path: Path, sets: tuple[str, ...]) -> tuple[str, str]:
    """The scenario text and kind, with --set overrides applied."""
    return _input.with_overrides(path, *_input.read(path), sets)


def check(path: Path, text_: str, fmt: str, sets: tuple[str, ...]) -> tuple[str, int]:
    """The scenario's name and node count, or its one-line error."""
    try:
        return _deprecation.check(text_, fmt)
    except _core.ScenarioError as e:
        raise scenario_failure(e, path, sets) from None


#: Flows named in the warning before it says how many there are in all.
_NAMED = 5


def unconnected_warning(text_: str, fmt: str, seed: int | None = None) -> str | None:
    """One line naming the flows whose ends have no path between them when
    they start, in a static topology (the engine's shortest-path oracle over
    the radio's transmission range and the initial positions); None when
    every flow has one, nodes move, or the scenario is refused (its error
    comes from the command itself)."""
    try:
        range_m, flows = _core.unconnected_flows(text_, fmt, seed)
    except _core.ScenarioError:
        return None
    if not flows:
        return None
    named = ", ".join(f"{i} (node {s} to {d})" for i, s, d in flows[:_NAMED])
    if len(flows) > _NAMED:
        named += f", ... ({len(flows)} in all)"
    which = f"flow {named} has" if len(flows) == 1 else f"flows {named} have"
    return (f"{which} no path at the start: no chain of nodes within the {range_m:.4g} m transmission range "
            "joins the ends, and no node moves (expect throughput 0 and ratios NaN)")


def warn_unconnected(text_: str, fmt: str, seed: int | None = None) -> None:
    """`hoplab: warning: ...` on stderr if `unconnected_warning` has one."""
    w = unconnected_warning(text_, fmt, seed)
    if w is not None:
        click.echo(f"hoplab: warning: {w}", err=True)
