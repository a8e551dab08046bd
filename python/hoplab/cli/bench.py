"""`hoplab bench`: time fixed scenarios in fresh processes (hoplab._bench).

    hoplab bench [--repeat N] [--markdown] [--memory] [--lab] [--flows] [--only NAME ...]
"""

from __future__ import annotations

import click

from .errors import HoplabError

__all__ = ["bench"]


@click.command("bench")
@click.option("--repeat", type=click.IntRange(1, 100), default=1, show_default=True,
              help="Runs per scenario; the best wall time is reported.")
@click.option("--markdown", is_flag=True, help="Print a markdown table (for docs/BENCHMARKS.md).")
@click.option("--memory", is_flag=True, help="Peak memory of a 36,000 s 1-hop run instead (target < 150 MB).")
@click.option("--lab", "lab_", is_flag=True, help="The lab's overhead per run (store + processes) against bare runs.")
@click.option("--flows", "flows", is_flag=True,
              help="Cost against the number of flows: 1,000 / 10,000 / 40,000 CBR flows on 5 and on 1,024 nodes.")
@click.option("--only", "only", multiple=True, metavar="NAME",
              help="Run only these scenarios (repeatable), e.g. --only mobile150-aodv.")
def bench(repeat: int, markdown: bool, memory: bool, lab_: bool, flows: bool, only: tuple[str, ...]) -> None:
    """Time fixed scenarios, each in a fresh process (4-hop chain, 7x7 grid,
    200 random nodes with static routing; the grid with DSR, the 200 nodes
    with AODV and with OLSR; seed 001's 150 mobile nodes and a 1,000-node
    version with AODV and DSR) and report events, wall time, events/s and
    peak memory against the targets (routing: <= 3x the static run)."""
    from .._bench import suite as b

    unknown = [n for n in only if n not in b.SCENARIOS]
    if unknown:
        raise HoplabError(f"--only: unknown scenario {unknown[0]!r} (one of {', '.join(b.SCENARIOS)})")

    if flows:
        from .._bench import flows as bf
        try:
            rows = bf.run_flows_bench(repeat=repeat, progress=lambda m: click.echo(m, err=True))
        except RuntimeError as e:
            raise HoplabError(str(e)) from None
        click.echo(bf.table(rows, markdown=markdown))
        return
    if lab_:
        from .._bench import lab as bl
        click.echo(bl.table(bl.run_lab_bench(progress=lambda m: click.echo(m, err=True)), markdown=markdown))
        return
    if memory:
        from .._bench import memory as bm
        try:
            click.echo(bm.table(bm.run_memory_bench(progress=lambda m: click.echo(m, err=True)), markdown=markdown))
        except RuntimeError as e:
            raise HoplabError(str(e)) from None
        return
    try:
        rows = b.run_bench(repeat=repeat, progress=lambda m: click.echo(m, err=True), names=only or None)
    except RuntimeError as e:
        raise HoplabError(str(e)) from None
    click.echo(b.table(rows, markdown=markdown))
