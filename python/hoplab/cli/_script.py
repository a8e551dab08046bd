"""ns-2 scripts on the command line: read one into a scenario (the errors
as one `hoplab: error:` line, exit 2), and after a run, write the files the
script opened where ns-2 would have written them.

Used by `hoplab run SCRIPT.tcl`, `hoplab import` and `hoplab crosscheck`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from .errors import HoplabError, os_error_text

__all__ = ["is_script", "load", "write_outputs"]


def is_script(path: Path) -> bool:
    return path.suffix.lower() == ".tcl"


def load(path: Path, args: tuple[str, ...], time_limit_s: float, echo: bool = True) -> Any:
    """The script's `ScriptPlan`; what it prints goes to stdout (as under
    `ns`) when ``echo``, else to stderr."""
    from ..formats.ns2.script import ScriptError, load_script

    def out(text: str) -> None:
        (sys.stdout if echo else sys.stderr).write(text)

    try:
        plan = load_script(path, list(args), time_limit_s=time_limit_s, echo=out)
    except ScriptError as e:
        raise HoplabError(str(e)) from None
    except RecursionError:
        raise HoplabError(f"{path}: the script nests procedures too deeply (endless recursion?)") from None
    for note in plan.notes:
        click.echo(f"hoplab: note: {note}", err=True)
    return plan


def write_outputs(plan: Any, out_dir: Path | None) -> list[str]:
    """Write the files the script opened for writing: its ns-2 trace (what
    the script wrote to it, then the run's trace.tr from ``out_dir``) and
    any file it wrote itself; a nam file is not written (`hoplab view`
    shows the run). Returns one line per file for the user."""
    from .._io import atomic_write_bytes

    lines = []
    for o in plan.outputs:
        f = o.file
        if o.role == "nam":
            lines.append(f"{f.path.name}: nam trace not written (hoplab has no nam output; `hoplab view "
                         f"{out_dir or 'OUT'}` animates the run when [trace] formats has \"anim\")")
            continue
        data = f.text().encode()
        if o.role == "trace":
            run_trace = (out_dir / "trace.tr") if out_dir is not None else None
            if run_trace is not None and run_trace.is_file():
                data += run_trace.read_bytes()
        try:
            atomic_write_bytes(f.path, data, keep_previous=False)
        except OSError as e:
            raise HoplabError(os_error_text(e, f.path)) from None
        lines.append(f"{f.path}: {'ns-2 trace' if o.role == 'trace' else 'written by the script'}")
    return lines
