"""`hoplab reproduce seed000 --real`: seed 000's chain (1-4 hops, W = 2, 3,
4, unclamped) with real Linux TCP endpoints over the emulated chain
(`hoplab emu`, issue 25), beside the simulated chain with the Linux receiver
and the clamp on the advertised window, and the paper's testbed Table 1.

The chain is the simulated one's (experiment.Task: 200 m spacing, 2 Mbit/s,
RTS/CTS for data) with the same routing, by default the testbed's: AODV-UU
with HELLO link detection, all parameters at their defaults (seed 000 §3).
Real Linux Reno (NewReno with SACK, as the testbed's kernel) is set per
socket; the window clamp is TCP_WINDOW_CLAMP at the receiver with a fixed
receive buffer (the testbed's setting; autotuning would override it).
Replicas are interleaved as the paper's (§3.3: W = 2, 3, 4, unclamped, then
the next replica), replica r with seed r. Needs root.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

import pandas as pd

from ..._toml_emit import dumps
from ...emu.transfer import TransferError, bulk_transfer
from .._framework import Progress, ReproduceError
from . import experiment as rp
from .reference import seed000_testbed

UNCLAMPED = rp.UNCLAMPED_LABEL
WINDOWS = rp.CWNDS
HOPS = rp.HOPS
DEFAULT_ROUTING = rp.DEFAULT_ROUTING
#: Simulated seconds the emulated run may go on after the sender stops: its
#: queues drain, and the run ends as soon as both ends have exited.
DRAIN_S = 20.0
#: A run below this fraction of its cell's median is listed with what happened in it.
OUTLIER = 0.8
#: The shortest transfer (--duration) with --real: TCP's initial RTO is 1 s
#: (RFC 6298 §2.1, Linux's TCP_TIMEOUT_INIT), so a shorter transfer can end
#: before a handshake whose SYN was lost (or waited for a route) completes,
#: and its goodput would measure the handshake, not the chain.
MIN_SECONDS = 1.0
#: The longest: every transfer runs in real time, 16 cells x --replicas of
#: them; an hour each is already two days at the default 3 replicas.
MAX_SECONDS = 3600.0

RUN_COLUMNS = [
    "hops", "max_cwnd", "replica", "goodput_kbps", "sent_kbps", "retransmissions", "timeouts", "timeout_recovery_s",
    "rtt_mean_ms", "acks_per_segment", "ifq_drops", "retry_drops", "route_drops", "link_failures", "hello_failures",
    "discoveries", "lag_episodes", "lateness_p99_us", "fifo",
]
SUMMARY_COLUMNS = [
    "hops", "max_cwnd", "runs", "real_kbps", "real_ci_low_kbps", "real_ci_high_kbps", "real_min_kbps", "real_max_kbps",
    "real_acks_per_segment", "simulated_linux_kbps", "testbed_kbps",
]


def option_problem(seconds: float) -> str | None:
    """Why --duration cannot be a real transfer's length, or None."""
    if seconds < MIN_SECONDS:
        return (f"--duration {seconds:g} s is shorter than a TCP handshake may take with --real (the initial RTO alone "
                f"is {MIN_SECONDS:g} s, RFC 6298): give {MIN_SECONDS:g} to {MAX_SECONDS:g} s per transfer")
    if seconds > MAX_SECONDS:
        return (f"--duration {seconds:g} s is too long for --real: every transfer runs in real time, 16 cells x "
                f"--replicas of them: give {MIN_SECONDS:g} to {MAX_SECONDS:g} s per transfer")
    return None


def task(hops: int, w: int, seconds: float, seed: int, routing: str) -> rp.Task:
    """The simulated chain of `reproduce seed000 --receiver linux --reading standard`."""
    return rp.Task(hops=hops, max_cwnd=w, seed=seed, duration=seconds, receiver="linux", routing=routing,
                   reading="standard")


def real_scenario(hops: int, w: int, seconds: float, seed: int, routing: str) -> str:
    """The same chain as TOML without its flow and TCP: the ends are real."""
    sc = task(hops, w, seconds + DRAIN_S, seed, routing).scenario()
    for key in ("flows", "tcp", "output"):
        sc.pop(key, None)
    sc["name"] = f"seed000-real-{hops}hop-w{w}"
    return dumps(sc)


