"""Run one scenario in hoplab and in ns-2.35, seed by seed, and set the
figures side by side: per flow and in total, throughput, packets delivered,
retransmissions, timeouts, routing packets and drops by reason, each with
its spread over the seeds and the ratio of the means.

The ns-2 side is the scenario written as an ns-2 script
(`formats/ns2/script/export.py`) and run by `ns`; both sides write the same
old-format CMU trace (agent and router levels) and are measured by the same
reader (`formats/ns2/trace_metrics.py`), so a difference is the simulators',
not the measurement's. Timeouts come from each side's TCP agent (ns-2's
`nrexmit_`, hoplab's flows table).
"""

from __future__ import annotations

import json
import math
import shutil
import statistics
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

__all__ = ["CrosscheckError", "Side", "crosscheck", "ns2_available", "table_rows", "format_table"]

NS_TIMEOUT_S = 3600.0
# Printed by the ns-2 run at its end, one line per TCP flow (not part of the
# script that hoplab reads back: the hook is defined only for the ns run).
_REPORT = """proc hoplab_report {} {
    global tcp_ app_
    foreach k [lsort -integer [array names app_]] {
        if {[info exists tcp_($k)]} {
            puts "HOPLAB-FLOW $k [$tcp_($k) set nrexmit_] [$tcp_($k) set nrexmitpack_] [$tcp_($k) set ack_]"
        }
    }
}
"""


class CrosscheckError(ValueError):
    """A scenario that cannot be cross-checked, or a peer that failed."""


def ns2_available() -> str | None:
    return shutil.which("ns")


@dataclass
class Side:
    """One simulator's figures over the seeds: per metric key, one value per seed."""

    name: str
    values: dict[tuple[str, str], list[float]] = field(default_factory=dict)  # (row, metric) -> per seed

    def add(self, row: str, metric: str, v: float) -> None:
        self.values.setdefault((row, metric), []).append(float(v))


def _flow_key(f: Mapping[str, Any], k: int) -> str:
    return f"flow {k} ({f['kind']} {f['src']}->{f['dst']})"


def _measure(side: Side, trace: Path, flows: list[Mapping[str, Any]], timeouts: Mapping[int, float],
             writer: str) -> None:
    from .formats.ns2.trace_metrics import summarize

    s = summarize(trace, writer=writer)
    kinds = {"ftp": "tcp", "cbr": "cbr"}
    # Flows and the trace's connections paired by (kind, src, dst), in order of start: the two
    # simulators number ports differently.
    by_key: dict[tuple[str, int, int], list[Any]] = {}
    for c in sorted(s.connections, key=lambda c: (c.first_send, c.sport)):
        kind = "cbr" if c.kind == "exp" else c.kind  # ns-2's Traffic/Exponential packets are "exp"
        by_key.setdefault((kind, c.src, c.dst), []).append(c)
    order = sorted(range(len(flows)), key=lambda k: (float(flows[k].get("start_s", 0.0)), k))
    paired: dict[int, Any] = {}
    for k in order:
        f = flows[k]
        hits = by_key.get((kinds.get(str(f["kind"]), ""), int(f["src"]), int(f["dst"])), [])
        paired[k] = hits.pop(0) if hits else None
    for k, f in enumerate(flows):
        c = paired[k]
        row = _flow_key(f, k)
        if c is None:  # the flow never sent at the agent level
            for metric in ("throughput_kbps", "delivered", "retransmissions", "delay_ms"):
                side.add(row, metric, 0.0 if metric != "delay_ms" else math.nan)
        else:
            side.add(row, "throughput_kbps", (c.throughput_bps / 1e3) if math.isfinite(c.throughput_bps) else 0.0)
            side.add(row, "delivered", c.packets_received)
            side.add(row, "retransmissions", c.retransmissions)
            side.add(row, "delay_ms", c.delay_mean * 1e3)
        if f["kind"] == "ftp":
            side.add(row, "timeouts", timeouts.get(k, math.nan))
    t = s.totals
    side.add("total", "delivered", t.packets_received)
    side.add("total", "delivery_ratio", t.delivery_ratio)
    side.add("total", "delay_ms", t.delay_mean * 1e3)
    # sent + forwarded: hoplab's trace writes a relayed AODV reply as sent where ns-2 writes it forwarded
    side.add("total", "routing_packets", t.routing_sent + t.routing_forwarded)
    side.add("total", "routing_sent", t.routing_sent)
    side.add("total", "routing_forwarded", t.routing_forwarded)
    for (level, reason), n in sorted(s.drops.items()):
        side.add("drops", f"{level} {reason}", n)


