"""`hoplab bench --flows`: cost against the number of flows (issue 22 item 6).

Many short CBR flows between random pairs of nodes (random.Random(1)), each
1 kbit/s of 512-byte packets starting at a random time in [0, 1.9) s, in a
2 s run with static routing, on two layouts:

  few:  a 4-hop chain (5 nodes): every node is an endpoint of thousands of
        flows, where a per-node cost that grows with its flows shows;
  many: a 32 x 32 grid (1,024 nodes, 200 m): flows spread over many nodes.

at 1,000, 10,000 and 40,000 flows. Each size runs in a fresh process
(`python -m hoplab._bench.flows LAYOUT N`, one JSON line out) and reports the
engine's time and the whole `hoplab.run` call (scenario checks, the engine,
the result tables). Growth is judged step by step: time ratio over flow
ratio, which must stay <= 1.5 (issue 22: "cost linear in flows within
1.5x"). A benchmark, not a test: record its numbers in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from typing import Any

from .._table import markdown_table, text_table

SIZES = (1_000, 10_000, 40_000)
LAYOUTS = {"few": (5, "4-hop chain, 5 nodes"), "many": (1024, "32x32 grid, 1,024 nodes")}
GROWTH_LIMIT = 1.5


def build(layout: str, flows: int) -> dict[str, Any]:
    from .. import scenario as sc

    nodes = LAYOUTS[layout][0]
    rng = random.Random(1)
    fl = []
    for _ in range(flows):
        a = rng.randrange(nodes)
        b = rng.randrange(nodes - 1)
        b += b >= a
        fl.append(sc.cbr(a, b, 1.0, packet_size=512, start=round(rng.uniform(0.0, 1.9), 3)))
    if layout == "few":
        return sc.chain(4, 200.0, duration=2.0, flows=fl, timeseries=False, name=f"bench-flows-few-{flows}")
    return sc.grid(32, 32, 200.0, duration=2.0, flows=fl, timeseries=False, name=f"bench-flows-many-{flows}")


def run_child(layout: str, flows: int) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "hoplab._bench.flows", layout, str(flows)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"flows bench {layout} {flows} failed (exit {proc.returncode}):\n{proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_flows_bench(repeat: int = 1, progress: Any = None) -> list[dict[str, Any]]:
    """Best of ``repeat`` fresh-process runs per (layout, size)."""
    rows = []
    for layout in LAYOUTS:
        prev = None
        for n in SIZES:
            runs = [run_child(layout, n) for _ in range(repeat)]
            best = min(runs, key=lambda r: r["run_s"])
            if progress:
                progress(f"{layout} {n} flows: engine {best['engine_s']:.3f} s, hoplab.run {best['run_s']:.3f} s")
            row = {**best, "layout": layout, "growth": None}
            if prev is not None:
                row["growth"] = (best["run_s"] / prev["run_s"]) / (n / prev["flows"])
            rows.append(row)
            prev = row
    return rows


def table(rows: list[dict[str, Any]], markdown: bool = False) -> str:
    head = ["layout", "flows", "events", "engine s", "hoplab.run s", "µs per flow", "growth / linear", "verdict"]
    body = []
    for r in rows:
        g = r["growth"]
        body.append([f"{r['layout']} ({LAYOUTS[r['layout']][1]})", f"{r['flows']:,}", f"{r['events']:,}",
                     f"{r['engine_s']:.3f}", f"{r['run_s']:.3f}", f"{1e6 * r['run_s'] / r['flows']:.1f}",
                     "-" if g is None else f"{g:.2f}",
                     "-" if g is None else ("ok" if g <= GROWTH_LIMIT else "MISSED")])
    fn = markdown_table if markdown else text_table
    note = ("growth / linear: (time / time at the previous size) / (flows / flows at the previous size), "
            f"of the whole hoplab.run call; linear growth is 1, the limit {GROWTH_LIMIT:g}.")
    return fn(head, body, align="lrrrrrrl") + "\n\n" + note


def main(argv: list[str]) -> int:
    from .._run import run

    layout, n = argv[0], int(argv[1])
    scenario = build(layout, n)
    t0 = time.perf_counter()
    r = run(scenario)
    wall = time.perf_counter() - t0
    print(json.dumps({"flows": n, "nodes": LAYOUTS[layout][0], "events": int(r.info["events"]),
                      "engine_s": float(r.info["wall_s"]), "run_s": wall}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
