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
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import NoReturn

import click

from .. import _core, _deprecation
from ._group import LazyGroup, version_text
from .errors import internal_error_exit, os_error_text, scenario_error_text

__all__ = ["cli", "main"]


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version_text(), prog_name="hoplab", message="%(prog)s %(version)s")
def cli() -> None:
    """hoplab: TCP over multihop IEEE 802.11 ad hoc networks, simulated."""


# Old scenario keys warn as one `hoplab: warning: ...` line each, in every command.
_deprecation.print_as_cli_warnings()


def main(argv: list[str] | None = None) -> NoReturn:
    """Console entry point: click in non-standalone mode, with our own exit codes."""
    try:
        rv = cli.main(args=argv, prog_name="hoplab", standalone_mode=False)
    except click.ClickException as e:  # HoplabError (2), usage errors (2)
        e.show()
        sys.exit(e.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(1)
    except _core.ScenarioError as e:
        click.echo(f"hoplab: error: {scenario_error_text(e)}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("hoplab: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
    except OSError as e:  # a file the command reads or writes: one line naming it
        click.echo(f"hoplab: error: {os_error_text(e, Path(e.filename or '?'))}", err=True)
        sys.exit(2)
    except BaseException as e:  # a bug (also pyo3's PanicException, a BaseException): one line
        if isinstance(e, (SystemExit, GeneratorExit)):
            raise
        internal_error_exit(e)
    # The command has finished: a Ctrl-C from here on would only interrupt
    # the interpreter's teardown (exit -2 with no message), so ignore it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(rv if isinstance(rv, int) else 0)

