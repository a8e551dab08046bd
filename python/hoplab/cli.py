"""The `hoplab` command line.

    hoplab run SCENARIO.toml [--seed N] [--set key=value ...] [--out DIR] [--format csv|parquet] [--no-save]
    hoplab timeline SCENARIO.toml [--protocol P] [--preset X] [--set key=value ...] [--seed N]
    hoplab reproduce seed000 [--replicas R] [--receiver ns2|linux|every] [--routing static|aodv-hello|aodv-ll|olsr]
                             [--duration S] [--out DIR]
    hoplab reproduce seed000-routing [--replicas R] [--receiver ...] [--duration S] [--out DIR]
    hoplab reproduce seed003 [--replicas R]
    hoplab reproduce seed002 [--only LIST] [--replicas FILES] [--out DIR]
    hoplab reproduce seed001 [--replicas R] [--duration S] [--hops LIST] [--schemes LIST] [--only LIST] [--out DIR]
    hoplab reproduce seed004 [--replicas R] [--duration S] [--plots LIST] [--jobs N] [--out DIR] [--plot FILE]
    hoplab bench [--repeat N] [--markdown] [--memory]
    hoplab movement import MOVEMENT_FILE [--traffic CBRGEN_FILE] --base SCENARIO -o SCENARIO.toml
    hoplab movement export RESULT_DIR_OR_SCENARIO -o FILE [--traffic FILE]

Errors in the user's input (an invalid scenario, a missing or unreadable
file, a TOML syntax error) print `hoplab: error: ...` to stderr and exit
with status 2, without a Python traceback.
"""

from __future__ import annotations

import re
import signal
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from . import _core
from ._error_text import tidy
from ._cli_errors import internal_error_exit, parse_scenario_text, set_hint, version_text
from ._interrupt import InterruptibleGroup
from ._run import read_scenario_source
from .cli_example import example_cmd

U64_MAX = 2**64 - 1


