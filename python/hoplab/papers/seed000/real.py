"""`hoplab reproduce seed000 --real`: seed 000's chain (1-4 hops, W = 2, 3,
4, unclamped) with real Linux TCP endpoints over the emulated chain
(`hoplab emu`, issue 25), beside the simulated chain with the Linux receiver
and the clamp on the advertised window, and the paper's testbed Table 1.

Real Linux Reno (NewReno with SACK, as the testbed's kernel) is set per
socket; the window clamp is TCP_WINDOW_CLAMP at the receiver with a fixed
receive buffer (the testbed's setting; autotuning would override it).
The emulated relays use static routes (no routing traffic). Needs root.
"""

from __future__ import annotations

import statistics

import pandas as pd

from ...emu.transfer import TransferError, bulk_transfer
from .._framework import Progress, ReproduceError
from .reference import seed000_testbed

UNCLAMPED = 32
WINDOWS = (2, 3, 4, UNCLAMPED)
HOPS = (1, 2, 3, 4)

CHAIN = """name = "seed000-real"
duration_s = {duration}
[topology]
kind = "chain"
nodes = {nodes}
spacing_m = 200.0
[mac]
data_rate_mbps = 2.0
basic_rate_mbps = 1.0
rts_threshold_bytes = 100
"""
def real_goodput(hops: int, w: int, seconds: float) -> float:
    """One real transfer of `seconds` over the emulated chain: the receiver's goodput in kbit/s."""
    # The run ends when both ends have; the margin lets the sender's queues drain.
    try:
        r = bulk_transfer(CHAIN.format(duration=seconds + 20, nodes=hops + 1), 0, hops, seconds,
                          clamp=w if w != UNCLAMPED else 0)
    except TransferError as e:
        raise ReproduceError(f"{hops} hops, W = {w}: {e}") from None
    return float(r["recv"]["goodput_kbps"])


def simulated_goodput(hops: int, w: int, seconds: float, seed: int) -> float:
    import hoplab

    tcp = f'[tcp]\nvariant = "new_reno"\nreceiver = "linux"\nclamp = "receiver"\nmax_cwnd = {0 if w == UNCLAMPED else w}\n'
    flow = f'[[flows]]\nkind = "ftp"\nsrc = 0\ndst = {hops}\n'
    return float(hoplab.run(CHAIN.format(duration=seconds, nodes=hops + 1) + tcp + flow, seed=seed).flows.throughput_kbps[0])


def run_real(*, replicas: int, seconds: float, progress: Progress) -> pd.DataFrame:
    """One row per (hops, W): real, simulated and testbed goodput."""
    tb = seed000_testbed()
    rows = []
    for hops in HOPS:
        for w in WINDOWS:
            progress(f"seed000 --real: {hops} hop(s), W = {'unclamped' if w == UNCLAMPED else w}")
            real = [real_goodput(hops, w, seconds) for _ in range(replicas)]
            sim = [simulated_goodput(hops, w, seconds, s) for s in range(1, max(replicas, 3) + 1)]
            t = tb[(tb.table == 1) & (tb.scenario == f"{hops}-hop") & (tb.max_cwnd == w)] if tb is not None else None
            rows.append({"hops": hops, "max_cwnd": w, "real_kbps": statistics.mean(real), "real_min_kbps": min(real),
                         "real_max_kbps": max(real), "simulated_linux_kbps": statistics.mean(sim),
                         "testbed_kbps": float(t.avg.iloc[0]) if t is not None and len(t) else float("nan")})
    return pd.DataFrame(rows)


def report(df: pd.DataFrame, *, replicas: int, seconds: float) -> str:
    lines = [f"Seed 000 with real Linux endpoints: Reno (NewReno + SACK), {replicas} run(s) of {seconds:g} s per cell; "
             "simulated = Linux receiver, clamp on the advertised window; testbed = the paper's Table 1 (AODV). kbit/s.",
             "", f"{'hops':>4} {'W':>9} {'real':>8} {'simulated':>10} {'testbed':>8}"]
    for r in df.itertuples():
        w = "unclamped" if r.max_cwnd == UNCLAMPED else str(r.max_cwnd)
        lines.append(f"{r.hops:>4} {w:>9} {r.real_kbps:>8.0f} {r.simulated_linux_kbps:>10.0f} {r.testbed_kbps:>8.0f}")
    lines.append("")
    for hops in HOPS[1:]:
        d = df[df.hops == hops].set_index("max_cwnd")
        best = int(d.real_kbps.idxmax())
        lines.append(f"{hops} hops: the best real window is {'unclamped' if best == UNCLAMPED else best}"
                     f" (W = 2 at {d.real_kbps[2] / d.real_kbps.max():.1%} of the best; simulated Linux receiver: "
                     f"{d.simulated_linux_kbps[2] / d.simulated_linux_kbps.max():.1%})")
    return "\n".join(lines)
