#!/usr/bin/env python3
"""hoplab against ns-2.35 (and ns-3, where built) on the same scenarios, for speed:
engine time, whole-process time, events and peak memory, each simulator run as its own
process, interleaved in one call so that both see the same machine load.

    ./hoplab --help >/dev/null            # once: builds .venv and the extension
    .venv/bin/python validation/speed.py [--only NAME ...] [--repeat 3] [--timeout 900]
        [--ns3 PEER_DIR] [--jsonl OUT.jsonl]

Scenarios (the peer matrix; `--list` prints them):
  chain4-static, chain4-aodv   4-hop chain, one bulk TCP flow, 120 s (ns-2's "static" is DSDV
                               made static and simulates a 20 s warm-up first: README of
                               validation/ns2)
  grid7-dsr                    7x7 grid, two crossing flows, DSR, 120 s
  rwp150-aodv, rwp150-dsr      150 nodes, 2000 x 2000 m, random waypoint 0-10 m/s, no pause,
                               32 flows, 200 s (the movement ns-2's rwp.tcl draws, read by hoplab)
  static200-aodv               200 nodes placed at random in 2000 x 2000 m, never moving, 32
                               flows, AODV, 200 s
  rwp1000-aodv                 1,000 nodes at the same density (5164 x 5164 m), 32 flows, 200 s

Engine time: hoplab's `wall_s` (the Rust engine), ns-2's `run_seconds` (`$ns run` to the
report), ns-3's `wall_seconds`. Whole process: from exec to exit, as a user waits for
`hoplab run FILE --no-save` or `ns SCRIPT`. Peak memory: the process's maximum resident set
(wait4). Events: hoplab counts events processed, ns-2 events scheduled (`Scheduler::uid_`).
hoplab runs with its defaults and the TCP settings of the ns-2 scripts (validation/compare_ns2.py,
profile `standard`); the speed of a run hardly depends on the profile.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "validation"))

import compare_ns2 as C  # noqa: E402
from hoplab.formats.ns2 import merge_movement, read_movement  # noqa: E402

PY = Path(sys.executable)
NS = os.environ.get("NS", "ns")


@dataclass
class Case:
    name: str
    ns2_script: str
    ns2_args: list[str]
    # the hoplab scenario, given the ns-2 run's JSON line (flows, movement file)
    hoplab: Callable[[dict[str, Any], Path], dict[str, Any]]
    ns3: tuple[str, list[str]] | None = None
    note: str = ""
    big: bool = False


def _a(duration: float = 120.0) -> argparse.Namespace:
    return argparse.Namespace(mss=1460, duration=duration)


def _chain(routing: str) -> Callable[[dict[str, Any], Path], dict[str, Any]]:
    return lambda j, scen: C.hoplab_scenario("standard", "chain", routing, _a(), hops=4, flows=[(0, 4, 1.0)],
                                             rts_all=False)


def _grid(j: dict[str, Any], scen: Path) -> dict[str, Any]:
    return C.hoplab_scenario("standard", "grid", "dsr", _a(), flows=[(21, 27, 1.0), (3, 45, 1.5)], rts_all=False)


def _mobile(routing: str) -> Callable[[dict[str, Any], Path], dict[str, Any]]:
    def build(j: dict[str, Any], scen: Path) -> dict[str, Any]:
        base = C.hoplab_base("standard", routing, _a(200.0), max_cwnd=0, rts_all=False)
        base.update({"name": "speed", "duration_s": float(j["duration"]), "output": {"timeseries": False},
                     "flows": [C.S.ftp(int(f["src"]), int(f["dst"]), start=float(f["start"])) for f in j["flows"]]})
        sc, _ = merge_movement(base, read_movement(scen, nodes=int(j["nodes"])))
        return sc
    return build


def _rwp_args(nodes: int, side: float, routing: str, pause: float = 0.0) -> list[str]:
    return ["-nodes", str(nodes), "-width", f"{side:g}", "-height", f"{side:g}", "-flows", "32", "-duration", "200",
            "-pause", f"{pause:g}", "-movement", "tcl", "-routing", routing, "-seed", "1"]


CASES = [
    Case("chain4-static", "chain.tcl", C.ns2_args("static", 1, _a(), rts_all=False, extra=["-hops", "4"]),
         _chain("static"), ("chain", ["--start=1", "--hops=4", "--routing=static", "--seed=1", "--duration=120"])),
    Case("chain4-aodv", "chain.tcl", C.ns2_args("aodv", 1, _a(), rts_all=False, extra=["-hops", "4"]),
         _chain("aodv"), ("chain", ["--start=1", "--hops=4", "--routing=aodv", "--staticArp=0", "--seed=1",
                                    "--duration=120"])),
    Case("grid7-dsr", "grid.tcl", C.ns2_args("dsr", 1, _a(), rts_all=False,
                                             extra=["-pattern", "cross", "-start", "1", "-stagger", "0.5"]), _grid,
         ("grid", ["--routing=dsr", "--pattern=cross", "--seed=1", "--duration=120"])),
    Case("rwp150-aodv", "rwp.tcl", _rwp_args(150, 2000, "AODV"), _mobile("aodv")),
    Case("rwp150-dsr", "rwp.tcl", _rwp_args(150, 2000, "DSR"), _mobile("dsr")),
    # pause beyond the run: setdest's model pauses first, so no node ever moves
    Case("static200-aodv", "rwp.tcl", _rwp_args(200, 2000, "AODV", pause=1000.0), _mobile("aodv")),
    Case("rwp1000-aodv", "rwp.tcl", _rwp_args(1000, 5164, "AODV"), _mobile("aodv"), big=True),
]


def run_process(argv: list[str], cwd: Path | None, timeout: float) -> tuple[str, float, float] | None:
    """stdout, whole-process seconds and peak RSS (MB) of one child; None on a timeout."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return None
    return out, time.perf_counter() - t0, float("nan")


