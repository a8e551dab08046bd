"""Seed 000's chain with real Linux TCP endpoints: the table of
`hoplab reproduce seed000 --real` (python/hoplab/papers/seed000/real.py) in
markdown, for docs/VALIDATION.md. Needs root; ~4 minutes at 6 s per run.

    python validation/emu_seed000.py [--seconds 6] [--runs 1]
"""

from __future__ import annotations

import argparse
import sys

from hoplab.papers.seed000.real import UNCLAMPED, run_real


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    df = run_real(replicas=a.runs, seconds=a.seconds, progress=lambda m: print(m, file=sys.stderr))
    print("| hops | W | real Linux (kbit/s) | simulated, Linux receiver | paper testbed (AODV) |")
    print("|---|---|---|---|---|")
    for r in df.itertuples():
        w = "unclamped" if r.max_cwnd == UNCLAMPED else r.max_cwnd
        print(f"| {r.hops} | {w} | {r.real_kbps:.0f} | {r.simulated_linux_kbps:.0f} | {r.testbed_kbps:.0f} |")


if __name__ == "__main__":
    main()
