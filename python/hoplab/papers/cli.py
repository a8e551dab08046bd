"""`hoplab reproduce PAPER [OPTIONS]`: a click group whose subcommands come
from the registry (`hoplab.papers`), each with only its own options.

The list in `hoplab reproduce --help` is the registry's summaries, so it
imports no paper; `hoplab reproduce NAME ...` imports NAME's command only.
"""

from __future__ import annotations

import click

from . import _framework, load, names, summary

__all__ = ["reproduce"]


class _PaperGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return names()

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in names():
            return None
        return _framework.command(load(name))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Papers"):
            formatter.write_dl([(n, summary(n)) for n in names()])


@click.group("reproduce", cls=_PaperGroup, subcommand_metavar="PAPER [OPTIONS]...")
def reproduce() -> None:
    """Reproduce a seed paper's experiment: `hoplab reproduce PAPER [OPTIONS]`
    (`hoplab reproduce PAPER --help` for its options).

    Every reproduction runs as a lab design through a result store: with
    --out DIR the runs are kept in DIR/store (a later call resumes from it)
    and DIR/runs.csv holds this reproduction's rows.
    """
