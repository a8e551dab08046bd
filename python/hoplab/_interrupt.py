"""Ctrl-C and engine failures in the CLI: one line on stderr, fixed exit codes.

click turns a KeyboardInterrupt escaping a command into `Abort` (printing a
blank line and "Aborted!", exit 1); the group below catches it inside the
command instead and reports `hoplab: interrupted`, exit 130 (128 + SIGINT).
"""

from __future__ import annotations

from typing import Any

import click

from . import _core

#: Exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report).
EXIT_INTERRUPTED = 130
#: Exit status of an engine failure (EX_SOFTWARE, sysexits.h).
EXIT_SOFTWARE = 70


class Interrupted(click.ClickException):
    """Ctrl-C: `hoplab: interrupted`, exit 130."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self) -> None:
        super().__init__("interrupted")

    def show(self, file: Any = None) -> None:
        click.echo("hoplab: interrupted", err=True)


class EngineFailure(click.ClickException):
    """A `hoplab.SimulationError`: one line naming scenario and seed, exit 70."""

    exit_code = EXIT_SOFTWARE

    def show(self, file: Any = None) -> None:
        click.echo(f"hoplab: error: {self.format_message()}", err=True)


class InterruptibleGroup(click.Group):
    """A click group whose commands report Ctrl-C and engine failures in one line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted() from None
        except _core.SimulationError as e:
            raise EngineFailure(str(e)) from None
