"""The `hoplab` command group: commands read from a table and imported only
when run, Ctrl-C and engine failures reported in one line.

`hoplab --help` lists every command with its one-line summary from the
table (hoplab.cli._commands), so it imports no command module: a command's
own imports (pandas, the lab, matplotlib...) are paid only by that command.

click turns a KeyboardInterrupt escaping a command into `Abort` (printing a
blank line and "Aborted!", exit 1); the group catches it inside the command
instead and reports `hoplab: interrupted`, exit 130 (128 + SIGINT); a
missing optional dependency is one `hoplab: error:` line naming the extra.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from .. import _core
from ._commands import COMMANDS, CommandInfo
from .._extras import MissingExtra, extra_of
from .errors import EngineFailure, HoplabError, Interrupted

__all__ = ["LazyGroup", "load_command", "version_text"]


def version_text() -> str:
    """`0.1.0 (git 1a2b3c4)`; the commit is "unknown" outside a git build."""
    commit = getattr(_core, "__git_commit__", None) or "unknown"
    return f"{_core.__version__} (git {commit})"


def load_command(info: CommandInfo) -> click.Command:
    """Import the command's module and return its click command."""
    return getattr(importlib.import_module(info.module), info.attr)


class LazyGroup(click.Group):
    """A click group over `COMMANDS` whose commands report Ctrl-C and engine
    failures in one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.add_command(load_command(COMMANDS[cmd_name]), cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click's own version loads every command for its short help; a stub
        # carrying the table's summary gives the same text without the import.
        stubs = [(n, self.commands.get(n) or click.Command(n, help=COMMANDS[n].summary))
                 for n in self.list_commands(ctx)]
        rows = [(n, c) for n, c in stubs if not c.hidden]
        if rows:
            limit = formatter.width - 6 - max(len(n) for n, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(n, c.get_short_help_str(limit)) for n, c in rows])

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted() from None
        except _core.SimulationError as e:
            raise EngineFailure(str(e)) from None
        except MissingExtra as e:  # an optional dependency: which extra to install
            raise HoplabError(str(e)) from None
        except ModuleNotFoundError as e:
            # The same for code that imports an optional package without
            # asking hoplab._extras first; any other missing module is a bug.
            extra = extra_of(e.name)
            if extra is None:
                raise
            raise HoplabError(f"'hoplab {ctx.invoked_subcommand}' needs {e.name.split('.')[0].replace('_', '-')}: "
                              f"pip install 'hoplab[{extra}]'") from None
