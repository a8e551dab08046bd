"""Reproductions of the seeds' experiments.

`seed000`: the simulation half of seed 000 §4.1 (Anastasi et al.) —
throughput and retransmission index of one FTP/TCP NewReno flow over 1-4
hop chains versus the maximum congestion window (2, 3, 4, unclamped).
"""

from __future__ import annotations

import csv
import io
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

import pandas as pd

from . import _io, scenario
from ._reference import seed000_testbed
from ._table import text_table
from .result import READ_CSV_KW

HOPS = (1, 2, 3, 4)
# The paper's columns: W = 2, 3, 4 and "32", which it uses as the label of
# the unclamped window ("In the plots below the latter case is referred to as
# window size equal to 32", seed 000 §4.1). We run that column unclamped
# (max_cwnd = 0 in the scenario schema), so only the receiver's advertised
# window bounds it (tcp.receive_window, 65535 bytes = 44 segments by default,
# as a Linux stack of the time without window scaling), and keep the label 32.
CWNDS = (2, 3, 4, 32)
UNCLAMPED_LABEL = 32

RUN_COLUMNS = [
    "hops", "max_cwnd", "seed", "duration_s", "linux_acks", "delayed_ack",
    "throughput_kbps", "retransmission_index", "loss_rate", "rtt_mean_ms", "rtt_std_ms",
    "timeouts", "stream_errors", "events", "wall_s", "event_hash",
]
KEY = ("hops", "max_cwnd", "seed", "duration_s", "linux_acks")


class ReproduceError(RuntimeError):
    """An error the CLI reports as `hoplab: error: ...`."""


@dataclass(frozen=True)
class Task:
    hops: int
    max_cwnd: int  # the paper's label; 32 means unclamped
    seed: int
    duration: float
    linux_acks: bool

    @property
    def delayed_ack(self) -> bool:
        # Seed 000 §4.1: ns-2's receiver ACKs every other segment (delayed
        # ACKs); the Linux receiver of the testbed ACKs every segment when
        # the window is clamped to 2. --linux-acks models that (the paper's
        # second ns-2 experiment): delayed ACKs off at max cwnd 2 only.
        return not (self.linux_acks and self.max_cwnd == 2)

    def key(self) -> tuple:
        return (self.hops, self.max_cwnd, self.seed, float(self.duration), bool(self.linux_acks))

    def scenario(self) -> dict[str, Any]:
        clamp = 0 if self.max_cwnd == UNCLAMPED_LABEL else self.max_cwnd
        tcp = dict(scenario.SEED000_TCP, max_cwnd=clamp, delayed_ack=self.delayed_ack)
        # Chain of hops+1 nodes 200 m apart: only neighbours decode each
        # other (250 m range), nodes two hops apart still sense each other
        # (550 m carrier sense) — the default two-ray-ground radio.
        return scenario.chain(self.hops, 200.0, duration=self.duration, seed=self.seed,
                              mac=dict(scenario.SEED000_MAC), tcp=tcp,
                              routing={"protocol": "static"}, timeseries=False,
                              name=f"seed000-{self.hops}hop-w{self.max_cwnd}")


def run_task(task: Task) -> dict[str, Any]:
    """Run one replica (in a worker process) and return its row."""
    from ._run import run

    res = run(task.scenario(), seed=task.seed)
    f = res.flows.iloc[0]
    return {
        "hops": task.hops, "max_cwnd": task.max_cwnd, "seed": task.seed,
        "duration_s": float(task.duration), "linux_acks": bool(task.linux_acks),
        "delayed_ack": task.delayed_ack,
        "throughput_kbps": float(f.throughput_kbps),
        "retransmission_index": float(f.retransmission_index),
        "loss_rate": float(f.loss_rate), "rtt_mean_ms": float(f.rtt_mean_ms),
        "rtt_std_ms": float(f.rtt_std_ms), "timeouts": int(f.timeouts),
        "stream_errors": int(f.stream_errors), "events": int(res.info["events"]),
        "wall_s": float(res.info["wall_s"]), "event_hash": f"{int(res.info['event_hash']):016x}",
    }


