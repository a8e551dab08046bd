"""Reading and checking a scenario without running it (`validate`,
`config --resolved`)."""

from __future__ import annotations

from pathlib import Path

from .. import _core, _deprecation
from . import _input
from .errors import scenario_failure

__all__ = ["check", "load"]


def load(path: Path, sets: tuple[str, ...]) -> tuple[str, str]:
    """The scenario text and kind, with --set overrides applied."""
    return _input.with_overrides(path, *_input.read(path), sets)


def check(path: Path, text_: str, fmt: str, sets: tuple[str, ...]) -> tuple[str, int]:
    """The scenario's name and node count, or its one-line error."""
    try:
        return _deprecation.check(text_, fmt)
    except _core.ScenarioError as e:
        raise scenario_failure(e, path, sets) from None
