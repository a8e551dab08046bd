"""Real Linux TCP over the emulated 3-hop chain against the simulated chain
(issue 25's done-when): CUBIC and Reno, RUNS runs each, against the chain's
simulated UDP saturation goodput; and Reno with SACK off and a 2-segment
clamp against simulated Reno with the Linux receiver and the same clamp.
Needs root (hoplab emu). Prints a markdown table; ~3 minutes.

    python validation/emu_chain.py [--runs 5] [--seconds 5]
"""

from __future__ import annotations

import argparse
import statistics

import hoplab
from hoplab.emu.transfer import bulk_transfer

CHAIN = """name = "emu-3hop"
duration_s = {duration}
[topology]
kind = "chain"
nodes = 4
spacing_m = 200.0
[mac]
data_rate_mbps = 2.0
basic_rate_mbps = 1.0
rts_threshold_bytes = 100
"""

def real(cc: str, seconds: float, sack: str = "on", clamp: int = 0, realtime: bool = True) -> dict:
    r = bulk_transfer(CHAIN.format(duration=seconds + 15), 0, 3, seconds, cc=cc, sack=sack, clamp=clamp, realtime=realtime)
    recv, send, emu = r["recv"], r["send"], r["emu"]
    return {"goodput_kbps": recv["goodput_kbps"], "rtt_ms": send["rtt_mean_ms"], "retrans": send["retransmissions"],
            "late_p99_us": emu["lateness_p99_us"], "episodes": emu["lag_episodes"]}


def simulated(flow: str, seconds: float, seed: int) -> float:
    res = hoplab.run(CHAIN.format(duration=seconds) + flow, seed=seed)
    return float(res.flows.throughput_kbps[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=5.0)
    a = ap.parse_args()
    udp = statistics.mean(simulated('[[flows]]\nkind = "cbr"\nsrc = 0\ndst = 3\nrate_kbps = 2000.0\npacket_size_bytes = 1460\n',
                                    a.seconds, s) for s in range(1, a.runs + 1))
    print(f"simulated UDP saturation goodput (1460 B payload), 3 hops: {udp:.1f} kbit/s (mean of {a.runs} seeds)\n")
    print("| real stack | runs | goodput kbit/s (min-max) | max / UDP sat. | RTT ms | retrans | lateness p99 us | lag episodes |")
    print("|---|---|---|---|---|---|---|---|")
    for cc in ("cubic", "reno"):
        rs = [real(cc, a.seconds) for _ in range(a.runs)]
        g = [r["goodput_kbps"] for r in rs]
        print(f"| {cc} | {len(rs)} | {statistics.mean(g):.0f} ({min(g):.0f}-{max(g):.0f}) | {max(g) / udp:.3f} | "
              f"{statistics.mean(r['rtt_ms'] for r in rs):.1f} | {statistics.mean(r['retrans'] for r in rs):.1f} | "
              f"{max(r['late_p99_us'] for r in rs):.0f} | {sum(r['episodes'] for r in rs)} |")
    rs = [real("reno", a.seconds, sack="off", clamp=2) for _ in range(a.runs)]
    g = statistics.mean(r["goodput_kbps"] for r in rs)
    sim_flow = ('[[flows]]\nkind = "ftp"\nsrc = 0\ndst = 3\n[tcp]\nvariant = "reno"\nreceiver = "linux"\n'
                'max_cwnd = 2\nclamp = "receiver"\nmss_bytes = 1448\n')
    s = statistics.mean(simulated(sim_flow, a.seconds, k) for k in range(1, a.runs + 1))
    print(f"| reno, SACK off, clamp 2 | {len(rs)} | {g:.0f} ({min(r['goodput_kbps'] for r in rs):.0f}-"
          f"{max(r['goodput_kbps'] for r in rs):.0f}) | {g / s:.3f} of simulated Reno+linux receiver+clamp 2 ({s:.0f}) | "
          f"{statistics.mean(r['rtt_ms'] for r in rs):.1f} | {statistics.mean(r['retrans'] for r in rs):.1f} | "
          f"{max(r['late_p99_us'] for r in rs):.0f} | {sum(r['episodes'] for r in rs)} |")


if __name__ == "__main__":
    main()
