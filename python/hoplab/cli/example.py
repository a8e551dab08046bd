"""`hoplab example [NAME]`: the example scenarios shipped in the package.

Without NAME it lists them; with NAME it prints the TOML, so that an
installed hoplab (no source checkout) can start from one:

    hoplab example chain > chain.toml && hoplab run chain.toml

or run one as it is: `hoplab run example:chain`.
"""

from __future__ import annotations

import tomllib

import click

from .._resources import example_names, example_ref, example_text
from .errors import HoplabError

__all__ = ["example_cmd"]


def _first_comment(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("#"):
            return line.lstrip("# ").strip()
    return ""


@click.command("example")
@click.argument("name", required=False)
def example_cmd(name: str | None) -> None:
    """List the packaged example scenarios, or print one (NAME) as TOML."""
    if name is None:
        for n in example_names():
            text = example_text(n)
            title = tomllib.loads(text).get("name", n)
            click.echo(f"{n:<18} {title}: {_first_comment(text)}")
        return
    try:  # `hoplab example example:chain` as well: the name as `run` takes it
        click.echo(example_text(example_ref(name) or name), nl=False)
    except FileNotFoundError as e:
        raise HoplabError(e.strerror) from None
