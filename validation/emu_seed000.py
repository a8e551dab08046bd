"""Seed 000's chain with real Linux TCP endpoints: the table of
`hoplab reproduce seed000 --real` (python/hoplab/papers/seed000/real.py) in
markdown, for docs/VALIDATION.md and validation/emu_seed000.md, with the
date, the machine's load, whether SCHED_FIFO was granted and the wall time.
Needs root; ~11 minutes at the defaults (48 runs of 10 s). `--from DIR`
renders the tables a `hoplab reproduce seed000 --real --out DIR` saved
(real.csv, real-runs.csv) instead of running.

    python validation/emu_seed000.py [--seconds 10] [--runs 3] [--routing aodv-hello] [--csv runs.csv]
    python validation/emu_seed000.py --from DIR [--seconds 10] [--runs 3] [--routing aodv-hello]
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from pathlib import Path

import pandas as pd

from hoplab.papers.seed000.experiment import ROUTINGS
from hoplab.papers.seed000.real import DEFAULT_ROUTING, UNCLAMPED, outliers, report, run_real


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--routing", choices=list(ROUTINGS), default=DEFAULT_ROUTING)
    ap.add_argument("--csv", default=None, help="also write the per-run rows here")
    ap.add_argument("--from", dest="from_dir", type=Path, default=None,
                    help="render the result directory of `hoplab reproduce seed000 --real --out DIR`")
    a = ap.parse_args()
    if a.from_dir is not None:
        df, runs = pd.read_csv(a.from_dir / "real.csv"), pd.read_csv(a.from_dir / "real-runs.csv")
        when = datetime.date.fromtimestamp((a.from_dir / "real.csv").stat().st_mtime)
        print(f"{when}: {a.runs} runs of {a.seconds:g} s per cell, relays {a.routing} (from {a.from_dir}); "
              f"SCHED_FIFO granted in {int(runs.fifo.sum())} of {len(runs)} runs.\n")
    else:
        load0, t0 = os.getloadavg(), time.monotonic()
        df, runs = run_real(replicas=a.runs, seconds=a.seconds, routing=a.routing,
                            progress=lambda m: print(m, file=sys.stderr))
        wall, load1 = time.monotonic() - t0, os.getloadavg()
        if a.csv:
            runs.to_csv(a.csv, index=False)
        print(f"{datetime.date.today()}: {a.runs} runs of {a.seconds:g} s per cell, relays {a.routing}; "
              f"{wall / 60:.1f} min wall; load average {load0[0]:.2f} before, {load1[0]:.2f} after "
              f"({os.cpu_count()} cores); SCHED_FIFO granted in {int(runs.fifo.sum())} of {len(runs)} runs.\n")
    print("| hops | W | real Linux: mean [95 % t CI] (min–max), kbit/s | receiver's ACKs per data segment | "
          "simulated, Linux receiver | paper testbed |")
    print("|---|---|---|---|---|---|")
    for r in df.itertuples():
        w = "unclamped" if r.max_cwnd == UNCLAMPED else r.max_cwnd
        ci = f" [{r.real_ci_low_kbps:.0f}, {r.real_ci_high_kbps:.0f}]" if r.runs > 1 else ""
        print(f"| {r.hops} | {w} | {r.real_kbps:.0f}{ci} ({r.real_min_kbps:.0f}–{r.real_max_kbps:.0f}) | "
              f"{r.real_acks_per_segment:.2f} | {r.simulated_linux_kbps:.0f} | {r.testbed_kbps:.0f} |")
    print()
    low = outliers(runs)
    print(f"{len(low)} run(s) below 80 % of their cell's median. The report:\n")
    print("```text")
    print(report(df, runs, replicas=a.runs, seconds=a.seconds, routing=a.routing))
    print("```")


if __name__ == "__main__":
    main()
