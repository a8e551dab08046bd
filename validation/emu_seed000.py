"""Seed 000's chain with real Linux TCP endpoints (issue 25, step 7; not yet
`reproduce seed000 --real`): 1-4 hops, maximum window W = 2, 3, 4 and
unclamped (TCP_WINDOW_CLAMP at the receiver, as the paper's testbed did),
real Linux Reno (NewReno with SACK) over the emulated chain, beside the
simulated chain with the Linux receiver and the clamp on the advertised
window, and the paper's testbed Table 1 (AODV). Static routing here: the
emulated relays carry no routing traffic. Needs root; ~4 minutes.

    python validation/emu_seed000.py [--seconds 6] [--runs 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import hoplab
from hoplab.papers.seed000.reference import seed000_testbed

CHAIN = """name = "seed000-real"
duration_s = {duration}
[topology]
kind = "chain"
nodes = {nodes}
spacing_m = 200.0
[mac]
data_rate_mbps = 2.0
basic_rate_mbps = 1.0
rts_threshold_bytes = 100
"""
PY = "{python} -m hoplab.emu.tcp"
UNCLAMPED = 32


def real(hops: int, w: int, seconds: float) -> float:
    clamp = f" --clamp {w}" if w != UNCLAMPED else ""
    toml = CHAIN.format(duration=seconds + 20, nodes=hops + 1) + f"""[emulation]
nodes = [0, {hops}]
realtime = true
[[emulation.commands]]
node = {hops}
run = "{PY} recv --port 5001 --timeout 3{clamp}"
[[emulation.commands]]
node = 0
run = "{PY} send 10.0.0.{hops + 1} --port 5001 --seconds {seconds} --cc reno"
start_s = 0.2
"""
    with tempfile.TemporaryDirectory() as d:
        sc = Path(d) / "sc.toml"
        sc.write_text(toml)
        r = subprocess.run([sys.executable, "-m", "hoplab", "emu", str(sc), "-o", f"{d}/run"], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(r.stderr)
        log = next((Path(d) / "run" / "commands").glob(f"node{hops}-*.log")).read_text()
        return float(json.loads(log.strip().splitlines()[-1])["goodput_kbps"])


def simulated(hops: int, w: int, seconds: float, runs: int) -> float:
    tcp = f'[tcp]\nvariant = "new_reno"\nreceiver = "linux"\nclamp = "receiver"\nmax_cwnd = {0 if w == UNCLAMPED else w}\n'
    flow = f'[[flows]]\nkind = "ftp"\nsrc = 0\ndst = {hops}\n'
    return statistics.mean(float(hoplab.run(CHAIN.format(duration=seconds, nodes=hops + 1) + tcp + flow, seed=s).flows.throughput_kbps[0])
                           for s in range(1, runs + 1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    tb = seed000_testbed()
    print("| hops | W | real Linux (kbit/s) | simulated, Linux receiver | paper testbed (AODV) |")
    print("|---|---|---|---|---|")
    for hops in (1, 2, 3, 4):
        for w in (2, 3, 4, UNCLAMPED):
            rv = statistics.mean(real(hops, w, a.seconds) for _ in range(a.runs))
            sv = simulated(hops, w, a.seconds, max(a.runs, 3))
            t = tb[(tb.table == 1) & (tb.scenario == f"{hops}-hop") & (tb.max_cwnd == w)]
            paper = f"{float(t.avg.iloc[0]):.0f}" if len(t) else "-"
            print(f"| {hops} | {'unclamped' if w == UNCLAMPED else w} | {rv:.0f} | {sv:.0f} | {paper} |", flush=True)


if __name__ == "__main__":
    main()
