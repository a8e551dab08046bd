"""`hoplab timeline SCENARIO`: what happens around a route break, event by event.

    hoplab timeline SCENARIO.toml [--protocol P] [--preset X] [--set key=value ...] [--seed N]
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from .. import _core
from . import _input
from .._scenario_json import scenario_json
from .errors import scenario_failure

__all__ = ["timeline"]

U64_MAX = 2**64 - 1


def _protocols() -> list[str]:
    """The routing protocols the engine knows: the choices of its field
    table's `routing.protocol` (so a new protocol needs no edit here)."""
    fields = json.loads(_core.schema_reference())["fields"]
    ty = next(f["ty"] for f in fields if f["path"] == "routing.protocol")
    return [c.strip().strip('"') for c in ty.split("|")]


@click.command("timeline")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--protocol", type=click.Choice(_protocols()), default=None,
              help="Routing protocol (overrides routing.protocol).")
@click.option("--preset", default=None, help="Preset of the protocol (e.g. aodv-uu, dsr-uu, oolsr).")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a scenario field.")
@click.option("--seed", type=click.IntRange(0, U64_MAX), default=None, help="Seed.")
@click.option("--from", "t_from", type=float, default=None, help="Window start, s (default: last leg - 1 s).")
@click.option("--to", "t_to", type=float, default=None, help="Window end, s (default: last leg + 25 s).")
def timeline(scenario: Path, protocol: str | None, preset: str | None, sets: tuple[str, ...], seed: int | None,
             t_from: float | None, t_to: float | None) -> None:
    """Print what happens around a route break: movement, declared link
    failures (false ones marked), route errors, discoveries, the first data
    over a new path with the outage, and the first ACK after it."""
    from ..papers.seed003 import timeline as tl
    from .._run import run_text

    data = _input.scenario_dict(scenario, *_input.read(scenario), sets)
    routing = data.setdefault("routing", {})
    if protocol is not None:
        # Another protocol: its own defaults unless --preset names one.
        routing["protocol"] = protocol
        routing.pop("preset", None)
        for other in _protocols():
            if other not in ("static", protocol):
                routing.pop(other, None)
    if preset is not None:
        routing["preset"] = preset
    try:
        res = run_text(scenario_json(data), "json", seed, internal_json=True)
    except _core.ScenarioError as e:
        raise scenario_failure(e, scenario, sets) from None
    lo, hi = tl.window(data)
    lo = lo if t_from is None else t_from
    hi = hi if t_to is None else t_to
    r = data.get("routing", {})
    click.echo(f"{res.info['scenario']}: {r.get('protocol', 'static')}"
               + (f" (preset {r['preset']})" if r.get("preset") else "") + f", seed {res.info['seed']}, "
               f"{lo:g}-{hi:g} s\n")
    click.echo(tl.render(res, data, lo, hi))
    for f in res.flows.itertuples(index=False):
        o = tl.outage(res, int(f.flow), lo)
        out = (f"outage {o['outage_s']:.2f} s until data took a {o['hops']}-hop path at {o['new_path_s']:.2f} s"
               if o else "no new path")
        click.echo(f"\nflow {f.flow}: {out}; time in RTO {f.rto_time_s:.2f} s over the run "
                   f"({int(f.timeouts)} timeouts); {f.throughput_kbps:.1f} kbit/s")
