"""`hoplab reproduce seed002`: Östergren's experiments (seed 002 §7-§8) as
lab designs, one per experiment, through one result store:

- ``chain``: T_i, one 4 MB transfer over a static ZERO-routed chain of
  1-9 hops for each TCP parameter set (§7.1.1, Fig. 1), and two transfers
  sharing the chain (Table 1);
- ``one-to-four`` and ``overlap``: the scripted experiments (§8.1, §8.2);
- ``waypoint``: random waypoint, 2 and 10 m/s, one and two streams, AODV and
  DSR, Reno and SACK, six window/segment sets, over ``files`` movement files
  per speed (§8.4; the thesis had 10);
- ``www``: one server, five clients, 900 s (§8.6).

Each run becomes one row (`row_of`): per flow its throughput (time to
acknowledge the payload, §7.1), completion, loss rate (§7.2), the oracle's
t_i and the time-weighted shortest path; per run drops by cause and packet
type and each node's time-weighted queue. Expected throughput (Eq. 1) needs
the chains' T_i, so it is computed when the report is made
(`report`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from . import scenarios as S
from .._grid import run_grid
from .expected import measured_kbps

EXPERIMENTS = ("chain", "one-to-four", "overlap", "waypoint", "www")
DEFAULT_FILES = 10  # §8.4: "10 random scenario files was generated for each mean speed"


@dataclass(frozen=True)
class Task:
    """One run: an experiment, its parameters and a seed (a movement file)."""

    exp: str
    seed: int
    routing: str = "static"
    variant: str = "reno"
    mss: int = 512
    window: int = 8
    hops: int = 0  # chain length
    streams: int = 1
    speed: float = 0.0  # mean speed (waypoint, www)
    reading: str = "ns2"  # S.READING_TEXT

    @property
    def tcp(self) -> S.Tcp:
        return S.Tcp(self.variant, self.mss, self.window)

    def scenario(self) -> dict[str, Any]:
        if self.exp == "chain":
            s = S.chain(self.hops, self.tcp, self.streams)
        elif self.exp == "one-to-four":
            s = S.one_to_four(self.routing, self.tcp)
        elif self.exp == "overlap":
            s = S.overlap(self.routing, self.tcp)
        elif self.exp == "waypoint":
            s = S.waypoint(self.speed, self.routing, self.tcp, self.streams)
        elif self.exp == "www":
            s = S.www(self.speed, self.routing, self.window)
        else:
            raise ValueError(f"unknown seed002 experiment {self.exp!r}")
        s["seed"] = self.seed
        return S.read_as(s, self.reading)


def tasks(exp: str, files: int = DEFAULT_FILES, readings: tuple[str, ...] = ("ns2",)) -> list[Task]:
    """Every run of one experiment, in a fixed order, for each reading."""
    return [replace(t, reading=r) for r in readings for t in _tasks(exp, files)]


def _tasks(exp: str, files: int) -> list[Task]:
    sets = S.tcp_sets()
    if exp == "chain":
        return [Task("chain", 1, variant=t.variant, mss=t.mss, window=t.window, hops=h, streams=n)
                for n in (1, 2) for t in sets for h in range(1, S.MAX_CHAIN_HOPS + 1)]
    if exp in ("one-to-four", "overlap"):
        return [Task(exp, 1, routing=r, variant=t.variant, mss=t.mss, window=t.window)
                for r in S.ROUTINGS for t in sets]
    if exp == "waypoint":
        return [Task("waypoint", f, routing=r, variant=t.variant, mss=t.mss, window=t.window, streams=n, speed=v)
                for f in range(1, files + 1) for v in S.SPEEDS_MPS for n in (1, 2) for r in S.ROUTINGS
                for t in sets]
    if exp == "www":
        return [Task("www", f, routing=r, mss=512, window=w, streams=S.WWW_CLIENTS, speed=v)
                for f in range(1, files + 1) for v in S.SPEEDS_MPS for r in S.ROUTINGS for w in S.WWW_WINDOWS]
    raise ValueError(f"unknown seed002 experiment {exp!r}")


def _hops_text(d: dict[int, float]) -> str:
    return " ".join(f"{h}:{t:.6g}" for h, t in sorted(d.items()))


def parse_hops(text: Any) -> dict[int, float]:
    """The inverse of the t_i column's encoding, ``"1:5 2:20"``."""
    if not isinstance(text, str) or not text.strip():
        return {}
    return {int(h): float(t) for h, t in (p.split(":") for p in text.split())}


def _shortest_mean(t: dict[int, float]) -> float:
    """Time-weighted shortest path while one existed (§8.4's "optimal path length")."""
    linked = {h: s for h, s in t.items() if h > 0}
    total = sum(linked.values())
    return sum(h * s for h, s in linked.items()) / total if total > 0 else float("nan")


