"""Deprecated scenario key names (`duration` for `duration_s`, ...) still
work; each use is reported as a `ScenarioKeyDeprecationWarning`, and the CLI
prints it as one `hoplab: warning: ...` line."""

from __future__ import annotations

import sys
import warnings

from . import _core


class ScenarioKeyDeprecationWarning(DeprecationWarning):
    """A scenario uses an old key name; the message names the new one."""


def check(text: str, fmt: str, stacklevel: int = 4) -> tuple[str, int]:
    """Validate ``text`` (raises ScenarioError), warn for each old key, and
    return the scenario's ``(name, node count)``."""
    name, nodes, old = _core.check_scenario(text, fmt)
    warn_old_keys(old, stacklevel + 1)
    return name, nodes


def warn_old_keys(old: list[str], stacklevel: int) -> None:
    """One `ScenarioKeyDeprecationWarning` per old key the engine reported."""
    for w in old:
        warnings.warn(w, ScenarioKeyDeprecationWarning, stacklevel=stacklevel + 1)


def print_as_cli_warnings() -> None:
    """Show our deprecation warnings as `hoplab: warning: ...` on stderr (every time)."""
    warnings.simplefilter("always", ScenarioKeyDeprecationWarning)
    previous = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):  # type: ignore[no-untyped-def]
        if issubclass(category, ScenarioKeyDeprecationWarning):
            print(f"hoplab: warning: {message}", file=sys.stderr)
        else:
            previous(message, category, filename, lineno, file, line)

    warnings.showwarning = show
