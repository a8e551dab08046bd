"""`hoplab reproduce seed003`: seed 003's route-break runs (Papanastasiou et
al.): one FTP/TCP Reno flow over the chain A-E while E walks away from D,
with AODV-UU, DSR-UU and OOLSR, and OOLSR with a 3 s TC interval and with
immediate TC (Table 4). For each: the delivery outage at the break (last
data over the old path to first data over the new one), time in RTO,
timeouts, throughput, and the paper's figures beside them."""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from .._grid import run_grid
from ..._resources import example_text
from ..._run import run
from ..._table import text_table
from .timeline import outage

# (label, protocol, preset, overrides, paper outage s, paper time in RTO s)
# Outages are seed 003's §3-§5 readings (AODV ~3 s, DSR ~2 s, OLSR: the
# 35-55 s inactivity); times in RTO are its Table 4 (OLSR only).
CONFIGS: list[tuple[str, str, str, dict[str, Any], str, str]] = [
    ("AODV-UU", "aodv", "aodv-uu", {}, "~3", "-"),
    ("DSR-UU", "dsr", "dsr-uu", {}, "~2", "-"),
    ("OOLSR, TC 5 s, periodic", "olsr", "oolsr", {}, "~20", "55.57"),
    ("OOLSR, TC 5 s, immediate", "olsr", "oolsr", {"immediate_tc": True}, "-", "41.07"),
    ("OOLSR, TC 3 s, periodic", "olsr", "oolsr", {"tc_interval_s": 3.0}, "-", "41.26"),
    ("OOLSR, TC 3 s, immediate", "olsr", "oolsr", {"tc_interval_s": 3.0, "immediate_tc": True}, "-", "40.38"),
]
BREAK_AFTER_S = 34.0  # E starts at 30 s and leaves D's 250 m at 35 s


def base_scenario() -> dict[str, Any]:
    """The packaged examples/route_break.toml as a dict."""
    return copy.deepcopy(_base())


@lru_cache(maxsize=1)
def _base() -> dict[str, Any]:
    return tomllib.loads(example_text("route_break"))


@dataclass(frozen=True)
class Task:
    """One replica of one configuration of CONFIGS."""

    config: int  # index into CONFIGS
    seed: int

    @property
    def label(self) -> str:
        return CONFIGS[self.config][0]

    def scenario(self) -> dict[str, Any]:
        _, proto, preset, over, _, _ = CONFIGS[self.config]
        s = copy.deepcopy(base_scenario())
        s["routing"] = {"protocol": proto, "preset": preset, **({proto: over} if over else {})}
        s["seed"] = self.seed
        return s


def row_of(task: Task, res: Any) -> dict[str, Any]:
    """The row of one replica from its result (a `Result` or a run read back from the store)."""
    f = res.flows.iloc[0]
    o = outage(res, 0, BREAK_AFTER_S)
    return {
        "config": task.label,
        "seed": task.seed,
        "outage_s": o["outage_s"] if o else float("nan"),
        "new_path_hops": o["hops"] if o else 0,
        "new_path_at_s": o["new_path_s"] if o else float("nan"),
        "rto_time_s": float(f.rto_time_s),
        "timeouts": int(f.timeouts),
        "throughput_kbps": float(f.throughput_kbps),
        "route_changes": int(f.route_changes),
    }


def run_config(base: dict[str, Any], proto: str, preset: str, over: dict[str, Any], seed: int) -> dict[str, Any]:
    s = copy.deepcopy(base)
    s["routing"] = {"protocol": proto, "preset": preset, **({proto: over} if over else {})}
    i = next(i for i, c in enumerate(CONFIGS) if c[1:4] == (proto, preset, over))
    row = row_of(Task(i, seed), run(s, seed=seed))
    del row["config"]
    return row


COLUMNS = ["config", "seed", "outage_s", "new_path_hops", "new_path_at_s", "rto_time_s", "timeouts",
           "throughput_kbps", "route_changes"]


# A single run's outage depends on where the HELLO and TCP timers stand when
# the link breaks and on false failures just before it; 20 seeds separate
# the protocols' typical outages from that noise.
DEFAULT_REPLICAS = 20


def run_all(replicas: int, progress: Callable[[str], None], *, out: Path | None = None,
            jobs: int = 1) -> pd.DataFrame:
    """Every configuration x seeds 1..replicas, as a lab design through a
    result store (with ``out``: ``out/store``, resumable; `papers._grid`)."""
    tasks = [Task(i, seed) for seed in range(1, replicas + 1) for i in range(len(CONFIGS))]

    def describe(r: dict[str, Any]) -> str:
        return f"{r['config']} seed {r['seed']}: outage {r['outage_s']:.2f} s, RTO {r['rto_time_s']:.1f} s"

    rows = run_grid(tasks, row_of, name="seed003", columns=COLUMNS, out=out, jobs=jobs, progress=progress,
                    describe=describe)
    order = {c[0]: i for i, c in enumerate(CONFIGS)}
    df = pd.DataFrame(rows, columns=COLUMNS)
    return df.sort_values(["config", "seed"], key=lambda c: c.map(order) if c.name == "config" else c,
                          kind="stable").reset_index(drop=True)


def report(runs: pd.DataFrame) -> str:
    rows = []
    for label, _, _, _, paper_out, paper_rto in CONFIGS:
        d = runs[runs.config == label]
        rows.append([label, f"{d.outage_s.mean():.2f}", f"{d.outage_s.median():.2f}",
                     f"{d.outage_s.min():.2f}-{d.outage_s.max():.2f}", paper_out,
                     f"{d.rto_time_s.mean():.1f}", paper_rto, f"{d.timeouts.mean():.1f}",
                     f"{d.throughput_kbps.mean():.1f}", f"{d.route_changes.mean():.1f}",
                     f"{(d.new_path_hops == 5).mean() * 100:.0f}%"])
    head = ["configuration", "outage s mean", "median", "min-max", "paper", "time in RTO s", "paper T4", "RTOs", "kbit/s",
            "route changes", "via F"]
    return ("Seed 003 route break (A-B-C-D-E, E leaves D at 35 s; flat 250 m; Reno, no delayed ACK; 100 s)\n"
            + text_table(head, rows, align="lrrrrrrrrrr")
            + "\noutage: last data over the old path to first data over the new one (at E).\n"
              "paper: seed 003's §3-5 readings of its figures; T4: its Table 4 (OLSR only).")
