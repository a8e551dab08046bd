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

    from .papers.seed003 import timeline as tl
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


from .papers.cli import reproduce as _reproduce  # noqa: E402  (hoplab reproduce PAPER ...)
cli.add_command(_reproduce)


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
