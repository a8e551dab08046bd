"""`hoplab run SCENARIO`: run one scenario, print its summary, save its results.

    hoplab run SCENARIO.toml|example:NAME [--seed N] [--set key=value ...] [--out DIR] [--format csv|parquet]
               [--no-save] [--detail]
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import click

from . import _input, _script
from ._check import warn_unconnected
from .errors import HoplabError, os_error_text, scenario_failure

__all__ = ["run_cmd"]

U64_MAX = 2**64 - 1


def _safe_dirname(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "scenario"


@click.command("run", context_settings={"ignore_unknown_options": False})
@click.argument("scenario", type=click.Path(path_type=Path))
@click.argument("script_args", nargs=-1, metavar="[-- ARGS]")
@click.option("--seed", type=click.IntRange(0, U64_MAX), default=None,
              help="Seed (default: the scenario's `seed`).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Results directory (default: out/<scenario name>/seed-<N>/).")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv", show_default=True,
              help="File format of the tables (parquet needs pyarrow).")
@click.option("--no-save", is_flag=True, help="Print the summary only; write no files.")
@click.option("--detail", is_flag=True,
              help="Print the full tables: per node, and drops per node, layer, cause and packet type.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario field by its dotted path, e.g. routing.aodv.link_detection=link_layer.")
@click.option("--tcl-time-limit", type=click.FloatRange(0.1, 86400), default=60.0, show_default=True,
              help="SCRIPT.tcl: longest wall-clock time the script itself may take to evaluate (s).")
def run_cmd(scenario: Path, script_args: tuple[str, ...], seed: int | None, out_dir: Path | None, fmt: str,
            no_save: bool, detail: bool, sets: tuple[str, ...], tcl_time_limit: float) -> None:
    """Run one scenario file (TOML, or .json) or example:NAME (see `hoplab
    example`), print a summary and save the results.

    Results go to DIR/<table>.csv for each table with rows (flows, nodes,
    drops, timeseries, overhead, route_events, paths, outages, trace,
    movement, downloads, oracle_paths: docs/RESULTS.md), DIR/info.json,
    DIR/scenario.toml (the scenario as run, --set included) and
    DIR/MANIFEST.json. Files are written under a temporary name and renamed;
    an existing file with different content is moved to DIR/previous/<time>/
    first, so nothing already in DIR is lost. The scenario's `[trace]
    formats` (trace.csv, anim.csv) stream into DIR/.trace-partial-*/ while
    the run goes and join the result when it is saved.

    SCENARIO may also be an ns-2 wireless script (SCRIPT.tcl, with the
    script's own arguments after `--`): it is evaluated by a Tcl
    interpreter whose ns-2 objects record what it asks for, run with
    `compat = "ns2"` and ns-2.35's defaults, and its `trace-all` file is
    written where ns-2 would write it (docs/GUIDE.md, "Coming from ns-2").
    """
    from .. import _core, _toml_emit
    from .._progress import for_stderr
    from .._run import run_text

    if fmt == "parquet" and not no_save:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise HoplabError("--format parquet needs pyarrow: pip install pyarrow") from None
    plan = None
    if _script.is_script(scenario):
        plan = _script.load(scenario, script_args, tcl_time_limit)
        if no_save and plan.trace is not None and "trace" in plan.scenario:
            raise HoplabError(f"{scenario}: the script writes an ns-2 trace ({plan.trace.file.path.name}), and "
                              "--no-save writes no files: drop --no-save")
        text, kind = _input.with_overrides(scenario, json.dumps(plan.scenario), "json", sets)
    elif script_args:
        raise HoplabError(f"{scenario}: arguments after the scenario ({' '.join(script_args)[:40]}) are for "
                          "ns-2 scripts (SCRIPT.tcl) only")
    else:
        text, kind = _input.with_overrides(scenario, *_input.read(scenario), sets)
    try:
        name, own_seed, formats = _core.trace_plan(text, kind)
        emulated = _core.emulation_table(text, kind) is not None
    except _core.ScenarioError as e:
        raise scenario_failure(e, scenario, sets) from None
    if emulated:  # simulated alone, its real nodes would send nothing: refused, not run quietly
        raise HoplabError(f"{scenario}: has an [emulation] table (real nodes): run it with `hoplab emu {scenario}`; "
                          "`hoplab run` would simulate it without the real nodes' traffic")
    if formats and no_save:
        raise HoplabError(f"{scenario}: [trace] formats = {json.dumps(formats)} writes files, and --no-save "
                          "writes none: drop --no-save or the formats")
    warn_unconnected(text, kind, seed)
    if formats and out_dir is None:  # the trace streams into the result directory: known before the run
        out_dir = Path("out") / _safe_dirname(name) / f"seed-{own_seed if seed is None else seed}"
    if not no_save:  # a read-only --out fails now, not after the run
        _check_out(out_dir or Path("out"))
    stream = _stream_dir(out_dir) if formats and out_dir is not None else None
    display = for_stderr()
    try:
        res = run_text(text, kind, seed, progress=display, internal_json=bool(sets), trace_dir=stream)
    except _core.ScenarioError as e:
        _discard(stream)
        raise scenario_failure(e, scenario, sets) from None
    except OSError as e:  # a trace file that could not be written (disk full, directory gone)
        _discard(stream)
        raise HoplabError(os_error_text(e, Path(e.filename or stream or "."))) from None
    except BaseException:
        _discard(stream)
        raise
    finally:
        if display is not None:
            display.close()
    if plan is not None and not sets:
        res.scenario_text = _toml_emit.dumps(json.loads(text), header=f"from the ns-2 script {scenario}")
        res.scenario_format = "toml"
    if sets:  # saved as TOML like any scenario, saying where it came from
        res.scenario_text = _toml_emit.dumps(json.loads(text), header=f"{scenario} run with --set {' '.join(sets)}")
        res.scenario_format = "toml"
    if out_dir is None and not no_save:
        out_dir = Path("out") / _safe_dirname(str(res.info["scenario"])) / f"seed-{res.info['seed']}"
    click.echo(_summary(res, detail, None if no_save else out_dir, fmt))
    if no_save or out_dir is None:
        return
    try:
        res.save(out_dir, format=fmt)
    except OSError as e:
        raise HoplabError(os_error_text(e, Path(e.filename or out_dir))) from None
    finally:
        _discard(stream)  # saved: its files are linked (or copied) into out_dir
    click.echo(f"\nresults written to {out_dir}/")
    if plan is not None:
        for line in _script.write_outputs(plan, out_dir):
            click.echo(line)


def _summary(res: Any, detail: bool, out_dir: Path | None, fmt: str) -> str:
    """The run's summary; its list of the other tables names their files."""
    if detail:
        return res.summary(full=True)
    if out_dir is None:
        title = "Other tables (--detail prints nodes and drops in full; --no-save: no files written)"
        return res.summary(tables_title=title, where=lambda t: "")
    title = f"Other tables (--detail prints nodes and drops in full; the files are in {out_dir}/)"
    streamed = res.trace_files
    text = res.summary(tables_title=title,
                       where=lambda t: "trace.csv" if t == "trace" and "trace.csv" in streamed else f"{t}.{fmt}")
    others = [n for n in streamed if n != "trace.csv"]
    return text + (f"\nstreamed trace files: {', '.join(others)}" if others else "")


def _stream_dir(out_dir: Path) -> Path:
    """A fresh directory inside ``out_dir`` for the trace files to stream
    into: an earlier result's files stay untouched until the save."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=".trace-partial-", dir=out_dir))
    except OSError as e:
        raise HoplabError(os_error_text(e, Path(e.filename or out_dir))) from None


def _discard(stream: Path | None) -> None:
    if stream is not None:
        shutil.rmtree(stream, ignore_errors=True)


def _check_out(out_dir: Path) -> None:
    from ..result import Result

    try:
        Result.check_writable(out_dir)
    except OSError as e:
        raise HoplabError(os_error_text(e, out_dir)) from None
