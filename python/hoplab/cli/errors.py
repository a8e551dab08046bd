"""Every error the CLI reports, in one place: one line on stderr, a fixed exit code.

    HoplabError        bad input (scenario, file, option): `hoplab: error: ...`, exit 2
    Interrupted        Ctrl-C: `hoplab: interrupted`, exit 130 (128 + SIGINT)
    Signalled          SIGTERM, SIGHUP ended a command that saved its work first: exit 128 + the signal
    EngineFailure      a `hoplab.SimulationError`: `hoplab: error: ...`, exit 70
    internal_error_exit  a bug: `hoplab: internal error: ...`, exit 70

Command modules raise these; they never import the command group (hoplab.cli).
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import Any, NoReturn

import click

from .._error_text import position, tidy

__all__ = [
    "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_SOFTWARE", "EngineFailure", "HoplabError", "Interrupted", "Signalled",
    "internal_error_exit", "os_error_text", "scenario_error_text", "scenario_failure", "set_hint",
]

EXIT_INTERNAL = 70  # sysexits.h EX_SOFTWARE: an internal software error
#: Exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report).
EXIT_INTERRUPTED = 130
#: Exit status of an engine failure (EX_SOFTWARE, sysexits.h).
EXIT_SOFTWARE = 70


class HoplabError(click.ClickException):
    """A user-facing error: `hoplab: error: <message>` on stderr, exit 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"hoplab: error: {self.format_message()}", err=True)


class Interrupted(click.ClickException):
    """Ctrl-C: `hoplab: interrupted`, exit 130."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self) -> None:
        super().__init__("interrupted")

    def show(self, file: Any = None) -> None:
        click.echo("hoplab: interrupted", err=True)


class Signalled(click.ClickException):
    """SIGTERM or SIGHUP (`timeout`, `kill`, SLURM; a closed terminal) ended a
    command that saved its work first (`hoplab emu`): `hoplab: stopped by
    SIGTERM`, exit 128 + the signal's number, the status a shell gives a
    process the signal killed (143, 129)."""

    def __init__(self, signum: int) -> None:
        import signal

        self.exit_code = 128 + signum
        super().__init__(f"stopped by {signal.Signals(signum).name}")

    def show(self, file: Any = None) -> None:
        click.echo(f"hoplab: {self.format_message()}", err=True)


class EngineFailure(click.ClickException):
    """A `hoplab.SimulationError`: one line naming scenario and seed, exit 70."""

    exit_code = EXIT_SOFTWARE

    def show(self, file: Any = None) -> None:
        click.echo(f"hoplab: error: {self.format_message()}", err=True)


def scenario_error_text(e: BaseException, path: Path | None = None) -> str:
    """`file[:line:column]: field: message` of a ScenarioError."""
    field = getattr(e, "field", "") or ""
    message = getattr(e, "message", None) or str(e)
    at = position(e)
    if path is not None and at is not None:  # where the parser found it: file:line:column
        path = Path(f"{path}:{at[0]}:{at[1]}")
    elif at is not None:  # no file to name: the position after the message
        message = f"{message} (at line {at[0]}, column {at[1]})"
    parts = [str(path)] if path is not None else []
    if field:
        parts.append(field)
    parts.append(message)
    return ": ".join(parts)


def set_hint(e: BaseException, sets: tuple[str, ...]) -> str:
    """` (from --set a.b=1)` when the error names a table that a --set
    override went into: the engine names the table for errors of the table as
    a whole (a field that `topology`'s kind does not have, one missing), so
    this says which value it was."""
    field = getattr(e, "field", "") or ""
    if not field:
        return ""
    hits = [a for a in sets if a.partition("=")[0].strip().startswith((f"{field}.", f"{field}["))]
    return f" (from --set {', '.join(hits)})" if hits else ""


def scenario_failure(e: BaseException, path: Path, sets: tuple[str, ...] = ()) -> HoplabError:
    """The one-line error for a scenario the engine refused: tidied (after
    --set the engine parsed hoplab's own JSON, whose line/column mean nothing
    to the user) and naming the override a table-level error came from."""
    e = tidy(e, internal_json=bool(sets))  # type: ignore[arg-type]
    return HoplabError(scenario_error_text(e, path) + set_hint(e, sets))


def os_error_text(e: OSError, path: Path) -> str:
    """`path: reason` of a file the command could not read or write."""
    reason = e.strerror or e.__class__.__name__
    return f"{path}: {reason}"


def internal_error_exit(e: BaseException) -> NoReturn:
    """Report a bug in one line (the traceback with HOPLAB_DEBUG=1), exit 70."""
    if os.environ.get("HOPLAB_DEBUG", "") not in ("", "0"):
        traceback.print_exception(e)
    msg = " ".join(str(e).split())  # one line whatever the exception says
    print(f"hoplab: internal error: {type(e).__name__}: {msg} (please report; HOPLAB_DEBUG=1 shows the traceback)",
          file=sys.stderr)
    sys.exit(EXIT_INTERNAL)
