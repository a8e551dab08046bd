"""The `hoplab` command line.

    hoplab run SCENARIO.toml [--seed N] [--set key=value ...] [--out DIR] [--format csv|parquet] [--no-save]
    hoplab validate SCENARIO [--set key=value ...]
    hoplab config [--markdown] | --resolved SCENARIO
    hoplab example [NAME]
    hoplab timeline SCENARIO.toml [--protocol P] [--preset X] [--set key=value ...] [--seed N]
    hoplab reproduce seed000|seed000-routing|seed001|seed002|seed003|seed004 [options]
    hoplab design expand DESIGN | hoplab lab run|status|export ...
    hoplab plot sweep|timeseries|nodes|model ...
    hoplab movement import|export ...
    hoplab bench [--repeat N] [--markdown] [--memory]

Each command lives in its own module of this package, listed in
`_commands.COMMANDS` and imported only when it runs, so `hoplab --help` and
`--version` import none of them. Errors in the user's input (an invalid
scenario, a missing or unreadable file, a TOML syntax error) print
`hoplab: error: ...` to stderr and exit with status 2, without a Python
traceback (hoplab.cli.errors).

This module is the console entry point and so is kept tiny (no import but
`os`, which the interpreter has already loaded): `main` takes over Ctrl-C
before anything heavy is imported. From then until the command starts, a
Ctrl-C prints `hoplab: interrupted` and exits 130 at once (nothing has been
written yet); during the command, KeyboardInterrupt is reported the same way
by `_app.main`; after it, Ctrl-C is ignored. The click group lives in `_app`.
"""

from __future__ import annotations

import os

# Not `from typing import TYPE_CHECKING`: typing takes ~8 ms to import, time
# in which a Ctrl-C would still print a traceback. Type checkers treat any
# name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

    from ._app import cli as cli

__all__ = ["cli", "main"]

# The line and status of errors.Interrupted, spelled out here so that this
# module imports nothing (errors imports click).
_INTERRUPTED_LINE = b"hoplab: interrupted\n"
_EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def _exit_interrupted(*_: Any) -> NoReturn:
    """SIGINT during start-up: one line and exit 130, whatever is being
    imported (os._exit: no traceback, no atexit output; nothing to flush)."""
    try:
        os.write(2, _INTERRUPTED_LINE)
    finally:
        os._exit(_EXIT_INTERRUPTED)


def main(argv: list[str] | None = None) -> NoReturn:
    """Console entry point: click in non-standalone mode, with our own exit codes."""
    take_over = False
    try:
        import signal  # imports enum: a few ms, inside this try

        # SIGINT ignored (a background job started without job control) stays ignored.
        take_over = signal.getsignal(signal.SIGINT) is signal.default_int_handler
        if take_over:
            signal.signal(signal.SIGINT, _exit_interrupted)
        from . import _app  # click, the extension, the command table
    except KeyboardInterrupt:  # before the handler above was in place
        _exit_interrupted()
    _app.main(argv, restore_sigint=take_over)


def __getattr__(name: str) -> Any:
    # `from hoplab.cli import cli` (tests, click's CliRunner): the group, imported on first use.
    if name == "cli":
        from ._app import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
