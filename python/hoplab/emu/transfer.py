"""One bulk TCP transfer between two real nodes of an emulated scenario:
`hoplab emu` with the bundled traffic tool (`hoplab.emu.tcp`) as receiver at
`dst` and sender at `src`; what both ends and the emulator reported. Used by
`reproduce seed000 --real` and validation/emu_chain.py. Needs root.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .config import node_addr

__all__ = ["TransferError", "bulk_transfer"]

_PY = "{python} -m hoplab.emu.tcp"


class TransferError(RuntimeError):
    """`hoplab emu` failed, or an end reported nothing (the message is one line)."""


def bulk_transfer(scenario_toml: str, src: int, dst: int, seconds: float, *, cc: str = "reno", sack: str | None = None,
                  clamp: int = 0, realtime: bool = True, recv_timeout: float = 10.0) -> dict[str, Any]:
    """Run ``scenario_toml`` (no `[emulation]` table of its own) with nodes
    ``src`` and ``dst`` real: ``{"recv": ..., "send": ..., "emu": ..., "fifo":
    ..., "drops": ..., "route_events": ...}``, the receiver's and sender's
    last report lines, the emulator's `emu` row, why SCHED_FIFO was refused
    (None: granted or not asked), what the simulated network did: drops per
    "layer/reason/packet_type" and routing events per "event/cause"
    (docs/RESULTS.md); and "segments": (TCP segments with data that `src`
    sent, pure ACKs that `dst` sent), from the ingress log.
    The receiver gives up after ``recv_timeout`` s without data."""
    # Without `sack`, the namespace keeps the kernel's default (net.ipv4.tcp_sack = 1).
    opt = f" --sack {sack}" if sack else ""
    extra = opt + (f" --clamp {clamp}" if clamp else "")
    toml = scenario_toml + f"""
[emulation]
nodes = [{src}, {dst}]
realtime = {str(realtime).lower()}
[[emulation.commands]]
node = {dst}
run = "{_PY} recv --port 5001 --timeout {recv_timeout:g}{extra}"
[[emulation.commands]]
node = {src}
run = "{_PY} send {node_addr(dst)} --port 5001 --seconds {seconds} --cc {cc}{opt}"
start_s = 0.2
"""
    with tempfile.TemporaryDirectory() as d:
        sc = Path(d) / "sc.toml"
        sc.write_text(toml)
        r = subprocess.run([sys.executable, "-m", "hoplab", "emu", str(sc), "-o", f"{d}/run"], capture_output=True, text=True)
        if r.returncode != 0:
            lines = r.stderr.strip().splitlines()
            raise TransferError(lines[-1] if lines else f"hoplab emu exit {r.returncode}")
        run = Path(d) / "run"
        meta = json.loads((run / "emu.json").read_text())
        out: dict[str, Any] = {"emu": meta["emu"], "fifo": meta["fifo"],
                               "drops": _counts(run / "drops.csv", ("layer", "reason", "packet_type"), "count"),
                               "route_events": _counts(run / "route_events.csv", ("event", "cause"), None),
                               "segments": _segments(run / "ingress.log", src, dst)}
        for end, node in (("recv", dst), ("send", src)):
            log = next((run / "commands").glob(f"node{node}-*.log")).read_text().strip()
            if not log:
                raise TransferError(f"node {node} ({end}) reported nothing")
            out[end] = json.loads(log.splitlines()[-1])
    return out


def _counts(path: Path, keys: tuple[str, ...], count: str | None) -> dict[str, int]:
    """Rows of a result table summed by `keys` ("a/b"): its `count` column, or
    one per row; {} when the run wrote no such table (no rows)."""
    import csv

    out: dict[str, int] = {}
    if path.exists():
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                k = "/".join(row[c] for c in keys)
                out[k] = out.get(k, 0) + (int(row[count]) if count else 1)
    return out


def _segments(log: Path, src: int, dst: int) -> tuple[int, int]:
    """(TCP segments with payload from `src`, pure ACKs from `dst`) in an
    ingress log (read, its checksums checked, by the engine: crates/hoplab-emu log.rs)."""
    from .. import _core

    data = acks = 0
    for node, _, b in _core.ingress_log(str(log)):
        if len(b) < 40 or b[0] >> 4 != 4 or b[9] != 6:  # IPv4 carrying TCP (RFC 791, 793)
            continue
        ihl = (b[0] & 0x0F) * 4
        payload = int.from_bytes(b[2:4], "big") - ihl - (b[ihl + 12] >> 4) * 4
        if node == src and payload > 0:
            data += 1
        elif node == dst and payload == 0 and not b[ihl + 13] & 0x03:  # no SYN, no FIN
            acks += 1
    return data, acks
