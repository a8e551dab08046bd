"""`hoplab crosscheck SCENARIO [--peer ns2] [--seeds 1-3] [--out DIR]`."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click

from . import _input, _script
from .. import _core
from .errors import HoplabError, os_error_text, scenario_failure

__all__ = ["crosscheck_cmd"]


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    try:
        for part in text.split(","):
            a, _, b = part.strip().partition("-")
            lo, hi = int(a), int(b) if b else int(a)
            if lo < 0 or hi < lo or hi - lo > 1000:
                raise ValueError
            out.extend(range(lo, hi + 1))
    except ValueError:
        raise click.BadParameter(f"{text!r}: seeds as 1-3, 1,2,5 or 4", param_hint="--seeds") from None
    return list(dict.fromkeys(out))


@click.command("crosscheck")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.argument("script_args", nargs=-1, metavar="[-- ARGS]")
@click.option("--peer", type=click.Choice(["ns2", "ns3"]), default="ns2", show_default=True,
              help="The simulator to check against.")
@click.option("--seeds", "seeds_text", default="1-3", show_default=True, help="Seeds: 1-3, 1,2,5 ...")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Keep both sides' files here (scripts, traces, results); default: a temporary directory.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a scenario field.")
@click.option("--tcl-time-limit", type=click.FloatRange(0.1, 86400), default=60.0, show_default=True,
              help="SCRIPT.tcl: longest wall-clock time the script itself may take to evaluate (s).")
def crosscheck_cmd(scenario: Path, script_args: tuple[str, ...], peer: str, seeds_text: str, out_dir: Path | None,
                   sets: tuple[str, ...], tcl_time_limit: float) -> None:
    """Run a scenario (TOML, or an ns-2 script) in hoplab with compat =
    "ns2" and in ns-2.35 for each seed, and print per flow and in total:
    throughput, packets delivered, retransmissions, timeouts, routing
    packets and drops by reason, side by side with their spread over the
    seeds and the ratio."""
    from .. import crosscheck as cc

    seeds = _seeds(seeds_text)
    if peer == "ns3":
        raise HoplabError("--peer ns3: not wired into crosscheck yet; validation/compare_ns3.py runs the ns-3 "
                          "peer on hoplab's matrix of scenarios")
    if _script.is_script(scenario):
        plan = _script.load(scenario, script_args, tcl_time_limit, echo=False)
        data = plan.scenario
        data = json.loads(_input.with_overrides(scenario, json.dumps(data), "json", sets)[0]) if sets else data
    else:
        data = _input.scenario_dict(scenario, *_input.read(scenario), sets)
    if cc.ns2_available() is None:
        raise HoplabError("ns-2 is not installed (`ns` is not on PATH): apt-get install ns2")
    try:
        cc.expressible(data)
    except cc.CrosscheckError as e:
        raise HoplabError(f"{scenario}: {e}") from None
    except _core.ScenarioError as e:  # the engine refused the scenario
        raise scenario_failure(e, scenario, sets) from None
    tmp = None
    if out_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="hoplab-crosscheck-")
        out = Path(tmp.name)
    else:
        out = out_dir
    try:
        hop, ns2 = cc.crosscheck(data, seeds, out, progress=lambda s: click.echo(f"crosscheck: {s}", err=True))
        rows = cc.table_rows(hop, ns2)
        click.echo(cc.format_table(rows, seeds))
        if out_dir is not None:
            (out / "crosscheck.json").write_text(json.dumps(rows, indent=1, allow_nan=True))
            click.echo(f"\nboth sides' files: {out}/ (ns2/seed-N/script.tcl and trace.tr, hoplab/seed-N/trace.tr, "
                       "crosscheck.json)")
    except cc.CrosscheckError as e:
        raise HoplabError(str(e)) from None
    except OSError as e:
        raise HoplabError(os_error_text(e, Path(e.filename or out))) from None
    finally:
        if tmp is not None:
            tmp.cleanup()
