#!/usr/bin/env python3
"""ns-2.35's own wireless scripts, run unmodified by hoplab and by ns-2, and
measured alike (docs/VALIDATION.md, "ns-2's own scripts").

    ./hoplab --help >/dev/null     # once: builds .venv and the extension
    .venv/bin/python validation/ns2_scripts.py [--seeds 1-5] [--only aodv,dsdv,dsr,simple,csci694,pktdemo,shadowing]
        [--out validation/ns2_scripts.md]

Needs Debian's `ns2` and `ns2-examples` (apt-get install ns2 ns2-examples). The
scripts are copied from the package (tcl/ex, tcl/test, tcl/mobility/scene
gunzipped, as the suite's own test-all scripts do) into a temporary directory.

For each script, both simulators write the script's own ns-2 trace, and one
reader (hoplab.formats.ns2.trace_metrics, the classic awk figures) measures
both: per CBR connection sent / received / delivery ratio, routing packets
sent and forwarded, mean end-to-end delay, drops by reason.

- The three regression tests (test-suite-wireless-lan-aodv.tcl aodv,
  test-suite-wireless-lan-newnode.tcl dsdv / dsr) are also compared with
  ns-2's reference output (test-output-wireless-lan/*.gz, which ns-2.35
  reproduces bit for bit).
- Seeds: ns-2 runs the suite with `$defaultRNG seed N` set by a two-line
  wrapper that then sources the suite (the suite itself never seeds), for
  the seed-to-seed range; hoplab runs the same wrapper.
- The DSDV and DSR tests turn router traces off (`-routerTrace OFF`), so their
  traces hold no routing packets: those are counted on a copy of the suite
  with `-routerTrace ON`, run the same way on both sides (the ns-2 reference
  has none to compare).
- Routing packets are compared as sent + forwarded: hoplab's trace writes a
  relayed AODV reply as sent (its AODV re-originates the reply at each hop),
  where ns-2 forwards the one packet.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import math
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from hoplab.formats.ns2.trace_metrics import summarize  # noqa: E402

EXAMPLES = Path("/usr/share/doc/ns2/examples/tcl")
# name -> (directory, script, argv, trace file the script writes, reference output)
SCRIPTS = {
    "aodv": ("test", "test-suite-wireless-lan-aodv.tcl", ["aodv"], "temp.rands", "test-output-wireless-lan/aodv.gz"),
    "dsdv": ("test", "test-suite-wireless-lan-newnode.tcl", ["dsdv"], "temp.rands", "test-output-wireless-lan/dsdv.gz"),
    "dsr": ("test", "test-suite-wireless-lan-newnode.tcl", ["dsr"], "temp.rands", "test-output-wireless-lan/dsr.gz"),
    "simple": ("ex", "simple-wireless.tcl", [], "simple.tr", None),
    "csci694": ("ex", "wireless-demo-csci694.tcl", [], "694demo.tr", None),
    "pktdemo": ("ex", "wireless-pkt-demo.tcl", [], "pktdemo.tr", None),
    "shadowing": ("ex", "wireless-shadowing-test.tcl", [], "shadowing.tr", None),
}


def tree(tmp: Path) -> Path:
    for sub in ("ex", "test", "mobility"):
        shutil.copytree(EXAMPLES / sub, tmp / sub)
    for gz in (tmp / "mobility" / "scene").glob("*.gz"):
        gz.with_suffix("").write_bytes(gzip.decompress(gz.read_bytes()))
    return tmp


def wrapper(d: Path, script: str, argv: list[str], seed: int) -> Path:
    w = d / f"seed{seed}-{script}"
    w.write_text(f"$defaultRNG seed {seed}\nset argv [list {' '.join(argv)}]\nset argc {len(argv)}\n"
                 f"source {script}\n")
    return w


def with_router_trace(work: Path, script: str) -> str:
    """A copy of the suite that traces the routing layer too."""
    name = script.replace(".tcl", "-rtr.tcl")
    text = (work / script).read_text().replace("-routerTrace OFF", "-routerTrace ON")
    (work / name).write_text(text)
    return name


def run_one(sim: str, work: Path, script: str, argv: list[str], trace: str, seed: int) -> Path:
    w = wrapper(work, script, argv, seed)
    cmd = (["ns", w.name] if sim == "ns2" else
           [sys.executable, "-m", "hoplab", "run", w.name, "--out", f"out-{seed}"])
    p = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=7200)
    if p.returncode != 0:
        raise SystemExit(f"{sim} {script} seed {seed}: exit {p.returncode}: {p.stderr[-500:]}")
    dst = work / f"{sim}-{seed}-{trace}"
    shutil.move(str(work / trace), dst)
    return dst


def figures(path: Path, writer: str) -> dict[str, Any]:
    s = summarize(path, writer=writer)
    cbr = [c for c in s.connections if c.kind == "cbr"]
    tcp = [c for c in s.connections if c.kind == "tcp"]
    out: dict[str, Any] = {
        "sent": sum(c.packets_sent_unique for c in cbr), "received": sum(c.packets_received for c in cbr),
        "delay_ms": 1e3 * statistics.fmean([c.delay_mean for c in cbr if math.isfinite(c.delay_mean)] or [math.nan]),
        "routing_sent": s.totals.routing_sent, "routing_fwd": s.totals.routing_forwarded,
        "routing": s.totals.routing_sent + s.totals.routing_forwarded,
        "per_conn": {(c.src, c.dst): c.delivery_ratio for c in cbr},
        "tcp_kbps": {(c.src, c.dst): c.throughput_bps / 1e3 for c in tcp},
        "drops": {f"{lv} {r}": n for (lv, r), n in sorted(s.drops.items())},
        "mac_sent": s.mac.frames_sent, "mac_received": s.mac.frames_received,
        "mac_data": s.mac.sent_by_type.get("cbr", 0) + s.mac.sent_by_type.get("tcp", 0),
    }
    out["delivery"] = out["received"] / out["sent"] if out["sent"] else math.nan
    # the mean delay over every delivered packet
    out["delay_ms"] = s.totals.delay_mean * 1e3
    return out


def rng(vals: list[float]) -> str:
    v = [x for x in vals if math.isfinite(x)]
    if not v:
        return "-"
    return f"{statistics.fmean(v):.4g} [{min(v):.4g}, {max(v):.4g}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--only", default=",".join(SCRIPTS))  # e.g. aodv,dsdv,dsr,simple,csci694,pktdemo,shadowing
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    lo, _, hi = a.seeds.partition("-")
    seeds = list(range(int(lo), int(hi or lo) + 1))
    lines = [f"<!-- validation/ns2_scripts.py --seeds {a.seeds}, {datetime.date.today()}, "
             f"{platform.node()} ({platform.machine()}, {platform.python_version()}) -->", ""]
    with tempfile.TemporaryDirectory(prefix="hoplab-ns2-scripts-") as tmp:
        root = tree(Path(tmp))
        for name in a.only.split(","):
            sub, script, argv, trace, ref = SCRIPTS[name]
            work = root / sub
            sides: dict[str, list[dict[str, Any]]] = {"ns2": [], "hoplab": []}
            rtr_off = "-routerTrace OFF" in (work / script).read_text()
            rtr_script = with_router_trace(work, script) if rtr_off else None
            for seed in seeds:
                for sim in ("ns2", "hoplab"):
                    t = run_one(sim, work, script, argv, trace, seed)
                    fig = figures(t, "ns2" if sim == "ns2" else "hoplab")
                    if rtr_script is not None:
                        t2 = run_one(sim, work, rtr_script, argv, trace, seed)
                        fig["routing"] = figures(t2, "ns2" if sim == "ns2" else "hoplab")["routing"]
                    sides[sim].append(fig)
                    print(f"{name} seed {seed} {sim}: delivery {fig['delivery']:.4f}", file=sys.stderr)
            refd = figures(EXAMPLES / "test" / ref, "ns2") if ref else None
            lines += table(name, script, argv, seeds, sides, refd)
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        a.out.write_text(text)


def table(name: str, script: str, argv: list[str], seeds: list[int], sides: dict[str, list[dict[str, Any]]],
          ref: dict[str, Any] | None) -> list[str]:
    n = len(seeds)
    out = [f"#### `{script}{' ' + ' '.join(argv) if argv else ''}` (seeds {seeds[0]}-{seeds[-1]}, n = {n} runs a side; "
           "mean [min, max])", "",
           "| figure | ns-2.35 reference | ns-2.35 | hoplab |", "|---|---|---|---|"]

    def row(label: str, key: str, fmt: str = "{:.4g}") -> None:
        r = fmt.format(ref[key]) if ref is not None and key in ref and isinstance(ref[key], (int, float)) else "-"
        out.append(f"| {label} | {r} | {rng([s[key] for s in sides['ns2']])} | {rng([s[key] for s in sides['hoplab']])} |")

    row("CBR packets sent", "sent", "{:.0f}")
    row("CBR packets received", "received", "{:.0f}")
    row("delivery ratio", "delivery")
    row("mean delay (ms)", "delay_ms")
    if any(s["mac_sent"] for s in sides["ns2"]):  # the script traces the MAC
        row("MAC frames sent", "mac_sent", "{:.0f}")
        row("MAC frames received", "mac_received", "{:.0f}")
        row("MAC DATA frames of CBR and TCP sent", "mac_data", "{:.0f}")
    row("routing packets, sent + forwarded" + (" (-routerTrace ON copy)" if ref is not None and not ref["routing"]
                                                and any(s["routing"] for s in sides["ns2"]) else ""), "routing", "{:.0f}")
    keys = sorted({k for s in sides["ns2"] + sides["hoplab"] for k in s["drops"]})
    for k in keys:
        r = str(ref["drops"].get(k, 0)) if ref is not None else "-"
        out.append(f"| drops {k} | {r} | {rng([s['drops'].get(k, 0) for s in sides['ns2']])} | "
                   f"{rng([s['drops'].get(k, 0) for s in sides['hoplab']])} |")
    conns = sorted({c for s in sides["ns2"] + sides["hoplab"] for c in s["per_conn"]})
    if conns:
        diffs = []
        for c in conns:
            h = statistics.fmean([s["per_conn"].get(c, math.nan) for s in sides["hoplab"]])
            runs = [s["per_conn"].get(c, math.nan) for s in sides["ns2"]]
            base = ref["per_conn"].get(c, math.nan) if ref else statistics.fmean(runs)
            diffs.append((abs(h - base), c, h, base, min(runs), max(runs)))
        finite = [d for d in diffs if math.isfinite(d[0])]
        mean_gap = statistics.fmean([d[0] for d in finite]) if finite else math.nan
        worst = max(finite) if finite else None
        inside = sum(1 for d in finite if d[4] - 1e-12 <= d[2] <= d[5] + 1e-12)
        out += ["", f"Per connection ({len(conns)}): mean |hoplab − {'reference' if ref else 'ns-2'}| delivery "
                f"ratio {100 * mean_gap:.2f} points; hoplab's mean within ns-2's own range over the seeds for "
                f"{inside} of {len(finite)}" + (f"; worst {worst[1][0]}→{worst[1][1]}: hoplab {100 * worst[2]:.1f} % "
                f"against {100 * worst[3]:.1f} % (ns-2 over the seeds {100 * worst[4]:.1f}–{100 * worst[5]:.1f} %)"
                if worst else "") + "."]
    tcp = sorted({c for s in sides["ns2"] + sides["hoplab"] for c in s["tcp_kbps"]})
    for c in tcp:
        out.append(f"TCP {c[0]}→{c[1]}: ns-2 {rng([s['tcp_kbps'].get(c, 0.0) for s in sides['ns2']])} kbit/s, "
                   f"hoplab {rng([s['tcp_kbps'].get(c, 0.0) for s in sides['hoplab']])} kbit/s.")
    return out + [""]


if __name__ == "__main__":
    main()