def _flow_cols(k: int, f: Any, thr: float, oracle: pd.DataFrame) -> dict[str, Any]:
    rows = oracle[oracle.flow == f.flow]
    t = {int(h): float(s) for h, s in zip(rows.hops, rows.time_s)}
    return {
        f"thr{k}_kbps": float(thr),
        f"done{k}": bool(f.completed),
        f"completion{k}_s": float(f.completion_s),
        f"loss{k}": float(f.loss_rate),
        f"timeouts{k}": int(f.timeouts),
        f"route_changes{k}": int(f.route_changes),
        f"t{k}": _hops_text(t),
        f"opt_hops{k}": _shortest_mean(t),
    }


def _www_cols(res: Any) -> dict[str, Any]:
    d = res.downloads
    done = d[d.completed.astype(bool)]
    kbps = (done.bytes * 8 / (done.end_s - done.start_s) / 1000.0).where(done.end_s > done.start_s)
    per = [f"{int(r.flow)}/{int(r.download)}:{int(r.bytes)}:{k:.6g}" for r, k in zip(done.itertuples(), kbps)]
    return {"downloads": int(len(d)), "downloads_done": int(len(done)), "dl_kbps": " ".join(per)}


def row_of(task: Task, res: Any) -> dict[str, Any]:
    """One run's row (from a `Result` or a run read back from the store)."""
    row: dict[str, Any] = {"exp": task.exp, "reading": task.reading, "seed": task.seed, "routing": task.routing,
                           "variant": task.variant,
                           "mss": task.mss, "window": task.window, "hops": task.hops, "streams": task.streams,
                           "speed": task.speed}
    flows = res.flows
    oracle = res.oracle_paths
    if task.exp == "www":
        row.update(_www_cols(res))
        t_by_flow = {}
        for f in flows.itertuples():
            rows = oracle[oracle.flow == f.flow]
            t_by_flow[int(f.flow)] = _hops_text({int(h): float(s) for h, s in zip(rows.hops, rows.time_s)})
        row["t_flows"] = "|".join(f"{k}={v}" for k, v in sorted(t_by_flow.items()))
    else:
        thr = measured_kbps(flows)
        for k, (f, x) in enumerate(zip(flows.itertuples(), thr), start=1):
            if k > 2:
                break
            row.update(_flow_cols(k, f, x, oracle))
    drops = res.drops
    row["drops"] = " ".join(f"{r.reason}/{r.packet_type}:{int(r.count)}"
                            for r in drops.groupby(["reason", "packet_type"], as_index=False)["count"].sum().itertuples())
    row["ifq"] = " ".join(f"{int(n.node)}:{float(n.ifq_mean):.6g}" for n in res.nodes.itertuples())
    return row


COLUMNS = ["exp", "reading", "seed", "routing", "variant", "mss", "window", "hops", "streams", "speed",
           "thr1_kbps", "done1", "completion1_s", "loss1", "timeouts1", "route_changes1", "t1", "opt_hops1",
           "thr2_kbps", "done2", "completion2_s", "loss2", "timeouts2", "route_changes2", "t2", "opt_hops2",
           "downloads", "downloads_done", "dl_kbps", "t_flows", "drops", "ifq"]


def describe(r: dict[str, Any]) -> str:
    what = {"chain": f"{r['hops']} hops x{r['streams']}", "waypoint": f"{r['speed']:g} m/s x{r['streams']}",
            "www": f"{r['speed']:g} m/s"}.get(r["exp"], "")
    head = (f"{r['exp']} {what} {r['routing']} {r['variant']} {r['mss']} B w{r['window']} seed {r['seed']} "
            f"({r['reading']})")
    if r["exp"] == "www":
        return f"{head}: {r['downloads_done']}/{r['downloads']} downloads"
    return f"{head}: {r['thr1_kbps']:.0f} kbit/s"


def run_experiments(experiments: tuple[str, ...], *, files: int, out: Path | None, jobs: int,
                    progress: Callable[[str], None], readings: tuple[str, ...] = ("ns2",)) -> pd.DataFrame:
    """Run the chosen experiments (the chains first: every expected
    throughput needs their T_i) and return all rows."""
    frames = []
    for exp in EXPERIMENTS:
        if exp != "chain" and exp not in experiments:
            continue
        rows = run_grid(tasks(exp, files, readings), row_of, name=f"seed002-{exp}", columns=COLUMNS, out=out, jobs=jobs,
                        progress=progress, describe=describe, csv_name=f"runs-{exp}.csv")
        frames.append(pd.DataFrame(rows, columns=COLUMNS))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
