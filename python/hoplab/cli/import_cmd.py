"""`hoplab import SCRIPT.tcl [-o scenario.toml] [-- ARGS]`: the scenario an
ns-2 wireless script describes, as readable TOML with the script line (or
ns-2 default) each value came from as a comment.

Values that only repeat what `compat = "ns2"` already gives are left out;
every value the script itself set is kept. `hoplab run` of the TOML runs
exactly what `hoplab run SCRIPT.tcl` runs (the same event hash).
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

import click

from . import _script
from .errors import HoplabError, os_error_text

__all__ = ["import_cmd", "scenario_toml"]

_KEEP_WHOLE = ("name", "compat", "seed", "duration_s", "topology", "flows", "mobility", "trace", "routing.protocol")


def _drop(d: dict[str, Any], path: str) -> None:
    keys = path.split(".")
    chain = [d]
    for k in keys[:-1]:
        chain.append(chain[-1][k])
    del chain[-1][keys[-1]]
    for k, table in zip(reversed(keys[:-1]), reversed(chain[:-1])):
        if not table[k]:
            del table[k]


def pruned(plan: Any) -> dict[str, Any]:
    """The plan's scenario without the ns-2 defaults that the ns2 profile
    already resolves to the same value."""
    from .. import _core
    from ..formats.ns2.script.build import NS2_DEFAULT
    from ..formats.ns2.script.export import get_path, leaves

    sc = json.loads(json.dumps(plan.scenario))
    bare = {k: sc[k] for k in ("name", "compat", "seed", "duration_s", "topology", "flows") if k in sc}
    bare["routing"] = {"protocol": sc["routing"]["protocol"]}
    try:
        resolved = tomllib.loads(_core.resolved_scenario(json.dumps(bare), "json"))
    except _core.ScenarioError as e:
        raise HoplabError(f"{plan.script}: {e}") from None
    for path, value in leaves(sc):
        if path.startswith(_KEEP_WHOLE):
            continue
        loc = plan.sources.get(path)
        from_default = loc is None or str(loc.file).startswith(NS2_DEFAULT)
        if from_default and get_path(resolved, path) == value:
            _drop(sc, path)
    return sc


def scenario_toml(plan: Any, args: tuple[str, ...] = ()) -> str:
    from .. import _toml_emit

    sc = pruned(plan)
    comments = {k: str(v) for k, v in plan.sources.items()}
    call = " ".join([str(plan.script), *(["--", *args] if args else [])])
    header = (f"Imported by `hoplab import` from the ns-2 script {call}.\n"
              "Each value's comment names the script line it came from, or the ns-2.35 default it keeps;\n"
              "compat = \"ns2\" gives ns-2.35's reading of everything else (`hoplab config --resolved` shows it).")
    return _toml_emit.dumps(sc, header=header, comments=comments)


@click.command("import")
@click.argument("script", type=click.Path(path_type=Path))
@click.argument("script_args", nargs=-1, metavar="[-- ARGS]")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the scenario here (default: print it).")
@click.option("--tcl-time-limit", type=click.FloatRange(0.1, 86400), default=60.0, show_default=True,
              help="Longest wall-clock time the script itself may take to evaluate (s).")
def import_cmd(script: Path, script_args: tuple[str, ...], output: Path | None, tcl_time_limit: float) -> None:
    """Translate an ns-2 wireless script (SCRIPT.tcl, its arguments after
    `--`) into a hoplab scenario: readable TOML, each value with the script
    line it came from as a comment; `hoplab run` of it runs what `hoplab
    run SCRIPT.tcl` runs."""
    from .. import _core

    if not _script.is_script(script):
        raise HoplabError(f"{script}: not an ns-2 script (a .tcl file)")
    plan = _script.load(script, script_args, tcl_time_limit, echo=False)
    text = scenario_toml(plan, script_args)
    try:
        _core.check_scenario(text, "toml")
    except _core.ScenarioError as e:
        raise HoplabError(f"{script}: the imported scenario is refused: {e}") from None
    if output is None:
        sys.stdout.write(text)
        return
    from .._io import atomic_write_bytes

    try:
        atomic_write_bytes(output, text.encode(), keep_previous=False)
    except OSError as e:
        raise HoplabError(os_error_text(e, output)) from None
    n, k = len(plan.scenario["topology"]["positions"]), len(plan.scenario["flows"])
    click.echo(f"{output}: {n} node{'s' * (n != 1)}, {k} flow{'s' * (k != 1)}, {plan.scenario['duration_s']:g} s",
               err=True)
