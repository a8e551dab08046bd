"""`hoplab movement`: ns-2 movement files (setdest) and connection files
(cbrgen) in and out.

    hoplab movement import MOVEMENT_FILE [--traffic CBRGEN_FILE] --base SCENARIO -o SCENARIO.toml
    hoplab movement export RESULT_DIR_OR_SCENARIO -o FILE [--seed N] [--traffic FILE]

A malformed line is one error line naming the file and line (exit 2).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click

from .. import _core
from . import _input
from .errors import HoplabError, scenario_error_text

__all__ = ["movement_group"]

OUT = click.option("-o", "--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
                   help="File to write.")
_FIELD = re.compile(r"(mobility\.legs|flows)\[(\d+)\]")


def _fail(msg: str) -> click.ClickException:
    return HoplabError(msg)


def _scenario(path: Path) -> dict[str, Any]:
    return _input.scenario_dict(path, *_input.read(path), ())


def _check(sc: dict[str, Any], sources: str, where: dict[str, tuple[str, list[int]]]) -> None:
    """Validate the merged scenario; an error in a leg or flow names the file
    line it came from, any other the files it was imported from (``sources``;
    never the output file, which is written only after this check)."""
    try:
        text = json.dumps(sc, allow_nan=False)
    except ValueError as e:  # a non-finite number the readers' range checks let through
        raise _fail(f"{sources}: {e}") from None
    try:
        _core.check_scenario(text, "json")
    except _core.ScenarioError as e:
        field = getattr(e, "field", "") or ""
        message = getattr(e, "message", None) or str(e)
        m = _FIELD.match(field)
        if m and m.group(1) in where:
            path, lines = where[m.group(1)]
            k = int(m.group(2))
            if k < len(lines):
                raise _fail(f"{path}:{lines[k]}: {field}: {message}") from None
        raise _fail(f"{sources}: {field + ': ' if field else ''}{message}") from None


def _read_ns2(read: Any, path: Path) -> Any:
    """``read(path)`` with its errors as one line naming the file (and line)."""
    from ..formats.ns2 import Ns2FormatError

    try:
        return read(path)
    except Ns2FormatError as e:
        raise _fail(str(e)) from None
    except UnicodeDecodeError as e:
        raise _fail(f"{path}: not a UTF-8 text file ({e.reason})") from None
    except OSError as e:
        raise _fail(f"{path}: {e.strerror or e.__class__.__name__}") from None


@click.group("movement")
def movement_group() -> None:
    """ns-2 movement (setdest) and connection (cbrgen) files: import them
    into a scenario, export the movement of a run."""


@movement_group.command("import")
@click.argument("movement_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--traffic", "traffic", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A cbrgen connection file: its connections replace the base's flows.")
@click.option("--base", "base", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The scenario to put the nodes into (radio, MAC, routing, TCP, duration...).")
@OUT
def import_cmd(movement_file: Path, traffic: Path | None, base: Path, out: Path) -> None:
    """Read an ns-2 movement file (and a connection file) into BASE and write
    the scenario as TOML: an explicit topology at the initial positions, the
    setdest legs as mobility.legs, the connections as flows. BASE's node
    count, if it has a topology, must be the file's."""
    from .. import _io, _toml_emit
    from ..formats.ns2 import movement as nm, traffic as nt

    sc0 = _scenario(base)
    mv = _read_ns2(nm.read_movement, movement_file)
    tr = _read_ns2(nt.read_traffic, traffic) if traffic is not None else None
    try:
        sc, leg_lines = nm.merge_movement(sc0, mv)
        where = {"mobility.legs": (str(movement_file), leg_lines)}
        if tr is not None:
            where["flows"] = (str(traffic), nt.merge_traffic(sc, tr))
    except nm.Ns2FormatError as e:
        raise _fail(str(e)) from None
    notes = tr.notes if tr is not None else []
    sources = f"{movement_file}" + (f" and {traffic}" if traffic else "")
    _check(sc, f"{sources} into {base}", where)
    text = _toml_emit.dumps(sc, header=f"Written by `hoplab movement import` from {sources} into {base}.")
    _io.atomic_write_bytes(out, text.encode())
    for n in notes:
        click.echo(f"hoplab: note: {n}", err=True)
    flows = len(sc.get("flows") or [])
    click.echo(f"wrote {out}: {mv.nodes} nodes, {len(sc['mobility']['legs'])} legs "
               f"({len(mv.legs)} setdest lines), {flows} flow{'s' if flows != 1 else ''}")


@movement_group.command("export")
@click.argument("source", metavar="RESULT_DIR_OR_SCENARIO", type=click.Path(path_type=Path))
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="For a scenario: the seed (random positions and movement; default: the scenario's).")
@click.option("--traffic", "traffic", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the flows as a cbrgen-style connection file.")
@OUT
def export_cmd(source: Path, seed: int | None, traffic: Path | None, out: Path) -> None:
    """Write the movement of a run (a `hoplab run --out` directory) or of a
    scenario file as an ns-2 movement file in setdest's format."""
    import tomllib

    from .. import _io
    from ..formats.ns2 import movement as nm, traffic as nt

    try:
        if source.is_dir():
            from ..manifest import ResultError
            from ..result import Result

            try:
                res = Result.load(source)
            except ResultError as e:
                raise _fail(str(e)) from None
            frame = nm.movement_of(res)
            sc = nm._scenario_of(res)
            label = f"{res.info.get('scenario')}, seed {res.info.get('seed')}"
        else:
            sc = _scenario(source)
            frame = _scenario_movement(sc, seed)
            label = f"{sc.get('name', source.stem)}, seed {seed if seed is not None else sc.get('seed', 1)}"
        _io.atomic_write_bytes(out, nm.format_movement(frame, label).encode())
        if traffic is not None:
            resolved = tomllib.loads(_core.resolved_scenario(json.dumps(sc), "json"))
            _io.atomic_write_bytes(traffic, nt.format_traffic(resolved.get("flows", []), resolved.get("tcp"),
                                                               label).encode())
    except _core.ScenarioError as e:
        raise _fail(scenario_error_text(e, source)) from None
    except ValueError as e:
        raise _fail(f"{source}: {e}") from None
    legs = int((frame["time_s"] > 0).sum() + ((frame["time_s"] == 0) & (frame["speed_mps"] > 0)).sum())
    click.echo(f"wrote {out}: {frame['node'].nunique()} nodes, {legs} legs"
               + (f"; {traffic}" if traffic is not None else ""))


def _scenario_movement(sc: dict[str, Any], seed: int | None) -> Any:
    """A scenario file's movement: computed from its legs, or, for a drawn
    mobility model, from a run of its nodes alone (movement does not depend
    on traffic: each node's random stream is its own, crate::rng)."""
    from .._run import run
    from ..formats.ns2 import movement as nm

    seed = seed if seed is not None else int(sc.get("seed", 1))
    mob = sc.get("mobility") or {}
    if mob.get("model", "legs") == "legs":
        return nm.movement_frame(nm.initial_positions(sc, seed), mob.get("legs", []))
    bare = {k: v for k, v in sc.items() if k not in ("flows", "output", "routing")}
    bare.update(flows=[], output={"timeseries": False})
    return nm.movement_of(run(bare, seed=seed))
