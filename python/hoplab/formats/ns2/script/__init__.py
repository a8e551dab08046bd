"""ns-2 wireless scripts in hoplab: evaluate a script with a real Tcl
interpreter whose ns-2 objects are stand-ins (`ns.py`), turn what it asked
for into a scenario (`build.py`), and write a scenario back as a script
(`export.py`).

    from hoplab.formats.ns2.script import load_script
    plan = load_script("simple-wireless.tcl", args=[])
    plan.scenario        # the scenario dict (compat = "ns2")
    plan.sources         # dotted field -> the script line it came from
    plan.outputs         # files the script opened for writing, and what each becomes
"""

from __future__ import annotations

from .errors import Location, ScriptError

__all__ = ["ScriptError", "Location", "load_script", "ScriptPlan"]


def __getattr__(name: str):  # PEP 562: the interpreter loads on first use
    if name in ("load_script", "ScriptPlan"):
        from . import build

        return getattr(build, name)
    raise AttributeError(name)
