"""`hoplab emu SCENARIO`: real Linux TCP/IP stacks through the simulated
channel, in real time (docs/GUIDE.md, "Emulation").

    hoplab emu SCENARIO [--seed N] [-o DIR] [--set key=value ...]
    hoplab emu --replay DIR
    hoplab emu cleanup
"""

from __future__ import annotations

import signal
from pathlib import Path

import click

from .errors import HoplabError, Interrupted, Signalled

__all__ = ["emu_cmd"]


def _cleanup() -> None:
    from ..emu import cleanup

    c = cleanup.run()
    if c.killed:
        click.echo(f"killed {len(c.killed)} process(es) left by runs that are gone (pid {', '.join(map(str, c.killed))})")
    for name, holder in c.kept.items():
        click.echo(f"kept namespace {name}: a live run uses it ({holder})")
    if c.removed:
        click.echo(f"removed {len(c.removed)} namespace(s): {', '.join(c.removed)}")
    if not (c.killed or c.removed or c.kept):
        click.echo("nothing to remove (hoplab's namespaces are unnamed: the kernel removes them with their processes)")


def _replay(run_dir: Path, sets: tuple[str, ...], out: Path | None) -> None:
    from .. import _core
    from ..emu.meta import MetaError
    from ..emu.session import ReplayError, replay
    from ..overrides import OverrideError

    try:
        got, live_hash, _ = replay(run_dir, sets, out)
    except (MetaError, ReplayError, OverrideError) as e:
        raise HoplabError(str(e)) from None
    except _core.ScenarioError as e:  # only --set can make the saved scenario (checked by meta.read) wrong
        raise HoplabError(f"{run_dir}: {e} (from --set {', '.join(sets)})") from None
    except OSError as e:  # the ingress log (named, with the byte offset), or a file of -o
        raise HoplabError(str(e) if e.filename is None else f"{e.filename}: {e.strerror}") from None
    if out is not None:
        click.echo(f"saved the replayed run to {out}")
    same = "same" if got == live_hash else "DIFFERENT"
    click.echo(f"replayed {run_dir}: event hash {got} (live run {live_hash}): {same}")
    if got != live_hash:
        raise SystemExit(1)


def _emulate(scenario: Path, seed: int | None, out: Path | None, sets: tuple[str, ...], stall: tuple[float, float] | None) -> None:
    from .. import _core
    from .._scenario_json import scenario_json
    from ..emu import config as C
    from ..emu.claim import BusyError, Claim
    from ..emu.registry import Registration
    from ..emu.session import live, preflight
    from ..emu.signals import Caught
    from . import _input
    from .errors import scenario_failure

    # Checked as written (an error gives its line), then run as JSON (saved for replay).
    text, kind = _input.with_overrides(scenario, *_input.read(scenario), sets)
    try:
        cfg = C.read(text, kind)
    except _core.ScenarioError as e:
        raise scenario_failure(e, scenario, sets) from None
    if cfg is None:
        raise HoplabError(f"{scenario}: no [emulation] table: name the real nodes, e.g. [emulation] nodes = [0, 3]")
    sjson = text if kind == "json" else scenario_json(_input.scenario_dict(scenario, text, kind, ()))
    why = preflight(sjson)
    if why:
        raise HoplabError(f"{scenario}: refused: {why}")
    out = out or Path("results") / f"emu-{scenario.stem}"
    try:
        # From here a signal ends the run as its end would (emu/signals.py),
        # or before it starts, nothing. One session per directory (a lock
        # held until the run is saved); an earlier run in it goes whole to
        # previous/<time>/; the pid file tells `emu cleanup` which named
        # namespaces this run holds.
        with Caught() as caught, Claim(out) as claim, Registration(out, cfg.namespaces) as reg:
            if caught.signum is not None:
                raise Interrupted() if caught.signum == signal.SIGINT else Signalled(caught.signum)
            kept = claim.keep_previous()
            if kept is not None:
                click.echo(f"hoplab: the earlier run in {out} is kept in {kept}", err=True)
            res = live(sjson, cfg, seed, out, stall=stall, rid=reg.id, caught=caught)
    except BusyError as e:
        raise HoplabError(str(e)) from None
    except KeyboardInterrupt:  # before the run's own handling took over
        raise Interrupted() from None
    except OSError as e:
        raise HoplabError(str(e) if e.filename is None else f"{e.filename}: {e.strerror}") from None
    emu = res["emu"]
    if emu["fifo"]:
        click.echo(f"hoplab: warning: {emu['fifo']}", err=True)
    click.echo(f"emulated {scenario} (real nodes {', '.join(map(str, cfg.nodes))}) until {emu['horizon_ns'] / 1e9:.3f} s: "
               f"{emu['packets_in']} packets in, {emu['packets_out']} out; lateness p50 {emu['lateness_p50_us']:.0f} us, "
               f"p99 {emu['lateness_p99_us']:.0f} us, max {emu['lateness_max_us']:.0f} us; "
               f"{emu['lag_episodes']} lag episode(s); dropped: {emu['dropped_not_ipv4']} non-IPv4, "
               f"{emu['dropped_unknown_destination']} unknown destination")
    for node, run, rc in res["commands"]:
        click.echo(f"  node {node}: {run!r} exit {rc}")
    click.echo(f"saved to {out} (event hash {res['meta']['event_hash']}; replay: hoplab emu --replay {out})")
    if emu["ended"] == "lag":
        raise HoplabError(emu["message"])
    if res["signal"] == signal.SIGINT:
        raise Interrupted()
    if res["signal"] is not None:
        raise Signalled(res["signal"])


@click.command("emu")
@click.argument("scenario", required=False, type=click.Path(path_type=Path))
@click.option("--seed", type=int, default=None, help="Seed (default: the scenario's).")
@click.option("-o", "--out", type=click.Path(path_type=Path), default=None, help="Result directory (default results/emu-NAME).")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a scenario field.")
@click.option("--replay", "replay_dir", type=click.Path(path_type=Path), default=None,
              help="Re-run a saved run from its ingress log in pure simulation and compare event hashes; with -o, "
                   "save it (--set output.trace=true or trace.formats=[...] to trace it).")
@click.option("--stall", nargs=2, type=float, default=None, hidden=True, metavar="AT_S FOR_S",
              help="Tests: stop the real-time loop for FOR_S seconds at AT_S.")
def emu_cmd(scenario: Path | None, seed: int | None, out: Path | None, sets: tuple[str, ...], replay_dir: Path | None,
            stall: tuple[float, float] | None) -> None:
    """Run a scenario with real Linux TCP/IP stacks at the nodes its [emulation]
    table names (a network namespace and TUN device each), through the
    simulated channel in real time; `--replay DIR` re-runs a saved run,
    `cleanup` removes leftovers. Needs root or CAP_NET_ADMIN."""
    if replay_dir is not None:
        _replay(replay_dir, sets, out)
        return
    if scenario is None:
        raise HoplabError("give a scenario (or --replay DIR, or cleanup)")
    if str(scenario) == "cleanup":
        _cleanup()
        return
    _emulate(scenario, seed, out, sets, stall)