class HoplabError(click.ClickException):
    """A user-facing error: `hoplab: error: <message>` on stderr, exit 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"hoplab: error: {self.format_message()}", err=True)


def _scenario_error_text(e: BaseException, path: Path | None = None) -> str:
    field = getattr(e, "field", "") or ""
    message = getattr(e, "message", None) or str(e)
    if path is not None and getattr(e, "line", None):  # a TOML syntax error: file:line:column
        path = Path(f"{path}:{e.line}:{e.column}")  # type: ignore[attr-defined]
    parts = [str(path)] if path is not None else []
    if field:
        parts.append(field)
    parts.append(message)
    return ": ".join(parts)


def scenario_failure(e: BaseException, path: Path, sets: tuple[str, ...] = ()) -> HoplabError:
    """The one-line error for a scenario the engine refused: tidied (after
    --set the engine parsed hoplab's own JSON, whose line/column mean nothing
    to the user) and naming the override a table-level error came from."""
    e = tidy(e, internal_json=bool(sets))  # type: ignore[arg-type]
    return HoplabError(_scenario_error_text(e, path) + set_hint(e, sets))


def _os_error_text(e: OSError, path: Path) -> str:
    reason = e.strerror or e.__class__.__name__
    return f"{path}: {reason}"


def _read(path: Path) -> tuple[str, str]:
    try:
        text, fmt, _ = read_scenario_source(Path(path))
    except UnicodeDecodeError as e:
        raise HoplabError(f"{path}: not a UTF-8 text file ({e.reason})") from None
    except OSError as e:
        raise HoplabError(_os_error_text(e, path)) from None
    return text, fmt


def _safe_dirname(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "scenario"


@click.group(cls=InterruptibleGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version_text(), prog_name="hoplab", message="%(prog)s %(version)s")
def cli() -> None:
    """hoplab: TCP over multihop IEEE 802.11 ad hoc networks, simulated."""


cli.add_command(example_cmd)


@cli.command("run")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--seed", type=click.IntRange(0, U64_MAX), default=None,
              help="Seed (default: the scenario's `seed`).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Results directory (default: out/<scenario name>/seed-<N>/).")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv", show_default=True,
              help="File format of the four tables (parquet needs pyarrow).")
@click.option("--no-save", is_flag=True, help="Print the summary only; write no files.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario field by its dotted path, e.g. routing.aodv.link_detection=link_layer.")
def run_cmd(scenario: Path, seed: int | None, out_dir: Path | None, fmt: str, no_save: bool,
            sets: tuple[str, ...]) -> None:
    """Run one scenario file (TOML, or .json), print a summary and save the results.

    Results go to DIR/{flows,nodes,drops,timeseries}.csv, DIR/info.json and
    DIR/scenario.toml. Files are written under a temporary name and renamed;
    an existing file with different content is moved to DIR/previous/<time>/
    first, so nothing already in DIR is lost.
    """
    from ._progress import for_stderr
    from ._run import run_text

    if fmt == "parquet" and not no_save:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise HoplabError("--format parquet needs pyarrow: pip install pyarrow") from None
    text, kind = _with_overrides(scenario, *_read(scenario), sets)
    if not no_save:  # a read-only --out fails now, not after the run
        _check_out(out_dir or Path("out"))
    display = for_stderr()
    try:
        res = run_text(text, kind, seed, progress=display, internal_json=bool(sets))
    except _core.ScenarioError as e:
        raise scenario_failure(e, scenario, sets) from None
    finally:
        if display is not None:
            display.close()
    click.echo(res.summary(full=True))
    if no_save:
        return
    if out_dir is None:
        out_dir = Path("out") / _safe_dirname(str(res.info["scenario"])) / f"seed-{res.info['seed']}"
    try:
        res.save(out_dir, format=fmt)
    except OSError as e:
        raise HoplabError(_os_error_text(e, Path(e.filename or out_dir))) from None
    click.echo(f"\nresults written to {out_dir}/")


def _check_out(out_dir: Path) -> None:
    from .result import Result

    try:
        Result.check_writable(out_dir)
    except OSError as e:
        raise HoplabError(_os_error_text(e, out_dir)) from None


def _scenario_dict(path: Path, text: str, kind: str, sets: tuple[str, ...]) -> dict[str, Any]:
    """The scenario as a dict, with --set overrides applied."""
    from . import overrides

    try:
        data = parse_scenario_text(path, text, kind)
    except ValueError as e:
        raise HoplabError(str(e)) from None
    try:
        overrides.apply(data, sets)
    except overrides.OverrideError as e:
        raise HoplabError(str(e)) from None
    return data


def _with_overrides(path: Path, text: str, kind: str, sets: tuple[str, ...]) -> tuple[str, str]:
    """Apply --set overrides: the scenario becomes a dict sent as JSON."""
    if not sets:
        return text, kind
    import json

    return json.dumps(_scenario_dict(path, text, kind, sets)), "json"


@cli.command()
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--protocol", type=click.Choice(["static", "aodv", "dsr", "olsr", "dsdv"]), default=None,
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
    import json

    from . import timeline as tl
    from ._run import run_text

    data = _scenario_dict(scenario, *_read(scenario), sets)
    routing = data.setdefault("routing", {})
    if protocol is not None:
        # Another protocol: its own defaults unless --preset names one.
        routing["protocol"] = protocol
        routing.pop("preset", None)
        for other in ("aodv", "dsr", "olsr", "dsdv"):
            if other != protocol:
                routing.pop(other, None)
    if preset is not None:
        routing["preset"] = preset
    try:
        res = run_text(json.dumps(data), "json", seed, internal_json=True)
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


@cli.command()
@click.argument("experiment", type=click.Choice(["seed000", "seed000-routing", "seed001", "seed002", "seed003", "seed004"]))
@click.option("--replicas", type=click.IntRange(1, 1000), default=None,
              help="Replicas per configuration (seeds 1..R). Default: 5 for seed000, as in the paper; "
                   "20 for seed003, whose outages vary too much from run to run for fewer; 5 for seed001; "
                   "seed002: movement files (seeds) per mean speed, 10 as in the thesis.")
@click.option("--receiver", type=click.Choice(["ns2", "linux", "every"]), default=None,
              help="seed000: the TCP receiver [default: ns2]. ns2 = the paper's ns-2 runs (an ACK every other "
                   "segment, clamp on the sender); linux = its testbed's Linux 2.6 (an ACK per segment at max "
                   "cwnd 2, clamp on the advertised window); every = delayed ACKs off.")
@click.option("--routing", type=click.Choice(["static", "aodv-hello", "aodv-ll", "olsr"]), default=None,
              help="seed000: routing [default: aodv-hello]. aodv-hello (AODV-UU with HELLOs) and olsr are the "
                   "paper's ns-2 Fig. 3; aodv-ll uses link-layer feedback (§4.2); static has no routing protocol.")
@click.option("--duration", type=click.FloatRange(0, 1e7, min_open=True), default=None,
              help="Simulated seconds per run. Default: 120 for seed000; for seed001 200 (figures) and 120 (Table 1).")
@click.option("--hops", "hops_text", default=None, metavar="LIST",
              help="seed001: chain lengths of Figs. 9 and 12, e.g. 6,14 or 4-22 or 4-22:2 [default: 4-22:2].")
@click.option("--schemes", "schemes_text", default=None, metavar="LIST",
              help="seed001: transports to run, of tcp, few, adtcp, adtcp+few, ecn, ecn+few [default: all].")
@click.option("--only", "only_text", default=None, metavar="LIST",
              help="seed001: experiments to run, of table1, fig9, fig12; seed002: of chain, one-to-four, overlap, "
                   "waypoint, www (the chains always run: they give T_i) [default: all].")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Keep every run in the lab store DIR/store (a later call resumes from it); "
                   "DIR/runs.csv is this reproduction's rows, DIR/summary.csv its summary.")
@click.option("--jobs", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Worker processes.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also draw the experiment's main figure into FILE (.png, .svg or .pdf).")
@click.option("--plots", "plots_text", default=None, metavar="LIST",
              help="seed004: plots to run, of 1hop..6hop, 2by2, 3by2, 4by2 [default: all].")
def reproduce(experiment: str, replicas: int | None, receiver: str | None, routing: str | None,
              duration: float | None, hops_text: str | None, schemes_text: str | None, only_text: str | None,
              out_dir: Path | None, jobs: int, plot_path: Path | None, plots_text: str | None = None) -> None:
    """Reproduce a seed paper's experiment.

    seed000: throughput and retransmission index vs. maximum cwnd (2, 3, 4,
    unclamped = 32) for 1-4 hop chains and the 3-hop chain with 192 kbit/s
    CBR background traffic (seed 000 §4.1, §4.3, its ns-2 half), printed like
    the paper's Tables 1-4, followed by the paper's testbed values.

    seed000-routing: §4.2, the 3-hop chain at max cwnd 2 with AODV-LL and
    AODV-HELLO (interference range equal to and below carrier sense) and
    OLSR: throughput, retransmissions, link failures declared, timeouts.

    seed002: Östergren's thesis: T_i on static chains (Table 1), the
    one-to-four-hop and overlap experiments, random waypoint (2 and 10
    m/s, one and two streams, AODV/DSR, Reno/SACK, six window sets) and
    the WWW experiment, as tables of throughput, fraction of expected
    throughput and loss rate beside the thesis's findings.

    seed003: the route-break scenario (examples/route_break.toml) with
    AODV-UU, DSR-UU and OOLSR (TC 5 s / 3 s, periodic / immediate): outage,
    time in RTO (Table 4), timeouts, throughput; seeds 1..R.

    seed001: Table 1 (static vs DSR, 6-hop chain and 7x7 grid) and the
    chains of Fig. 9 (1 and 4 flows: TCP static and DSR, FeW, ADTCP at
    alpha 1 and 0.01) and Fig. 12 (2 flows, TCP and TCP-ECN at alpha 1 and
    0.01), as tables beside the paper's numbers and stated gains.

    seed004: Kawadia & Kumar's 8 treatments (window clamp, RTS/CTS off,
    SACK and their combinations) x 9 plots (1-6 hop chains, 2by2/3by2/4by2
    crossing flows) x 15 runs of 180 s as a lab design, printed as Tables
    2-5 beside the testbed's, with a verdict per finding; --plot draws the
    paper's Figure 2.
    """
    from . import _io, reproduce as rp

    def progress(msg: str) -> None:
        click.echo(msg, err=True)

    if only_text is not None and experiment not in ("seed001", "seed002"):
        raise HoplabError("--only applies to seed001 and seed002 only")
    for opt, given in (("--hops", hops_text), ("--schemes", schemes_text)):
        if given is not None and experiment != "seed001":
            raise HoplabError(f"{opt} applies to seed001 only")
    for opt, given in (("--receiver", receiver), ("--routing", routing)):
        if given is not None and not experiment.startswith("seed000"):
            raise HoplabError(f"{opt} applies to seed000 and seed000-routing only")
    if experiment == "seed000-routing" and routing is not None:
        raise HoplabError("--routing applies to seed000 only (seed000-routing runs every routing)")
    if plots_text is not None and experiment != "seed004":
        raise HoplabError("--plots applies to seed004 only")
    receiver = receiver or "ns2"
    routing = routing or "aodv-hello"
    if plot_path is not None:
        _check_plot_path(plot_path, experiment)
    if experiment == "seed004":
        from .cli_seed004 import reproduce_seed004
        reproduce_seed004(replicas, duration, plots_text, out_dir, jobs, plot_path)
        return
    if experiment == "seed002":
        if duration is not None:
            raise HoplabError("--duration does not apply to seed002 (its runs last until the 4 MB transfers end)")
        from .cli_seed002 import reproduce_seed002
        try:
            click.echo(reproduce_seed002(replicas, only_text, out_dir, jobs, progress))
        except OSError as e:
            raise HoplabError(_os_error_text(e, Path(e.filename or out_dir or "."))) from None
        return
    if experiment == "seed001":
        _reproduce_seed001(replicas, duration, hops_text, schemes_text, only_text, out_dir, jobs, progress)
        return

    if experiment == "seed003":
        from . import lab, reproduce_seed003 as r3

        replicas = replicas or r3.DEFAULT_REPLICAS
        try:
            runs3 = r3.run_all(replicas, progress, out=out_dir, jobs=jobs)
        except FileNotFoundError as e:
            raise HoplabError(str(e)) from None
        except (lab.LabError, lab.StoreError) as e:
            raise HoplabError(str(e)) from None
        click.echo(r3.report(runs3))
        if plot_path is not None:
            _plot(runs3, plot_path, x="config", y="outage_s", by=None,
                  title="Seed 003: delivery outage at the route break")
        if out_dir is not None:
            click.echo(f"\nper-run rows: {out_dir / 'runs.csv'}; store: {out_dir / 'store'}")
        return

    replicas = replicas or 5
    duration = 120.0 if duration is None else duration
    try:
        if experiment == "seed000-routing":
            runs = rp.run_tasks(rp.routing_tasks(replicas=replicas, duration=duration, receiver=receiver),
                                out=out_dir, jobs=jobs, progress=progress, name="seed000-routing")
        else:
            runs = rp.run_seed000(replicas=replicas, duration=duration, receiver=receiver, routing=routing,
                                  out=out_dir, jobs=jobs, progress=progress)
    except rp.ReproduceError as e:
        raise HoplabError(str(e)) from None
    except _core.ScenarioError as e:  # a bug in the reproduction's scenario, reported plainly
        raise HoplabError(_scenario_error_text(e)) from None
    except OSError as e:
        raise HoplabError(_os_error_text(e, Path(e.filename or out_dir or "."))) from None
    if experiment == "seed000-routing":
        click.echo(rp.report_routing(runs, replicas=replicas, duration=duration, receiver=receiver))
        summary, name = rp.summary_frame(runs, ("routing", "if_range_m")), "summary-routing.csv"
        if plot_path is not None:
            _plot(runs, plot_path, x="routing", y="throughput_kbps", by="if_range_m",
                  title="Seed 000 §4.2: 3-hop chain, W = 2")
    else:
        click.echo(rp.report_seed000(runs, replicas=replicas, duration=duration, receiver=receiver, routing=routing))
        summary, name = rp.summary_frame(runs), "summary.csv"
        if plot_path is not None:
            _plot(runs[runs["cbr_kbps"] == 0], plot_path, x="hops", y="throughput_kbps", by="max_cwnd",
                  title="Seed 000 §4.1: throughput vs hops per maximum window")
    if out_dir is not None:
        _io.atomic_write_bytes(out_dir / name, summary.to_csv(index=False).encode())
        click.echo(f"\nper-run rows: {out_dir / 'runs.csv'}; summary: {out_dir / name}")


PLOTTED = ("seed000", "seed000-routing", "seed003", "seed004")


def _check_plot_path(path: Path, experiment: str) -> None:
    from .plot import PlotError
    from .plot._figure import format_of

    if experiment not in PLOTTED:
        raise HoplabError(f"--plot applies to {', '.join(PLOTTED)}")
    try:
        format_of(path)
    except PlotError as e:
        raise HoplabError(str(e)) from None


def _plot(df: Any, path: Path, *, x: str, y: str, by: str | None, title: str) -> None:
    from .plot import PlotError, sweep

    try:
        sweep(df, x, y, by, title=title, path=path)
    except (PlotError, OSError) as e:
        raise HoplabError(f"--plot: {e}") from None
    click.echo(f"figure: {path}", err=True)


def _reproduce_seed001(replicas: int | None, duration: float | None, hops_text: str | None,
                       schemes_text: str | None, only_text: str | None, out_dir: Path | None, jobs: int,
                       progress: Any) -> None:
    from . import _io
    from . import reproduce_seed001 as r1
    from .reproduce import ReproduceError

    try:
        plan = r1.Plan(
            experiments=r1.EXPERIMENTS if only_text is None else r1.parse_list(only_text, r1.EXPERIMENTS, "--only"),
            hops=r1.DEFAULT_HOPS if hops_text is None else r1.parse_hops(hops_text),
            schemes=tuple(r1.SCHEMES) if schemes_text is None else r1.parse_list(schemes_text, tuple(r1.SCHEMES),
                                                                                 "--schemes"),
            replicas=replicas or r1.DEFAULT_REPLICAS, duration=duration)
        runs = r1.run_seed001(plan, out=out_dir, jobs=jobs, progress=progress)
    except ReproduceError as e:
        raise HoplabError(str(e)) from None
    except _core.ScenarioError as e:
        raise HoplabError(_scenario_error_text(e)) from None
    except OSError as e:
        raise HoplabError(_os_error_text(e, Path(e.filename or out_dir or "."))) from None
    click.echo(r1.report_seed001(runs, plan))
    if out_dir is not None:
        _io.atomic_write_bytes(out_dir / "summary.csv", r1.summary_frame(runs).to_csv(index=False).encode())
        click.echo(f"\nper-run rows: {out_dir / 'runs.csv'}; summary: {out_dir / 'summary.csv'}")


@cli.command()
@click.option("--repeat", type=click.IntRange(1, 100), default=1, show_default=True,
              help="Runs per scenario; the best wall time is reported.")
@click.option("--markdown", is_flag=True, help="Print a markdown table (for docs/BENCHMARKS.md).")
@click.option("--memory", is_flag=True, help="Peak memory of a 36,000 s 1-hop run instead (target < 150 MB).")
@click.option("--lab", "lab_", is_flag=True, help="The lab's overhead per run (store + processes) against bare runs.")
@click.option("--only", "only", multiple=True, metavar="NAME",
              help="Run only these scenarios (repeatable), e.g. --only mobile150-aodv.")
def bench(repeat: int, markdown: bool, memory: bool, lab_: bool, only: tuple[str, ...]) -> None:
    """Time fixed scenarios, each in a fresh process (4-hop chain, 7x7 grid,
    200 random nodes with static routing; the grid with DSR, the 200 nodes
    with AODV and with OLSR; seed 001's 150 mobile nodes and a 1,000-node
    version with AODV and DSR) and report events, wall time, events/s and
    peak memory against the targets (routing: <= 3x the static run)."""
    from . import bench as b

    unknown = [n for n in only if n not in b.SCENARIOS]
    if unknown:
        raise HoplabError(f"--only: unknown scenario {unknown[0]!r} (one of {', '.join(b.SCENARIOS)})")

    if lab_:
        from . import bench_lab as bl
        click.echo(bl.table(bl.run_lab_bench(progress=lambda m: click.echo(m, err=True)), markdown=markdown))
        return
    if memory:
        from . import bench_memory as bm
        try:
            click.echo(bm.table(bm.run_memory_bench(progress=lambda m: click.echo(m, err=True)), markdown=markdown))
        except RuntimeError as e:
            raise HoplabError(str(e)) from None
        return
    try:
        rows = b.run_bench(repeat=repeat, progress=lambda m: click.echo(m, err=True), names=only or None)
    except RuntimeError as e:
        raise HoplabError(str(e)) from None
    click.echo(b.table(rows, markdown=markdown))


from .cli_config import register as _register_config  # noqa: E402  (validate, config)
_register_config(cli)
from .cli_lab import register as _register_lab  # noqa: E402  (design, lab)
_register_lab(cli)
from .cli_plot import plot_group as _plot_group  # noqa: E402  (hoplab plot ...)
cli.add_command(_plot_group)
from .cli_movement import movement_group as _movement_group  # noqa: E402  (hoplab movement ...)
cli.add_command(_movement_group)


def main(argv: list[str] | None = None) -> NoReturn:
    """Console entry point: click in non-standalone mode, with our own exit codes."""
    try:
        rv = cli.main(args=argv, prog_name="hoplab", standalone_mode=False)
    except click.ClickException as e:  # HoplabError (2), usage errors (2)
        e.show()
        sys.exit(e.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(1)
    except _core.ScenarioError as e:
        click.echo(f"hoplab: error: {_scenario_error_text(e)}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("hoplab: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
    except OSError as e:  # a file the command reads or writes: one line naming it
        click.echo(f"hoplab: error: {_os_error_text(e, Path(e.filename or '?'))}", err=True)
        sys.exit(2)
    except BaseException as e:  # a bug (also pyo3's PanicException, a BaseException): one line
        if isinstance(e, (SystemExit, GeneratorExit)):
            raise
        internal_error_exit(e)
    # The command has finished: a Ctrl-C from here on would only interrupt
    # the interpreter's teardown (exit -2 with no message), so ignore it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