def timed(argv: list[str], cwd: Path | None, timeout: float) -> tuple[str, float, float] | None:
    """As run_process, with the peak RSS from GNU time (-f %M, kilobytes); its own start-up
    (about 1 ms) is inside the whole-process time of both simulators alike."""
    gnu_time = "/usr/bin/time" if Path("/usr/bin/time").exists() else None
    if gnu_time is None:
        return run_process(argv, cwd, timeout)
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as f:
        r = run_process([gnu_time, "-f", "%M", "-o", f.name, *argv], cwd, timeout)
        if r is None:
            return None
        try:
            rss = float(Path(f.name).read_text().split()[-1]) / 1024.0
        except (ValueError, IndexError):
            rss = float("nan")
    return r[0], r[1], rss


SUMMARY = re.compile(r"([\d,]+) events\s+([\d.]+) s wall")


def run_hoplab(sc: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(sc, f)
        path = f.name
    try:
        r = timed([str(PY), "-m", "hoplab", "run", path, "--no-save"], ROOT, timeout)
    finally:
        os.unlink(path)
    if r is None:
        return None
    out, wall, rss = r
    m = SUMMARY.search(out)
    if not m:
        raise SystemExit(f"speed.py: could not read hoplab's summary line:\n{out[:500]}")
    return {"engine_s": float(m.group(2)), "process_s": wall, "events": int(m.group(1).replace(",", "")),
            "rss_mb": rss}


def run_ns2(case: Case, scen_dir: Path, timeout: float) -> tuple[dict[str, Any], dict[str, Any]] | None:
    args = list(case.ns2_args)
    if case.ns2_script == "rwp.tcl":
        args += ["-scenDir", str(scen_dir)]
    r = timed([NS, str(C.TCL / case.ns2_script), *args], scen_dir, timeout)
    if r is None:
        return None
    out, wall, rss = r
    j = json.loads([x for x in out.splitlines() if x.startswith('{"sim"')][-1])
    return {"engine_s": float(j["run_seconds"]), "process_s": wall, "events": int(j["events"]), "rss_mb": rss}, j


def run_ns3(case: Case, peer: Path, timeout: float) -> dict[str, Any] | None:
    if case.ns3 is None:
        return None
    prog, args = case.ns3
    r = timed([str(peer / prog), *args], peer, timeout)
    if r is None:
        return None
    out, wall, rss = r
    j = json.loads(out.strip().splitlines()[-1])
    return {"engine_s": float(j["wall_seconds"]), "process_s": wall, "events": int(j.get("events", 0)), "rss_mb": rss}


def median_of(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs) if runs else float("nan")


@dataclass
class Row:
    case: Case
    runs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    timeouts: dict[str, int] = field(default_factory=dict)


def fmt(x: float, nd: int = 3) -> str:
    return "-" if x != x else f"{x:.{nd}f}"


def paired_ratios(r: Row, peer: str) -> str:
    """Peer over hoplab engine time round by round (the two ran back to back,
    so a slow spell of the machine hits both): the median and the range.
    A round where either timed out has no pair."""
    a, b = r.runs.get("hoplab", []), r.runs.get(peer, [])
    if len(a) != len(b):
        return "-"
    ratios = [y["engine_s"] / x["engine_s"] for x, y in zip(a, b) if x["engine_s"] > 0]
    if not ratios:
        return "-"
    return f"{statistics.median(ratios):.1f} ({min(ratios):.1f}-{max(ratios):.1f})"


def print_table(rows: list[Row], sims: list[str]) -> None:
    peers = [s for s in sims if s != "hoplab"]
    print("| scenario | " + " | ".join(f"{s} engine s" for s in sims) + " | "
          + " | ".join(f"{p} / hoplab engine" for p in peers) + " | ns-2 / hoplab engine, per round: median (min-max) | "
          + " | ".join(f"{s} process s" for s in sims) + " | hoplab / ns-2 process | events M "
          + " / ".join(sims) + " | peak MB " + " / ".join(sims) + " |")
    print("|---|" + "---:|" * (2 * len(sims)) + "---:|" * (len(sims) + 1) + "---|---|")
    for r in rows:
        eng = {s: median_of(r.runs.get(s, []), "engine_s") for s in sims}
        proc = {s: median_of(r.runs.get(s, []), "process_s") for s in sims}

        def cell(s: str, v: float) -> str:
            return f"> {r.timeouts[s]} s" if s in r.timeouts and not r.runs.get(s) else fmt(v)

        cells = [cell(s, eng[s]) for s in sims] + [fmt(eng[p] / eng["hoplab"], 1) for p in peers]
        cells.append(paired_ratios(r, "ns-2"))
        cells += [cell(s, proc[s]) for s in sims] + [fmt(proc["hoplab"] / proc["ns-2"], 2)]
        cells.append(" / ".join(fmt(median_of(r.runs.get(s, []), "events") / 1e6, 2) for s in sims))
        cells.append(" / ".join(fmt(median_of(r.runs.get(s, []), "rss_mb"), 0) for s in sims))
        print(f"| {r.case.name} | " + " | ".join(cells) + " |", flush=True)


def dump(cases: list[Case], out: Path, timeout: float) -> int:
    """Run ns-2 once per case (for its flows and movement) and write hoplab's scenario."""
    out.mkdir(parents=True, exist_ok=True)
    for c in cases:
        res = run_ns2(c, out, timeout)
        if res is None:
            print(f"speed.py: ns-2 timed out on {c.name}", file=sys.stderr)
            return 1
        _, j = res
        scen = Path(j["scen"]) if "scen" in j else out
        (out / f"{c.name}.json").write_text(json.dumps(c.hoplab(j, scen)))
        print(out / f"{c.name}.json")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", help="a scenario name (repeatable); default: all but rwp1000-aodv")
    ap.add_argument("--all", action="store_true", help="also the 1,000-node scenario")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds (medians are printed)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per process")
    ap.add_argument("--ns3", type=Path, help="the ns-3 peer's build folder (its chain, grid programs)")
    ap.add_argument("--jsonl", type=Path, help="append every measurement to this file")
    ap.add_argument("--dump", type=Path, help="write each hoplab scenario to DIR/NAME.json (for profiling "
                    "with examples/runjson) and the ns-2 movement files beside them; no timing")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        for c in CASES:
            print(c.name)
        return 0
    names = {c.name for c in CASES}
    bad = [n for n in a.only or [] if n not in names]
    if bad:
        ap.error(f"unknown scenario {bad[0]!r} (known: {', '.join(sorted(names))})")
    if shutil.which(NS) is None:
        ap.error(f"no `{NS}` on PATH (apt-get install -y ns2)")
    cases = [c for c in CASES if c.name in a.only] if a.only else [c for c in CASES if a.all or not c.big]
    sims = ["hoplab", "ns-2"] + (["ns-3"] if a.ns3 else [])
    sink = a.jsonl.open("a") if a.jsonl else None
    load = os.getloadavg()
    print(f"speed.py: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, load "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {a.repeat} interleaved round(s), medians\n", flush=True)
    if a.dump:
        return dump(cases, a.dump, a.timeout)
    rows = [Row(c) for c in cases]
    with tempfile.TemporaryDirectory(prefix="hoplab-speed-") as tmp:
        scen_dir = Path(tmp)
        for rnd in range(a.repeat):
            for row in rows:
                c = row.case
                res = run_ns2(c, scen_dir, a.timeout)
                if res is None:
                    row.timeouts["ns-2"] = int(a.timeout)
                    continue
                m, j = res
                row.runs.setdefault("ns-2", []).append(m)
                scen = Path(j["scen"]) if "scen" in j else scen_dir
                h = run_hoplab(c.hoplab(j, scen), a.timeout)
                if h is None:
                    row.timeouts["hoplab"] = int(a.timeout)
                else:
                    row.runs.setdefault("hoplab", []).append(h)
                n3 = None
                if a.ns3:
                    n3 = run_ns3(c, a.ns3, a.timeout)
                    if n3 is not None:
                        row.runs.setdefault("ns-3", []).append(n3)
                print(f"  round {rnd + 1}: {c.name}: hoplab {fmt(h['engine_s']) if h else 'timeout'} s, "
                      f"ns-2 {fmt(m['engine_s'])} s (engine)", file=sys.stderr, flush=True)
                if sink:
                    sink.write(json.dumps({"case": c.name, "round": rnd, "hoplab": h, "ns2": m, "ns3": n3}) + "\n")
                    sink.flush()
    print_table(rows, sims)
    load = os.getloadavg()
    print(f"\nload at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
