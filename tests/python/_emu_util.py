"""Shared by the emulator's tests (test_emu*.py, test_fuzz_emu.py) and
scripts/emu_signals.py: what a live run needs, a run directory made without
one, and what a run may leave behind.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import tomllib
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
PY = "{python} -m hoplab.emu.tcp"


def missing() -> str | None:
    """What this machine lacks for a live run, or None."""
    status = Path("/proc/self/status").read_text()
    cap = int(next(line.split()[1] for line in status.splitlines() if line.startswith("CapEff:")), 16)
    if not cap & (1 << 12):
        return "needs root or CAP_NET_ADMIN"
    if not Path("/dev/net/tun").exists():
        return "needs /dev/net/tun"
    if subprocess.run(["which", "nsenter"], capture_output=True).returncode != 0:
        return "needs nsenter (util-linux)"
    return None


def udp_pair(count: int, timeout_s: float, start_s: float | None = None) -> str:
    """Commands for nodes 0 and 1: node 0 sends ``count`` UDP datagrams 10 ms
    apart to node 1, which waits up to ``timeout_s`` for them."""
    start = "" if start_s is None else f"start_s = {start_s}\n"
    return (f'[[emulation.commands]]\nnode = 1\nrun = "{PY} udp-recv --port 6001 --count {count} --timeout {timeout_s:g}"\n'
            f'[[emulation.commands]]\nnode = 0\nrun = "{PY} udp-send 10.0.0.2 --port 6001 --count {count} --interval-ms 10"\n'
            f"{start}")


def chain_toml(hops: int, duration: float, emulation: str) -> str:
    return (f'name = "emu-{hops}hop"\nduration_s = {duration}\n[topology]\nkind = "chain"\nnodes = {hops + 1}\n'
            f'spacing_m = 200.0\n[mac]\ndata_rate_mbps = 2.0\nbasic_rate_mbps = 1.0\nrts_threshold_bytes = 100\n'
            f"{emulation}")


def hoplab(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hoplab", *args], capture_output=True, text=True, env=ENV, timeout=timeout)


# -- a run directory without a live run (no privileges needed) ----------------------

def _ipv4_udp(src: int, dst: int, payload: bytes) -> bytes:
    """An IPv4/UDP packet from node `src` to node `dst` (10.0.0.0/16 + node + 1), header checksum set (RFC 791)."""
    total = 20 + 8 + len(payload)
    head = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 1, 0, 64, 17, 0, bytes([10, 0, 0, src + 1]), bytes([10, 0, 0, dst + 1]))
    s = sum(struct.unpack("!10H", head))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    head = head[:10] + struct.pack("!H", ~s & 0xFFFF) + head[12:]
    return head + struct.pack("!HHHH", 6001, 6001, 8 + len(payload), 0) + payload


def ingress_log(records: list[tuple[int, int, bytes]]) -> bytes:
    """An ingress log of format 2 (crates/hoplab-emu log.rs), built here from its description."""
    out = bytearray(b"HOPLABIN" + struct.pack("<I", 2))
    for node, t, b in records:
        rec = struct.pack("<IQI", node, t, len(b)) + b
        out += rec + struct.pack("<I", zlib.crc32(rec))
    end = struct.pack("<IQ", 0xFFFFFFFF, len(records))
    return bytes(out + end + struct.pack("<I", zlib.crc32(end)))


SYNTHETIC_TOML = chain_toml(1, 2.0, "[emulation]\nnodes = [0, 1]\n")


def synthetic_run(d: Path) -> Path:
    """A run directory as `hoplab emu` leaves it (emu.json, ingress.log),
    made without a live run: three UDP packets, its event hash that of
    their replay."""
    from hoplab.emu.session import replay

    d.mkdir(parents=True, exist_ok=True)
    recs = [(0, 10_000_000, _ipv4_udp(0, 1, b"a" * 100)), (1, 20_000_000, _ipv4_udp(1, 0, b"b" * 50)),
            (0, 30_000_000, _ipv4_udp(0, 1, b"c" * 200))]
    (d / "ingress.log").write_bytes(ingress_log(recs))
    meta = {"seed": 1, "nodes": [0, 1], "horizon_ns": 1_000_000_000, "t0_ns": 0, "event_hash": "0" * 16,
            "scenario_json": json.dumps(tomllib.loads(SYNTHETIC_TOML))}
    (d / "emu.json").write_text(json.dumps(meta, indent=2) + "\n")
    got, _, _ = replay(d)
    meta["event_hash"] = got
    (d / "emu.json").write_text(json.dumps(meta, indent=2) + "\n")
    return d


def one_line_error(r: subprocess.CompletedProcess[str] | object, *names: str) -> str:
    """The `hoplab: error:` line of an exit-2 result (subprocess or CliRunner), which names `names`."""
    code = getattr(r, "returncode", getattr(r, "exit_code", None))
    err = r.stderr
    assert code == 2, (code, getattr(r, "stdout", ""), err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoplab: error: "), err
    for n in names:
        assert n in lines[0], (n, lines[0])
    return lines[0]


# -- what a run may leave ---------------------------------------------------------

def ns_holders(keys: set[tuple[int, int]]) -> list[int]:
    """Processes in, or holding an fd of, a network namespace of `keys` ((device, inode))."""
    found = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            links = [p / "ns" / "net", *(p / "fd").iterdir()]
        except OSError:
            continue
        for link in links:
            try:
                st = os.stat(link)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in keys:
                found.append(int(p.name))
                break
    return found


def carrying(rid_prefix: str) -> list[int]:
    """Processes whose HOPLAB_EMU_RUN starts with `rid_prefix` (a run's commands and what they started)."""
    want = f"HOPLAB_EMU_RUN={rid_prefix}".encode()
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                env = (p / "environ").read_bytes()
            except OSError:
                continue
            if any(item.startswith(want) for item in env.split(b"\0")):
                found.append(int(p.name))
    return found


def hoplab_links() -> list[str]:
    """hoplab's TUN devices in the root namespace and in every named one."""
    out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout.splitlines()
    for name in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split("\n"):
        if name.strip():
            out += subprocess.run(["ip", "-n", name.split()[0], "-o", "link"], capture_output=True, text=True).stdout.splitlines()
    return [line for line in out if ": hoplab" in line]
