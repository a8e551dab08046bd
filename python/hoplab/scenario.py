"""Helpers that build scenario dicts (the same structure as the TOML files;
see examples/*.toml and crates/hoplab-sim/src/scenario/ for every field),
and `load_scenario` to read a TOML file into such a dict.

    >>> import hoplab
    >>> sc = hoplab.scenario.chain(3, duration=20.0)
    >>> hoplab.run(sc, seed=1).flows
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any, Iterable

from ._resources import example_ref, example_text
from ._safe_read import read_text_bounded

__all__ = [
    "load_scenario",
    "chain",
    "grid",
    "explicit",
    "ftp",
    "cbr",
    "DEFAULT_MAC",
    "DEFAULT_TCP",
]

# The helpers' [mac] and [tcp] when none is given: seed 000's settings (its
# §3; hoplab.papers.seed000 keeps its own copy, MAC and TCP): 802.11b limited
# to 2 Mbit/s, 1 Mbit/s basic rate, RTS/CTS for frames over 100 bytes;
# TCP NewReno with 1460-byte segments.
DEFAULT_MAC: dict[str, Any] = {"data_rate_mbps": 2.0, "basic_rate_mbps": 1.0, "rts_threshold_bytes": 100}
DEFAULT_TCP: dict[str, Any] = {"variant": "new_reno", "mss_bytes": 1460}


def load_scenario(path: str | Path) -> dict[str, Any]:
    """Read a TOML scenario file, or "example:NAME" (a packaged example), into
    a dict (stdlib tomllib; not validated — `hoplab.run` validates)."""
    example = example_ref(path)
    return tomllib.loads(example_text(example) if example is not None else read_text_bounded(Path(path)))


def ftp(src: int, dst: int, *, start: float = 0.0, stop: float | None = None,
        bytes: int | None = None, **tcp: Any) -> dict[str, Any]:
    """An FTP (bulk TCP) flow; keyword arguments override the scenario's [tcp]."""
    f: dict[str, Any] = {"kind": "ftp", "src": src, "dst": dst, "start_s": start}
    if stop is not None:
        f["stop_s"] = stop
    if bytes is not None:
        f["bytes"] = bytes
    if tcp:
        f["tcp"] = dict(tcp)
    return f


def cbr(src: int, dst: int, rate_kbps: float, *, packet_size: int = 512, start: float = 0.0,
        stop: float | None = None) -> dict[str, Any]:
    """A constant-bit-rate UDP flow."""
    f: dict[str, Any] = {"kind": "cbr", "src": src, "dst": dst, "start_s": start,
                         "rate_kbps": rate_kbps, "packet_size_bytes": packet_size}
    if stop is not None:
        f["stop_s"] = stop
    return f


def _base(name: str, duration: float, seed: int, topology: dict[str, Any], flows: Iterable[dict[str, Any]] | None,
          mac: dict[str, Any] | None, tcp: dict[str, Any] | None, radio: dict[str, Any] | None,
          routing: dict[str, Any] | None, timeseries: bool) -> dict[str, Any]:
    sc: dict[str, Any] = {"name": name, "duration_s": float(duration), "seed": int(seed), "topology": topology}
    if radio:
        sc["radio"] = dict(radio)
    sc["mac"] = copy.deepcopy(DEFAULT_MAC if mac is None else mac)
    sc["tcp"] = copy.deepcopy(DEFAULT_TCP if tcp is None else tcp)
    if routing:
        sc["routing"] = dict(routing)
    sc["flows"] = [dict(f) for f in (flows or [])]
    sc["output"] = {"timeseries": bool(timeseries)}
    return sc


def chain(hops: int, spacing: float = 200.0, *, duration: float = 120.0, seed: int = 1,
          flows: Iterable[dict[str, Any]] | None = None, mac: dict[str, Any] | None = None,
          tcp: dict[str, Any] | None = None, radio: dict[str, Any] | None = None,
          routing: dict[str, Any] | None = None, timeseries: bool = True,
          name: str | None = None) -> dict[str, Any]:
    """A chain of ``hops + 1`` nodes ``spacing`` metres apart.

    Defaults follow seed 000: the MAC and TCP settings above, the default
    two-ray-ground radio (250 m transmission, 550 m carrier sense), and one
    FTP flow from node 0 to node ``hops`` starting at 0 s (pass ``flows`` to
    change it; ``flows=[]`` for none).
    """
    if hops < 1:
        raise ValueError("a chain needs at least 1 hop")
    if flows is None:
        flows = [ftp(0, hops)]
    return _base(name or f"chain-{hops}hop", duration, seed,
                 {"kind": "chain", "nodes": hops + 1, "spacing_m": float(spacing)},
                 flows, mac, tcp, radio, routing, timeseries)


def grid(rows: int, cols: int, spacing: float = 200.0, *, duration: float = 120.0, seed: int = 1,
         flows: Iterable[dict[str, Any]] | None = None, mac: dict[str, Any] | None = None,
         tcp: dict[str, Any] | None = None, radio: dict[str, Any] | None = None,
         routing: dict[str, Any] | None = None, timeseries: bool = True,
         name: str | None = None) -> dict[str, Any]:
    """A ``rows`` x ``cols`` grid (row-major node ids). Without ``flows``: two
    crossing FTP flows, middle row left->right and middle column top->bottom."""
    if flows is None:
        mr, mc = rows // 2, cols // 2
        flows = [ftp(mr * cols, mr * cols + cols - 1), ftp(mc, (rows - 1) * cols + mc)]
    return _base(name or f"grid-{rows}x{cols}", duration, seed,
                 {"kind": "grid", "rows": rows, "cols": cols, "spacing_m": float(spacing)},
                 flows, mac, tcp, radio, routing, timeseries)


def explicit(positions: Iterable[tuple[float, float]], *, duration: float = 120.0, seed: int = 1,
             flows: Iterable[dict[str, Any]] | None = None, mac: dict[str, Any] | None = None,
             tcp: dict[str, Any] | None = None, radio: dict[str, Any] | None = None,
             routing: dict[str, Any] | None = None, timeseries: bool = True,
             name: str = "explicit") -> dict[str, Any]:
    """Nodes at the given ``(x, y)`` positions in metres."""
    pos = [[float(x), float(y)] for x, y in positions]
    return _base(name, duration, seed, {"kind": "explicit", "positions": pos},
                 flows, mac, tcp, radio, routing, timeseries)
