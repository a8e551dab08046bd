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
                  clamp: int = 0, realtime: bool = True) -> dict[str, Any]:
    """Run ``scenario_toml`` (no `[emulation]` table of its own) with nodes
    ``src`` and ``dst`` real: ``{"recv": ..., "send": ..., "emu": ...}``, the
    receiver's and sender's last report lines and the emulator's `emu` row."""
    # Without `sack`, the namespace keeps the kernel's default (net.ipv4.tcp_sack = 1).
    opt = f" --sack {sack}" if sack else ""
    extra = opt + (f" --clamp {clamp}" if clamp else "")
    toml = scenario_toml + f"""
[emulation]
nodes = [{src}, {dst}]
realtime = {str(realtime).lower()}
[[emulation.commands]]
node = {dst}
run = "{_PY} recv --port 5001 --timeout 3{extra}"
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
        out: dict[str, Any] = {"emu": json.loads((Path(d) / "run" / "emu.json").read_text())["emu"]}
        for end, node in (("recv", dst), ("send", src)):
            log = next((Path(d) / "run" / "commands").glob(f"node{node}-*.log")).read_text().strip()
            if not log:
                raise TransferError(f"node {node} ({end}) reported nothing")
            out[end] = json.loads(log.splitlines()[-1])
    return out
