"""Reproductions of seed 000's simulations (Anastasi et al.).

`seed000`: §4.1 and §4.3 — throughput and retransmission index of one
FTP/TCP NewReno flow over 1-4 hop chains versus the maximum congestion window
(2, 3, 4, unclamped), and the 3-hop chain with a 192 kbit/s CBR flow from
N3 to N2 (the paper's "3-hop-UDP" row), with a chosen receiver model and
routing protocol.

`seed000-routing`: §4.2 — the 3-hop chain at max cwnd 2 (Figs. 8-10) with
AODV-LL and AODV-HELLO, with the interference range equal to and below the
carrier-sense range, and OLSR beside them (§4.4): throughput, retransmissions
and the link failures each protocol declares.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

import pandas as pd

from ... import scenario
from .reference import seed000_testbed
from ... import lab
from .._grid import run_grid
from .._framework import ReproduceError
from ..._table import text_table
from ...result import event_hash_text

# Seed 000 §3 (Anastasi et al.): 802.11b limited to 2 Mbit/s, 1 Mbit/s basic
# rate, RTS/CTS threshold 100 bytes (RTS/CTS for TCP data, not for ACKs).
MAC: dict[str, Any] = {"data_rate_mbps": 2.0, "basic_rate_mbps": 1.0, "rts_threshold_bytes": 100}
# Seed 000 §3: TCP NewReno, 1460-byte segments.
TCP: dict[str, Any] = {"variant": "new_reno", "mss_bytes": 1460}

HOPS = (1, 2, 3, 4)
# The paper's columns: W = 2, 3, 4 and "32", which it uses as the label of
# the unclamped window ("In the plots below the latter case is referred to as
# window size equal to 32", seed 000 §4.1). We run that column unclamped
# (max_cwnd = 0 in the scenario schema), so only the receiver's advertised
# window bounds it (tcp.receive_window, 65535 bytes = 44 segments by default,
# as a Linux stack of the time without window scaling), and keep the label 32.
CWNDS = (2, 3, 4, 32)
UNCLAMPED_LABEL = 32

# Receiver models (tcp.receiver) and how each applies the window clamp
# (tcp.clamp). The paper's ns-2 runs (Fig. 3, §4.1) used ns-2's receiver,
# which ACKs every other segment ("the simulated TCP receiver sends back one
# acknowledgement every other segment"), with the clamp on the sender's
# window (ns-2 has no advertised window; hoplab caps cwnd, as maxcwnd_).
# Its testbed clamped the Linux receiver's advertised window with
# TCP_WINDOW_CLAMP (§3), so `linux` runs with the receiver-side clamp. `every`
# (delayed ACKs off) is the paper's second ns-2 experiment taken to every W.
RECEIVERS = {"ns2": "sender", "linux": "receiver", "every": "sender"}
DEFAULT_RECEIVER = "ns2"

# Routing as the paper's ns-2 runs had it: AODV-UU ("we used the same
# AODV-UU code both in the real and in the simulated experiments", §4.1) with
# HELLO link detection as on the testbed, or with link-layer feedback
# (AODV-LL, §4.2); OLSR as ns-2's UM-OLSR (hoplab's default OLSR preset,
# without hysteresis, as the testbed's olsrd ran). `static` has no routing
# protocol at all: the bound the simulation studies the paper cites assume.
# The default is Fig. 3's AODV: AODV-UU with HELLOs.
ROUTINGS: dict[str, dict[str, Any]] = {
    "static": {"protocol": "static"},
    "aodv-hello": {"protocol": "aodv", "preset": "aodv-uu"},
    "aodv-ll": {"protocol": "aodv", "preset": "aodv-uu", "aodv": {"link_detection": "link_layer"}},
    "olsr": {"protocol": "olsr"},
}
DEFAULT_ROUTING = "aodv-hello"

# §4.3: a CBR/UDP flow from N3 to N2 (nodes 2 -> 1 of the 3-hop chain) at
# 192 kbit/s, "the bit rate of an MP3 stream". The paper gives no packet
# size; hoplab's CBR default is 512 B.
CBR_KBPS = 192.0
CBR_SRC, CBR_DST = 2, 1

# §4.2 "IF_Range < CS_Range, which is more realistic" gives no value. We take
# 1.78 x the 200 m hop: the distance within which a transmitter can corrupt
# a frame sent over one hop under two-ray ground and a 10 dB capture
# threshold (10^(10/40) = 1.78; Xu, Gerla, Bae, "How effective is the IEEE
# 802.11 RTS/CTS handshake in ad hoc networks", GLOBECOM 2002). Nodes two
# hops away (400 m) then still defer (carrier sense) but no longer corrupt.
# On a 200 m chain any value from 400 to 550 m changes nothing. 0 means
# IF_Range = CS_Range (550 m), the paper's Figs. 8-9.
IF_RANGE_BELOW_CS_M = 356.0

# How the paper's simulator is read (--reading): "ns2" runs `compat = "ns2"`,
# ns-2.35's MAC and TCP rules (the routing preset stays AODV-UU: the paper ran
# AODV-UU inside ns-2); "standard" hoplab's defaults (IEEE 802.11, the RFCs).
READING_TEXT = {
    "ns2": "ns-2's reading (compat = \"ns2\": ns-2.35's MAC, RTO estimator, a SYN then windowInit_ 2, 3 s initial RTO)",
    "standard": "the standards' reading (IEEE 802.11, RFC 6298 and RFC 5681)",
}

RUN_COLUMNS = [
    "scenario", "hops", "max_cwnd", "seed", "duration_s", "receiver", "clamp", "routing", "reading", "cbr_kbps",
    "if_range_m", "throughput_kbps", "retransmission_index", "loss_rate", "rtt_mean_ms", "rtt_std_ms",
    "timeouts", "rto_time_s", "link_failures", "false_failures", "route_changes", "cbr_throughput_kbps",
    "stream_errors", "events", "wall_s", "event_hash",
]
KEY = ("hops", "max_cwnd", "seed", "duration_s", "receiver", "routing", "cbr_kbps", "if_range_m", "reading")


@dataclass(frozen=True)
class Task:
    hops: int
    max_cwnd: int  # the paper's label; 32 means unclamped
    seed: int
    duration: float
    receiver: str = DEFAULT_RECEIVER
    routing: str = DEFAULT_ROUTING
    cbr_kbps: float = 0.0
    if_range_m: float = 0.0  # 0: the interference range is the carrier-sense range
    reading: str = "ns2"  # READING_TEXT

    @property
    def clamp(self) -> str:
        return RECEIVERS[self.receiver]

    @property
    def label(self) -> str:
        return f"{self.hops}-hop" + ("-UDP" if self.cbr_kbps else "")

    def key(self) -> tuple:
        return (self.hops, self.max_cwnd, self.seed, float(self.duration), self.receiver, self.routing,
                float(self.cbr_kbps), float(self.if_range_m), self.reading)

    def scenario(self) -> dict[str, Any]:
        if self.receiver not in RECEIVERS:
            raise ReproduceError(f"unknown receiver {self.receiver!r} (one of {', '.join(RECEIVERS)})")
        if self.routing not in ROUTINGS:
            raise ReproduceError(f"unknown routing {self.routing!r} (one of {', '.join(ROUTINGS)})")
        w = 0 if self.max_cwnd == UNCLAMPED_LABEL else self.max_cwnd
        tcp = dict(TCP, max_cwnd=w, receiver=self.receiver, clamp=self.clamp)
        flows = [scenario.ftp(0, self.hops)]
        if self.cbr_kbps:
            flows.append(scenario.cbr(CBR_SRC, CBR_DST, self.cbr_kbps))
        radio = {"interference_range_m": self.if_range_m} if self.if_range_m else None
        # Chain of hops+1 nodes 200 m apart: only neighbours decode each
        # other (250 m range), nodes two hops apart still sense each other
        # (550 m carrier sense) — the default two-ray-ground radio.
        sc = scenario.chain(self.hops, 200.0, duration=self.duration, seed=self.seed, flows=flows,
                            mac=dict(MAC), tcp=tcp, radio=radio,
                            routing=dict(ROUTINGS[self.routing]), timeseries=False,
                            name=f"seed000-{self.label}-w{self.max_cwnd}")
        if self.reading == "ns2":
            sc["compat"] = "ns2"
        return sc


def run_task(task: Task) -> dict[str, Any]:
    """Run one replica and return its row."""
    from ..._run import run

    return row_of(task, run(task.scenario(), seed=task.seed))


def row_of(task: Task, res: Any) -> dict[str, Any]:
    """The row of one replica from its result (a `Result` or a run read back from the store)."""
    f = res.flows.iloc[0]
    ev = res.route_events
    links = ev[ev["event"] == "link_broken"] if len(ev) else ev
    cbr = res.flows[res.flows["kind"] == "cbr"]
    return {
        "scenario": task.label, "hops": task.hops, "max_cwnd": task.max_cwnd, "seed": task.seed,
        "duration_s": float(task.duration), "receiver": task.receiver, "clamp": task.clamp,
        "routing": task.routing, "reading": task.reading, "cbr_kbps": float(task.cbr_kbps), "if_range_m": float(task.if_range_m),
        "throughput_kbps": float(f.throughput_kbps),
        "retransmission_index": float(f.retransmission_index),
        "loss_rate": float(f.loss_rate), "rtt_mean_ms": float(f.rtt_mean_ms),
        "rtt_std_ms": float(f.rtt_std_ms), "timeouts": int(f.timeouts), "rto_time_s": float(f.rto_time_s),
        "link_failures": int(len(links)), "false_failures": int(links["false_failure"].sum()) if len(links) else 0,
        "route_changes": int(f.route_changes),
        "cbr_throughput_kbps": float(cbr.throughput_kbps.iloc[0]) if len(cbr) else float("nan"),
        "stream_errors": int(f.stream_errors), "events": int(res.info["events"]),
        "wall_s": float(res.info["wall_s"]), "event_hash": event_hash_text(res.info["event_hash"]),
    }


def _describe(row: dict[str, Any]) -> str:
    extra = f", {row['routing']}" if row["routing"] != "static" else ""
    return (f"{row['scenario']} W={row['max_cwnd']} seed {row['seed']} ({row['receiver']}{extra}): "
            f"{row['throughput_kbps']:.1f} kbit/s, retx {row['retransmission_index']:.2f} %")


def run_tasks(tasks: list[Task], *, out: Path | None = None, jobs: int = 2,
              progress: Callable[[str], None] | None = None, name: str = "seed000") -> pd.DataFrame:
    """Run every task and return one row per run, as a lab design through a
    result store (with ``out``: ``out/store``, resumable; `papers._grid`)."""
    try:
        rows = run_grid(tasks, row_of, name=name, columns=RUN_COLUMNS, out=out, jobs=jobs,
                        progress=progress, describe=_describe)
    except (lab.LabError, lab.StoreError) as e:
        raise ReproduceError(str(e)) from None
    df = pd.DataFrame(rows, columns=RUN_COLUMNS)
    return df.sort_values(["reading", "routing", "if_range_m", "hops", "cbr_kbps", "max_cwnd", "seed"]).reset_index(
        drop=True)


def seed000_tasks(*, replicas: int, duration: float, receiver: str = DEFAULT_RECEIVER,
                  routing: str = DEFAULT_ROUTING, hops: Iterable[int] = HOPS, cwnds: Iterable[int] = CWNDS,
                  udp: bool = True, readings: Iterable[str] = ("ns2",)) -> list[Task]:
    """§4.1's chains and §4.3's 3-hop chain with CBR background traffic."""
    hops, cwnds, readings = list(hops), list(cwnds), list(readings)
    tasks = [Task(h, w, s, float(duration), receiver, routing, reading=rd)
             for rd in readings for s in range(1, replicas + 1) for h in hops for w in cwnds]
    if udp:
        tasks += [Task(3, w, s, float(duration), receiver, routing, CBR_KBPS, reading=rd)
                  for rd in readings for s in range(1, replicas + 1) for w in cwnds]
    return tasks


def run_seed000(*, replicas: int = 5, duration: float = 120.0, receiver: str = DEFAULT_RECEIVER,
                routing: str = DEFAULT_ROUTING, out: Path | None = None, jobs: int = 2,
                hops: Iterable[int] = HOPS, cwnds: Iterable[int] = CWNDS, udp: bool = True,
                progress: Callable[[str], None] | None = None, readings: Iterable[str] = ("ns2",)) -> pd.DataFrame:
    """Run every (scenario, max cwnd, replica) of seed 000 §4.1/§4.3."""
    tasks = seed000_tasks(replicas=replicas, duration=duration, receiver=receiver, routing=routing,
                          hops=hops, cwnds=cwnds, udp=udp, readings=readings)
    for t in tasks[:1]:
        t.scenario()  # unknown names fail here, before any worker starts
    return run_tasks(tasks, out=out, jobs=jobs, progress=progress, name=f"seed000-{receiver}-{routing}")


def aggregate(runs: pd.DataFrame, metric: str, by: tuple[str, ...] = ("scenario", "max_cwnd")) -> pd.DataFrame:
    """avg, min and max of ``metric`` per group (default: scenario, max_cwnd)."""
    g = runs.groupby(list(by))[metric]
    return pd.DataFrame({"avg": g.mean(), "min": g.min(), "max": g.max(), "n": g.count()}).reset_index()


def _cell(avg: float, lo: float, hi: float, digits: int) -> tuple[str, str]:
    return f"{avg:.{digits}f}", f"{lo:.{digits}f}-{hi:.{digits}f}"


def _scenario_order(s: str) -> tuple:
    return ("UDP" in str(s), str(s))


def paper_shaped_table(agg: pd.DataFrame, *, scenario_col: str, digits: int,
                       cwnds: Iterable[int] = CWNDS) -> str:
    """Rows 1-hop..4-hop, 3-hop-UDP; for each W an avg and a min-max column (seed 000 Tables 1-4)."""
    cwnds = list(cwnds)
    headers = ["Scenario"]
    for w in cwnds:
        headers += [f"W={w} avg", "min-max"]
    rows = []
    for scen in sorted(agg[scenario_col].unique(), key=_scenario_order):
        r = [str(scen)]
        for w in cwnds:
            m = agg[(agg[scenario_col] == scen) & (agg["max_cwnd"] == w)]
            r += list(_cell(m["avg"].iloc[0], m["min"].iloc[0], m["max"].iloc[0], digits)) if len(m) else ["-", "-"]
        rows.append(r)
    return text_table(headers, rows)


def best_windows(runs: pd.DataFrame) -> str:
    """Per scenario, the max cwnd with the highest mean throughput: among the
    clamped windows, and overall (§4.1's "optimal window")."""
    agg = aggregate(runs, "throughput_kbps")
    parts = []
    for scen in sorted(agg["scenario"].unique(), key=_scenario_order):
        a = agg[agg["scenario"] == scen]
        clamped = a[a["max_cwnd"] != UNCLAMPED_LABEL]
        best_c = int(clamped.loc[clamped["avg"].idxmax(), "max_cwnd"]) if len(clamped) else None
        best = int(a.loc[a["avg"].idxmax(), "max_cwnd"])
        parts.append(f"{scen} W={best_c}" + ("" if best == best_c else f" (unclamped {best})"))
    return "Best clamped window by mean throughput: " + ", ".join(parts)


RECEIVER_TEXT = {
    "ns2": "ns-2's receiver (an ACK every other segment, 100 ms timer), window clamp on the sender",
    "linux": "the Linux 2.6 receiver (quick ACKs, an ACK when a read opens the window, 40 ms timer), "
             "window clamp on the receiver's advertised window (TCP_WINDOW_CLAMP)",
    "every": "an ACK for every segment (delayed ACKs off), window clamp on the sender",
}
ROUTING_TEXT = {
    "static": "static routing",
    "aodv-hello": "AODV-UU with HELLO link detection (the testbed's AODV)",
    "aodv-ll": "AODV-UU with link-layer failure detection (AODV-LL)",
    "olsr": "OLSR (UM-OLSR, no hysteresis)",
}


def _testbed_tables(routing: str) -> list[str]:
    ref = seed000_testbed()
    olsr = routing == "olsr"
    name = "OLSR" if olsr else "AODV"
    out = ["", f"For context: seed 000's TESTBED measurements with {name} (real laptops, Linux 2.6.12, "
           + ("olsrd 0.4.10" if olsr else "AODV-UU 0.9.1 with HELLOs") + ", indoor; NOT ns-2),",
           "5 replicas of 120 s; values as printed in the paper, min-max put in order."]
    if ref is None:
        out.append("(data/seed000_tables1-4.csv not found)")
        return out
    tables = ((3, 4) if olsr else (1, 2))
    for table, title, digits in ((tables[0], f"Testbed Table {tables[0]}. Throughput (kbit/s), {name}", 1),
                                 (tables[1], f"Testbed Table {tables[1]}. Retransmission index (%), {name}", 2)):
        t = ref[ref["table"] == table]
        agg = pd.DataFrame({"scenario": t["scenario"], "max_cwnd": t["max_cwnd"], "avg": t["avg"],
                            "min": t[["min", "max"]].min(axis=1), "max": t[["min", "max"]].max(axis=1)})
        out += ["", title, paper_shaped_table(agg, scenario_col="scenario", digits=digits)]
    return out


def report_seed000(runs: pd.DataFrame, *, replicas: int, duration: float, receiver: str = DEFAULT_RECEIVER,
                   routing: str = DEFAULT_ROUTING) -> str:
    readings = [r for r in READING_TEXT if r in set(runs["reading"])]
    out = ["Seed 000 §4.1/§4.3, simulated: one FTP flow (TCP NewReno, 1460 B) over a chain, nodes 200 m apart,\n"
           "two-ray ground (250 m tx / 550 m carrier sense), 2 Mbit/s data / 1 Mbit/s basic, RTS/CTS > 100 B;\n"
           f"{ROUTING_TEXT[routing]}; {RECEIVER_TEXT[receiver]}.\n"
           f"3-hop-UDP: the 3-hop chain with a {CBR_KBPS:g} kbit/s CBR flow N3 -> N2 (§4.3).\n"
           f"{replicas} replica(s) of {duration:g} s (seeds 1..{replicas}); avg and min-max over replicas.\n"
           "W=32 is the unclamped window (the paper's label)."]
    for reading in readings:
        out += _simulated_tables(runs[runs["reading"] == reading], reading, routing)
    out += _testbed_tables(routing)
    return "\n".join(out)


def _simulated_tables(runs: pd.DataFrame, reading: str, routing: str) -> list[str]:
    out = ["", f"--- {READING_TEXT[reading]} ---"]
    for title, metric, digits in (("Table 1 (simulated). Throughput (kbit/s) vs. maximum cwnd", "throughput_kbps", 1),
                                  ("Table 2 (simulated). Retransmission index (%) vs. maximum cwnd",
                                   "retransmission_index", 2)):
        out += ["", title, paper_shaped_table(aggregate(runs, metric), scenario_col="scenario", digits=digits)]
    out += ["", best_windows(runs)]
    udp = runs[runs["cbr_kbps"] > 0]
    if len(udp):
        out.append(f"3-hop-UDP: the CBR flow delivered {udp['cbr_throughput_kbps'].mean():.1f} kbit/s "
                   f"on average (of {CBR_KBPS:g}).")
    if routing != "static":
        out.append(f"Link failures declared per run: {runs['link_failures'].mean():.1f} "
                   f"(false: {runs['false_failures'].mean():.1f}); timeouts per run {runs['timeouts'].mean():.1f}.")
    bad = runs[runs["stream_errors"] > 0]
    if len(bad):
        out += ["", f"WARNING: {len(bad)} run(s) delivered a byte stream with gaps or reordering (stream_errors > 0)."]
    return out


def summary_frame(runs: pd.DataFrame, by: tuple[str, ...] = ("scenario", "max_cwnd")) -> pd.DataFrame:
    """One row per group (and reading) with avg/min/max of throughput and retransmission index."""
    by = ["reading", *by]
    a = aggregate(runs, "throughput_kbps", tuple(by)).rename(
        columns={c: f"throughput_{c}" for c in ("avg", "min", "max", "n")})
    b = aggregate(runs, "retransmission_index", tuple(by)).rename(
        columns={c: f"retx_{c}" for c in ("avg", "min", "max", "n")})
    return a.merge(b, on=by)


# §4.2 / §4.4: (label, routing, interference range, what the paper reports)
ROUTING_CONFIGS: list[tuple[str, str, float, str]] = [
    ("AODV-LL, IF = CS", "aodv-ll", 0.0, "no link failures; cwnd and throughput steady (Fig. 8)"),
    ("AODV-HELLO, IF = CS", "aodv-hello", 0.0, "frequent false failures; throughput to zero, cwnd to 1 (Fig. 9)"),
    ("AODV-LL, IF < CS", "aodv-ll", IF_RANGE_BELOW_CS_M, "no difference from IF = CS"),
    ("AODV-HELLO, IF < CS", "aodv-hello", IF_RANGE_BELOW_CS_M, "fewer false failures than IF = CS (Fig. 10)"),
    ("OLSR, IF = CS", "olsr", 0.0, "fewer false failures than AODV: 3 HELLOs lost, not 2 (§4.4)"),
]
ROUTING_HOPS = 3
ROUTING_CWND = 2


def routing_tasks(*, replicas: int, duration: float, receiver: str = DEFAULT_RECEIVER,
                  readings: Iterable[str] = ("ns2",)) -> list[Task]:
    return [Task(ROUTING_HOPS, ROUTING_CWND, s, float(duration), receiver, routing, 0.0, if_m, rd)
            for rd in readings for _, routing, if_m, _ in ROUTING_CONFIGS for s in range(1, replicas + 1)]


def report_routing(runs: pd.DataFrame, *, replicas: int, duration: float, receiver: str = DEFAULT_RECEIVER) -> str:
    readings = [r for r in READING_TEXT if r in set(runs["reading"])]
    return "\n\n".join(_routing_table(runs[runs["reading"] == r], r, replicas=replicas, duration=duration,
                                       receiver=receiver) for r in readings)


def _routing_table(runs: pd.DataFrame, reading: str, *, replicas: int, duration: float, receiver: str) -> str:
    rows = []
    for label, routing, if_m, paper in ROUTING_CONFIGS:
        d = runs[(runs["routing"] == routing) & (runs["if_range_m"] == if_m)]
        if not len(d):
            continue
        tp = d["throughput_kbps"]
        rows.append([label, f"{tp.mean():.1f}", f"{tp.min():.1f}-{tp.max():.1f}",
                     f"{d['retransmission_index'].mean():.2f}", f"{d['link_failures'].mean():.1f}",
                     f"{d['false_failures'].mean():.1f}", f"{d['timeouts'].mean():.1f}",
                     f"{d['rto_time_s'].mean():.1f}", paper])
    head = ["configuration", "kbit/s avg", "min-max", "retx %", "link failures", "false", "RTOs",
            "time in RTO s", "paper (§4.2, §4.4)"]
    return (f"Seed 000 §4.2, simulated: the {ROUTING_HOPS}-hop chain at max cwnd {ROUTING_CWND} (Figs. 8-10); "
            f"{RECEIVER_TEXT[receiver]};\n{READING_TEXT[reading]}.\n"
            f"IF < CS: interference range {IF_RANGE_BELOW_CS_M:g} m (carrier sense 550 m). "
            f"{replicas} replica(s) of {duration:g} s; means per run.\n"
            + text_table(head, rows, align="lrrrrrrrl")
            + "\nlink failures: links a router declared broken (false: the neighbour was still in range).")


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
