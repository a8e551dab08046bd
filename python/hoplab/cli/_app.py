"""The `hoplab` command group and the body of the console entry point
(`hoplab.cli.main`, which imports this module once it has taken over Ctrl-C).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import NoReturn

import click

from .. import _core, _deprecation
from ._group import LazyGroup, version_text
from .errors import EXIT_INTERRUPTED, internal_error_exit, os_error_text, scenario_error_text

__all__ = ["cli", "main"]


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version_text(), prog_name="hoplab", message="%(prog)s %(version)s")
def cli() -> None:
    """hoplab: TCP over multihop IEEE 802.11 ad hoc networks, simulated."""


# Old scenario keys warn as one `hoplab: warning: ...` line each, in every command.
_deprecation.print_as_cli_warnings()


def main(argv: list[str] | None = None, *, restore_sigint: bool = False) -> NoReturn:
    """Run the command line; exit with its status.

    ``restore_sigint``: `hoplab.cli.main` replaced Python's SIGINT handler for
    the start-up; the command gets it back (KeyboardInterrupt, reported below)."""
    try:
        if restore_sigint:  # inside the try: a Ctrl-C from here on is reported below
            signal.signal(signal.SIGINT, signal.default_int_handler)
        status = _run(argv)
    except KeyboardInterrupt:  # after the command's own handling, before the ignore below
        status = _interrupted()
    # The command has finished: a Ctrl-C from here on would only interrupt
    # the interpreter's teardown (exit -2 with no message, or "Exception
    # ignored" from an atexit hook), so ignore it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pool = sys.modules.get("hoplab._pool")  # imported only if a local pool ran
    if pool is not None and pool.exit_would_hang():
        # A worker pool stopped by Ctrl-C left CPython's manager thread
        # waiting on a pipe for good (_pool._stop); the store is closed and
        # the line printed, so leave without the exit's join of that thread.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


def _interrupted() -> int:
    click.echo("hoplab: interrupted", err=True)
    return EXIT_INTERRUPTED


def _run(argv: list[str] | None) -> int:
    """The command's exit status, its error reported in one line."""
    try:
        rv = cli.main(args=argv, prog_name="hoplab", standalone_mode=False)
    except click.ClickException as e:  # HoplabError (2), usage errors (2)
        e.show()
        return e.exit_code
    except click.exceptions.Abort as e:
        # click turns a KeyboardInterrupt inside its own parsing or the lazy
        # import of a command into Abort (click core.py, BaseCommand.main).
        if isinstance(e.__cause__, KeyboardInterrupt):
            return _interrupted()
        click.echo("Aborted!", err=True)
        return 1
    except _core.ScenarioError as e:
        click.echo(f"hoplab: error: {scenario_error_text(e)}", err=True)
        return 2
    except KeyboardInterrupt:
        return _interrupted()
    except BrokenPipeError:
        return 1
    except OSError as e:  # a file the command reads or writes: one line naming it
        click.echo(f"hoplab: error: {os_error_text(e, Path(e.filename or '?'))}", err=True)
        return 2
    except SystemExit as e:  # sys.exit in a command: its status (as Python would give it), after the ignore
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        click.echo(e.code, err=True)
        return 1
    except BaseException as e:  # a bug (also pyo3's PanicException, a BaseException): one line
        if isinstance(e, GeneratorExit):
            raise
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        internal_error_exit(e)
    return rv if isinstance(rv, int) else 0