def _row_line(row: dict[str, Any]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([row[c] for c in RUN_COLUMNS])
    return buf.getvalue()


def _load_done(runs_csv: Path) -> dict[tuple, dict[str, Any]]:
    """Rows already in runs.csv, by key (a run interrupted earlier resumes)."""
    done: dict[tuple, dict[str, Any]] = {}
    if not runs_csv.exists() or runs_csv.stat().st_size == 0:
        return done
    try:
        df = pd.read_csv(runs_csv, dtype={"event_hash": str}, **READ_CSV_KW)
    except (pd.errors.ParserError, pd.errors.EmptyDataError):
        return done
    if list(df.columns) != RUN_COLUMNS:
        return done
    for row in df.to_dict("records"):
        row["linux_acks"] = str(row["linux_acks"]).lower() == "true"
        key = (int(row["hops"]), int(row["max_cwnd"]), int(row["seed"]), float(row["duration_s"]), row["linux_acks"])
        done[key] = row
    return done


def run_seed000(*, replicas: int = 5, duration: float = 120.0, linux_acks: bool = False,
                out: Path | None = None, jobs: int = 2, hops: Iterable[int] = HOPS,
                cwnds: Iterable[int] = CWNDS,
                progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Run every (hops, max cwnd, replica) and return one row per run.

    With ``out``, each finished run is appended to ``out/runs.csv`` at once
    (a crash loses nothing), and runs already there are reused.
    """
    tasks = [Task(h, w, s, float(duration), bool(linux_acks))
             for s in range(1, replicas + 1) for h in hops for w in cwnds]
    rows: list[dict[str, Any]] = []
    runs_csv = None
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        runs_csv = out / "runs.csv"
        done = _load_done(runs_csv)
        if runs_csv.exists() and runs_csv.stat().st_size > 0 and not done and \
                runs_csv.read_text().splitlines()[0] != ",".join(RUN_COLUMNS):
            raise ReproduceError(f"{runs_csv} exists with other columns; choose another --out")
        if not runs_csv.exists() or runs_csv.stat().st_size == 0:
            _io.append_line(runs_csv, ",".join(RUN_COLUMNS))
        reused = [done[t.key()] for t in tasks if t.key() in done]
        rows.extend(reused)
        if reused and progress:
            progress(f"reusing {len(reused)} finished runs from {runs_csv}")
        tasks = [t for t in tasks if t.key() not in done]

    total = len(tasks)

    def finished(i: int, row: dict[str, Any]) -> None:
        rows.append(row)
        if runs_csv is not None:
            _io.append_line(runs_csv, _row_line(row))
        if progress:
            progress(f"[{i}/{total}] {row['hops']}-hop W={row['max_cwnd']} seed {row['seed']}: "
                     f"{row['throughput_kbps']:.1f} kbit/s, retx {row['retransmission_index']:.2f} %")

    if jobs <= 1 or total <= 1:
        for i, t in enumerate(tasks, 1):
            finished(i, run_task(t))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(run_task, t) for t in tasks]
            for i, fut in enumerate(as_completed(futures), 1):
                finished(i, fut.result())
    df = pd.DataFrame(rows, columns=RUN_COLUMNS)
    return df.sort_values(["hops", "max_cwnd", "seed"]).reset_index(drop=True)


def aggregate(runs: pd.DataFrame, metric: str) -> pd.DataFrame:
    """avg, min and max of ``metric`` per (hops, max_cwnd)."""
    g = runs.groupby(["hops", "max_cwnd"])[metric]
    return pd.DataFrame({"avg": g.mean(), "min": g.min(), "max": g.max(), "n": g.count()}).reset_index()


def _cell(avg: float, lo: float, hi: float, digits: int) -> tuple[str, str]:
    return f"{avg:.{digits}f}", f"{lo:.{digits}f}-{hi:.{digits}f}"


def paper_shaped_table(agg: pd.DataFrame, *, scenario_col: str, digits: int,
                       cwnds: Iterable[int] = CWNDS) -> str:
    """Rows 1-hop..4-hop, for each W an avg and a min-max column (seed 000 Tables 1-4)."""
    cwnds = list(cwnds)
    headers = ["Scenario"]
    for w in cwnds:
        headers += [f"W={w} avg", "min-max"]
    rows = []
    for scen in sorted(agg[scenario_col].unique(), key=lambda s: (len(str(s)), str(s))):
        r = [str(scen)]
        for w in cwnds:
            m = agg[(agg[scenario_col] == scen) & (agg["max_cwnd"] == w)]
            r += list(_cell(m["avg"].iloc[0], m["min"].iloc[0], m["max"].iloc[0], digits)) if len(m) else ["-", "-"]
        rows.append(r)
    return text_table(headers, rows)


def report_seed000(runs: pd.DataFrame, *, replicas: int, duration: float, linux_acks: bool) -> str:
    out = []
    acks = ("delayed ACKs on, except off at max cwnd 2 (--linux-acks: the Linux testbed's receiver)"
            if linux_acks else "delayed ACKs on (ns-2's receiver: one ACK every other segment)")
    out.append("Seed 000 §4.1, simulated: one FTP flow (TCP NewReno, 1460 B) over a chain, nodes 200 m apart,\n"
               "two-ray ground (250 m tx / 550 m carrier sense), 2 Mbit/s data / 1 Mbit/s basic, RTS/CTS > 100 B,\n"
               f"static routing; {acks}.\n"
               f"{replicas} replica(s) of {duration:g} s (seeds 1..{replicas}); avg and min-max over replicas.\n"
               "W=32 is the unclamped window (the paper's label).")
    runs = runs.assign(scenario=runs["hops"].map(lambda h: f"{h}-hop"))
    for title, metric, digits in (("Table 1 (simulated). Throughput (kbit/s) vs. maximum cwnd", "throughput_kbps", 1),
                                  ("Table 2 (simulated). Retransmission index (%) vs. maximum cwnd",
                                   "retransmission_index", 2)):
        agg = aggregate(runs, metric).merge(runs[["hops", "scenario"]].drop_duplicates(), on="hops")
        out += ["", title, paper_shaped_table(agg, scenario_col="scenario", digits=digits)]
    bad = runs[runs["stream_errors"] > 0]
    if len(bad):
        out += ["", f"WARNING: {len(bad)} run(s) delivered a byte stream with gaps or reordering (stream_errors > 0)."]
    ref = seed000_testbed()
    out += ["", "For context: seed 000's TESTBED measurements (real laptops, Linux 2.6.12, AODV-UU, indoor; "
            "NOT ns-2),", "5 replicas of 120 s; values as printed in the paper, min-max put in order."]
    if ref is None:
        out.append("(data/seed000_tables1-4.csv not found)")
    else:
        ref = ref[ref["scenario"].isin([f"{h}-hop" for h in HOPS])]
        for table, title, digits in ((1, "Testbed Table 1. Throughput (kbit/s), AODV", 1),
                                     (2, "Testbed Table 2. Retransmission index (%), AODV", 2)):
            t = ref[ref["table"] == table]
            agg = pd.DataFrame({"scenario": t["scenario"], "max_cwnd": t["max_cwnd"], "avg": t["avg"],
                                "min": t[["min", "max"]].min(axis=1), "max": t[["min", "max"]].max(axis=1)})
            out += ["", title, paper_shaped_table(agg, scenario_col="scenario", digits=digits)]
    return "\n".join(out)


def summary_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (hops, max_cwnd) with avg/min/max of both metrics."""
    a = aggregate(runs, "throughput_kbps").add_prefix("throughput_").rename(
        columns={"throughput_hops": "hops", "throughput_max_cwnd": "max_cwnd"})
    b = aggregate(runs, "retransmission_index").add_prefix("retx_").rename(
        columns={"retx_hops": "hops", "retx_max_cwnd": "max_cwnd"})
    return a.merge(b, on=["hops", "max_cwnd"])


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
