#!/usr/bin/env python3
"""hoplab's side of the 5x5 proactive-routing check (docs/VALIDATION.md §3.2): a
5x5 grid, 200 m apart, three crossing FTP flows (0 -> 24, 4 -> 20, 10 -> 14)
and a 64 kbit/s CBR flow of 512-B packets (2 -> 22), all from 0 s, 60 s; the
ns-3 counterpart is validation/ns3/grid5.cc.

    .venv/bin/python validation/grid5.py [--seeds 1,2,3] [--routing static,aodv,dsr,olsr,dsdv]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

import hoplab  # noqa: E402
from hoplab import scenario as S  # noqa: E402

FLOWS = [S.ftp(0, 24), S.ftp(4, 20), S.ftp(10, 14), S.cbr(2, 22, 64.0, packet_size=512)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--routing", default="static,aodv,dsr,olsr,dsdv")
    ap.add_argument("--duration", type=float, default=60.0)
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    print("| routing | 0->24 | 4->20 | 10->14 | CBR 2->22 | per seed (0->24 / 4->20 / 10->14 / CBR) |")
    print("|---|---:|---:|---:|---:|---|")
    for routing in a.routing.split(","):
        per_seed = []
        for seed in seeds:
            sc = S.grid(5, 5, duration=a.duration, seed=seed, flows=FLOWS, timeseries=False,
                        routing=None if routing == "static" else {"protocol": routing})
            per_seed.append([float(x) for x in hoplab.run(sc, seed=seed).flows.throughput_kbps])
        means = [sum(col) / len(col) for col in zip(*per_seed)]
        detail = "; ".join(" / ".join(f"{x:.1f}" for x in s) for s in per_seed)
        print(f"| {routing} | " + " | ".join(f"{m:.1f}" for m in means) + f" | {detail} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