def real_run(hops: int, w: int, seconds: float, replica: int, routing: str) -> dict[str, Any]:
    """One real transfer of `seconds` over the emulated chain: its row (RUN_COLUMNS)."""
    try:
        r = bulk_transfer(real_scenario(hops, w, seconds, replica, routing), 0, hops, seconds,
                          clamp=w if w != UNCLAMPED else 0)
    except TransferError as e:
        raise ReproduceError(f"{hops} hops, W = {w}: {e}") from None
    send, emu, drops, events = r["send"], r["emu"], r["drops"], r["route_events"]

    def lost(pred: Any) -> int:  # drops of the real packets (TCP data and ACKs)
        return sum(n for k, n in drops.items() if k.split("/")[2] in ("tcp", "ack") and pred(*k.split("/")[:2]))

    return {
        "hops": hops, "max_cwnd": w, "replica": replica, "goodput_kbps": float(r["recv"]["goodput_kbps"]),
        "sent_kbps": float(send["goodput_kbps"]), "retransmissions": int(send["retransmissions"]),
        "timeouts": send.get("timeouts"), "timeout_recovery_s": send.get("timeout_recovery_s"),
        "rtt_mean_ms": float(send["rtt_mean_ms"]),
        "ifq_drops": lost(lambda layer, reason: layer == "IFQ"),
        "retry_drops": lost(lambda layer, reason: reason == "RET"),
        "route_drops": lost(lambda layer, reason: layer == "RTR"),
        "link_failures": sum(n for k, n in events.items() if k.startswith("link_broken/")),
        "hello_failures": events.get("link_broken/hello", 0),
        "discoveries": sum(n for k, n in events.items() if k.startswith("discovery_started/")),
        "acks_per_segment": r["segments"][1] / r["segments"][0] if r["segments"][0] else math.nan,
        "lag_episodes": int(emu["lag_episodes"]), "lateness_p99_us": float(emu["lateness_p99_us"]),
        "fifo": r["fifo"] is None,
    }


def simulated_goodput(hops: int, w: int, seconds: float, seed: int, routing: str) -> float:
    from ..._run import run

    return float(run(task(hops, w, seconds, seed, routing).scenario(), seed=seed).flows.throughput_kbps[0])


def t_interval(values: list[float]) -> tuple[float, float]:
    """The 95 % t confidence interval of the mean; NaN for fewer than two values."""
    n = len(values)
    if n < 2:
        return math.nan, math.nan
    from scipy import stats

    half = float(stats.t.ppf(0.975, n - 1)) * statistics.stdev(values) / math.sqrt(n)
    m = statistics.mean(values)
    return m - half, m + half


def run_real(*, replicas: int, seconds: float, progress: Progress,
             routing: str = DEFAULT_ROUTING) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per (hops, W): real, simulated and testbed goodput; one row per real run)."""
    from ..._extras import require

    require("stats", "reproduce seed000 --real's confidence intervals", modules=("scipy",))
    if routing not in rp.ROUTINGS:
        raise ReproduceError(f"unknown routing {routing!r} (one of {', '.join(rp.ROUTINGS)})")
    runs = []
    for hops in HOPS:
        for replica in range(1, replicas + 1):  # interleaved as the paper's
            for w in WINDOWS:
                progress(f"seed000 --real: {hops} hop(s), run {replica}/{replicas}, W = {_w(w)}")
                runs.append(real_run(hops, w, seconds, replica, routing))
    runs_df = pd.DataFrame(runs, columns=RUN_COLUMNS)
    tb = seed000_testbed()
    rows = []
    for hops in HOPS:
        for w in WINDOWS:
            cell = runs_df[(runs_df.hops == hops) & (runs_df.max_cwnd == w)]
            real = list(cell.goodput_kbps)
            sim = [simulated_goodput(hops, w, seconds, s, routing) for s in range(1, max(replicas, 3) + 1)]
            t = tb[(tb.table == _table(routing)) & (tb.scenario == f"{hops}-hop") & (tb.max_cwnd == w)] if tb is not None else None
            lo, hi = t_interval(real)
            rows.append({"hops": hops, "max_cwnd": w, "runs": len(real), "real_kbps": statistics.mean(real),
                         "real_ci_low_kbps": lo, "real_ci_high_kbps": hi, "real_min_kbps": min(real),
                         "real_max_kbps": max(real), "real_acks_per_segment": float(cell.acks_per_segment.mean()),
                         "simulated_linux_kbps": statistics.mean(sim),
                         "testbed_kbps": float(t.avg.iloc[0]) if t is not None and len(t) else float("nan")})
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS), runs_df


def _table(routing: str) -> int:
    """The paper's testbed throughput table: 3 for OLSR, else 1 (AODV)."""
    return 3 if routing == "olsr" else 1


