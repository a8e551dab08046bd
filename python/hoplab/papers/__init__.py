"""hoplab.papers: one-command reproductions of the seed papers.

Each reproduced paper is a subpackage (`seed000` ... `seed004`) holding its
experiment, its report, its figure, its reference data (`data/`) and a
`command` module declaring a `Paper` (`_framework`): its options and how it
runs. The registry below maps each experiment name to that `Paper` as
"module:attribute" with a one-line summary, so `hoplab reproduce --help`
lists the papers without importing any of them; `hoplab reproduce NAME`
imports only NAME's command (`hoplab.papers.cli`).

Adding a paper: a subpackage with its data and its test, and one line here.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

from ._framework import Outcome, Paper, ReproduceError

__all__ = ["Paper", "Outcome", "ReproduceError", "names", "summary", "load", "register", "unregister"]


class _Entry(NamedTuple):
    target: str  # "module:attribute" of the paper's `Paper`
    summary: str  # one line for `hoplab reproduce --help`


_REGISTRY: dict[str, _Entry] = {
    "seed000": _Entry("hoplab.papers.seed000.command:SEED000",
                      "Anastasi et al. §4.1/§4.3: throughput, retransmissions vs. max cwnd, 1-4 hops"),
    "seed000-routing": _Entry("hoplab.papers.seed000.command:ROUTING",
                              "Anastasi et al. §4.2: the 3-hop chain with AODV-LL, AODV-HELLO and OLSR"),
    "seed001": _Entry("hoplab.papers.seed001.command:PAPER",
                      "Nahm et al.: Table 1, Figs. 9 and 12 (static vs DSR; FeW, ADTCP, ECN)"),
    "seed002": _Entry("hoplab.papers.seed002.command:PAPER",
                      "Östergren's thesis: chains, one-to-four, overlap, random waypoint, WWW"),
    "seed003": _Entry("hoplab.papers.seed003.command:PAPER",
                      "Papanastasiou et al.: a route break with AODV-UU, DSR-UU and OOLSR"),
    "seed004": _Entry("hoplab.papers.seed004.command:PAPER",
                      "Kawadia & Kumar: 8 treatments x 9 plots, Tables 2-5 and Figure 2"),
}


def names() -> list[str]:
    """The registered experiments, in registration order."""
    return list(_REGISTRY)


def summary(name: str) -> str:
    return _REGISTRY[name].summary


def load(name: str) -> Paper:
    """The `Paper` registered as ``name`` (imports its command module)."""
    module, _, attr = _REGISTRY[name].target.partition(":")
    return getattr(importlib.import_module(module), attr)


def register(name: str, target: str, summary: str) -> None:
    """Register a paper: ``target`` is "module:attribute" of its `Paper`."""
    if ":" not in target:
        raise ValueError(f"{target!r}: expected module:attribute")
    _REGISTRY[name] = _Entry(target, summary)


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)