def _run_ns2(script: str, work: Path) -> dict[int, float]:
    work.mkdir(parents=True, exist_ok=True)
    (work / "script.tcl").write_text(script)
    (work / "run.tcl").write_text(_REPORT + "source script.tcl\n")
    ns = ns2_available()
    assert ns is not None
    try:
        p = subprocess.run([ns, "run.tcl"], cwd=work, capture_output=True, text=True, timeout=NS_TIMEOUT_S,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise CrosscheckError(f"ns-2 ran longer than {NS_TIMEOUT_S:g} s ({work})") from None
    (work / "ns.out").write_text(p.stdout + p.stderr)
    if p.returncode != 0 or not (work / "trace.tr").is_file():
        tail = " ".join((p.stderr or p.stdout).strip().splitlines()[-2:])[:200]
        raise CrosscheckError(f"ns-2 failed (exit {p.returncode}): {tail} (its output: {work / 'ns.out'})")
    timeouts = {}
    for line in p.stdout.splitlines():
        if line.startswith("HOPLAB-FLOW "):
            parts = line.split()
            timeouts[int(parts[1])] = float(parts[2])
    return timeouts


def ns2_script(one: Mapping[str, Any], res: Any, drawn: bool) -> str:
    """The ns-2 script of one seed's run (``one``: the scenario with its
    seed, ``res``: hoplab's result of it): the movement hoplab drew when
    ``drawn``, and ns-2 seeded apart from its neighbours (export.spread_seed)."""
    from .formats.ns2.script.export import export_script, with_movement_of

    moved = with_movement_of(one, res.movement) if drawn else one
    return export_script(moved, trace="trace.tr", comment=f"seed {one['seed']}", spread=True)


def _run_hoplab(sc: Mapping[str, Any], work: Path) -> tuple[dict[int, float], Any]:
    from ._run import run

    work.mkdir(parents=True, exist_ok=True)
    res = run(dict(sc), trace_dir=work)
    timeouts = {}
    flows = res.flows
    for k, f in enumerate(sc["flows"]):
        if f["kind"] == "ftp":
            timeouts[k] = float(flows.loc[flows["flow"] == k, "timeouts"].iloc[0])
    return timeouts, res


def crosscheck(scenario: Mapping[str, Any], seeds: list[int], out: Path, *, progress: Any = None
               ) -> tuple[Side, Side]:
    """Run ``scenario`` under compat = "ns2" in hoplab and in ns-2.35 for
    each seed; their files go under ``out`` (hoplab/seed-N, ns2/seed-N)."""
    from .formats.ns2.script.export import ns2_reading

    if ns2_available() is None:
        raise CrosscheckError("ns-2 is not installed (`ns` is not on PATH): apt-get install ns2")
    sc = ns2_reading(scenario)
    # as the exported script's trace: agent and router levels, and the drops ns-2 always traces
    sc["trace"] = {"formats": ["ns2"], "ns2_format": "old", "layers": ["AGT", "RTR"], "drop_levels": ["RTR", "IFQ"]}
    sc.setdefault("output", {})["timeseries"] = False
    drawn = expressible(sc)
    hop, ns2 = Side("hoplab"), Side("ns-2.35")
    for seed in seeds:
        one = {**sc, "seed": seed}
        if progress:
            progress(f"seed {seed}: hoplab")
        t_hop, res = _run_hoplab(one, out / "hoplab" / f"seed-{seed}")
        if progress:
            progress(f"seed {seed}: ns-2")
        t_ns = _run_ns2(ns2_script(one, res, drawn), out / "ns2" / f"seed-{seed}")
        hop_trace = next(iter(p for n, p in res.trace_files.items() if n == "trace.tr"), None)
        if hop_trace is None:
            raise CrosscheckError("hoplab wrote no trace.tr")
        _measure(ns2, out / "ns2" / f"seed-{seed}" / "trace.tr", sc["flows"], t_ns, "ns2")
        _measure(hop, Path(hop_trace), sc["flows"], t_hop, "hoplab")
    return hop, ns2


def expressible(scenario: Mapping[str, Any]) -> bool:
    """Raise CrosscheckError naming the field ns-2 cannot express; True when
    the movement is drawn by a mobility model while hoplab runs (ns-2 then
    gets that run's movement as setdest legs)."""
    from .formats.ns2.script.export import ExportError, export_script

    drawn = (scenario.get("mobility") or {}).get("model", "legs") != "legs"
    probe = json.loads(json.dumps(dict(scenario)))
    if drawn:
        probe["mobility"] = {"legs": []}
    try:
        export_script(probe)
    except ExportError as e:
        raise CrosscheckError(f"ns-2 cannot express {e}") from None
    return drawn


def _stats(v: list[float]) -> tuple[float, float, float]:
    v = [x for x in v if not math.isnan(x)]
    if not v:
        return math.nan, math.nan, math.nan
    return statistics.fmean(v), min(v), max(v)


def table_rows(hop: Side, ns2: Side) -> list[dict[str, Any]]:
    """One row per (row, metric): each side's mean and range over the
    seeds, and hoplab's mean over ns-2's."""
    keys = list(dict.fromkeys([*ns2.values, *hop.values]))
    rows = []
    for row, metric in keys:
        h, n = hop.values.get((row, metric), []), ns2.values.get((row, metric), [])
        hm, hlo, hhi = _stats(h)
        nm, nlo, nhi = _stats(n)
        ratio = hm / nm if nm and math.isfinite(nm) and math.isfinite(hm) else math.nan
        rows.append({"row": row, "metric": metric, "hoplab": hm, "hoplab_min": hlo, "hoplab_max": hhi,
                     "ns2": nm, "ns2_min": nlo, "ns2_max": nhi, "ratio": ratio,
                     "within_ns2_spread": (nlo <= hm <= nhi) if math.isfinite(hm) and math.isfinite(nlo) else None,
                     "seeds": max(len(h), len(n))})
    return rows


def _num(v: float) -> str:
    if not math.isfinite(v):
        return "-"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}" if abs(v) < 1 else f"{v:.1f}"


def format_table(rows: list[dict[str, Any]], seeds: list[int]) -> str:
    head = (f"hoplab (compat = \"ns2\") against ns-2.35, seeds {','.join(map(str, seeds))} (n = {len(seeds)} runs a "
            "side; mean [min, max] over the seeds; ratio = hoplab mean / ns-2 mean)")
    lines = [head, ""]
    w = max(len(f"{r['row']}  {r['metric']}") for r in rows) if rows else 10
    lines.append(f"{'':<{w}}  {'hoplab':>24}  {'ns-2.35':>24}  {'ratio':>6}")
    last = None
    for r in rows:
        label = f"{r['row']}  {r['metric']}" if r["row"] != last else f"{'':<{len(r['row'])}}  {r['metric']}"
        last = r["row"]
        hs = f"{_num(r['hoplab'])} [{_num(r['hoplab_min'])}, {_num(r['hoplab_max'])}]"
        ns = f"{_num(r['ns2'])} [{_num(r['ns2_min'])}, {_num(r['ns2_max'])}]"
        ratio = f"{r['ratio']:.3f}" if math.isfinite(r["ratio"]) else "-"
        lines.append(f"{label:<{w}}  {hs:>24}  {ns:>24}  {ratio:>6}")
    return "\n".join(lines)