def _w(w: int) -> str:
    return "unclamped" if w == UNCLAMPED else str(w)


def _share(part: float, best: float) -> str:
    """`part` as a percentage of `best`; what happened instead when nothing went through."""
    return "n/a (no traffic)" if not best > 0 else f"{part / best:.1%}"


def _ci(lo: float, hi: float) -> str:
    return "" if math.isnan(lo) else f"[{lo:.0f}, {hi:.0f}]"


def outliers(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs below OUTLIER x their cell's median goodput."""
    runs = runs.assign(cell_median_kbps=runs.groupby(["hops", "max_cwnd"]).goodput_kbps.transform("median"))
    return runs[runs.goodput_kbps < OUTLIER * runs.cell_median_kbps]


def _what_happened(r: Any) -> str:
    rto = ("timeouts n/a (Linux < 6.7)" if r.timeouts is None or pd.isna(r.timeouts)
           else f"{int(r.timeouts)} RTO(s), {r.timeout_recovery_s:.1f} s recovering")
    return (f"{rto}, {r.retransmissions} retransmission(s); relays: {r.ifq_drops} queue-full and {r.retry_drops} "
            f"retry-limit drops, {r.route_drops} routing drops, {r.link_failures} link failure(s) declared "
            f"({r.hello_failures} by missed HELLOs), "
            f"{r.discoveries} route discovery(ies); emulator: {r.lag_episodes} lag episode(s), "
            f"lateness p99 {r.lateness_p99_us:.0f} us")


def report(df: pd.DataFrame, runs: pd.DataFrame, *, replicas: int, seconds: float,
           routing: str = DEFAULT_ROUTING) -> str:
    fifo = int(runs.fifo.sum())
    lines = [f"Seed 000 with real Linux endpoints: Reno (NewReno + SACK), {replicas} run(s) of {seconds:g} s per cell, "
             "interleaved as the paper's (W = 2, 3, 4, unclamped, then again; run r with seed r); relays: "
             f"{rp.ROUTING_TEXT.get(routing, routing)}.",
             "real = mean, 95 % t interval, min-max, and the receiver's pure ACKs per data segment; simulated = "
             "Linux receiver, same chain and routing, mean of "
             f"{max(replicas, 3)} seeds; testbed = the paper's Table {_table(routing)} "
             f"({'OLSR' if _table(routing) == 3 else 'AODV'}). kbit/s.",
             "", f"{'hops':>4} {'W':>9} {'real':>6} {'95 % CI':>13} {'min-max':>11} {'ACKs/seg':>8} {'simulated':>10} "
             f"{'testbed':>8}"]
    for r in df.itertuples():
        lines.append(f"{r.hops:>4} {_w(r.max_cwnd):>9} {r.real_kbps:>6.0f} {_ci(r.real_ci_low_kbps, r.real_ci_high_kbps):>13} "
                     f"{f'{r.real_min_kbps:.0f}-{r.real_max_kbps:.0f}':>11} {r.real_acks_per_segment:>8.2f} "
                     f"{r.simulated_linux_kbps:>10.0f} "
                     f"{r.testbed_kbps:>8.0f}")
    lines.append("")
    for hops in HOPS[1:]:
        d = df[df.hops == hops].set_index("max_cwnd")
        best = int(d.real_kbps.idxmax())
        lines.append(f"{hops} hops: the best real window is {_w(best)}"
                     f" (W = 2 at {_share(d.real_kbps[2], d.real_kbps.max())} of the best; simulated Linux receiver: "
                     f"{_share(d.simulated_linux_kbps[2], d.simulated_linux_kbps.max())})")
    low = outliers(runs)
    if len(low):
        lines += ["", f"Runs below {OUTLIER:.0%} of their cell's median:"]
        for r in low.itertuples():
            lines.append(f"  {r.hops} hop(s), W = {_w(r.max_cwnd)}, run {r.replica}: {r.goodput_kbps:.0f} kbit/s "
                         f"(median {r.cell_median_kbps:.0f}): {_what_happened(r)}")
    lines += ["", f"Emulator: SCHED_FIFO granted in {fifo} of {len(runs)} runs; {int(runs.lag_episodes.sum())} lag "
              f"episode(s) in all; write lateness p99 at most {runs.lateness_p99_us.max():.0f} us."]
    return "\n".join(lines)
