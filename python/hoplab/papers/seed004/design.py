"""Seed 004 (Kawadia & Kumar, "Experimental Investigations into TCP
Performance over Wireless Multihop Networks", SIGCOMM 2005 workshops) as a
lab design: 8 treatments (Table 1) x 9 plots (1-6 hop chains; 2by2, 3by2,
4by2 crossing flows) x 15 runs, randomised run order.

Every setting the paper fixes is taken from it (§2: MAC retry limit 8, MTU
2276 B, 11 Mbit/s data with RTS/CTS at the 1 Mbit/s base rate; §4: 100-packet
buffers; §3.1: the treatments). Every setting it leaves open is a documented
choice below, made before looking at the results and never tuned toward the
testbed's numbers.
"""

from __future__ import annotations

from typing import Any, Iterable

__all__ = [
    "TREATMENTS", "PLOTS", "DEFAULT_REPLICAS", "DEFAULT_DURATION_S", "ORDER_SEED",
    "clamp", "base_scenario", "plot_set", "treatment_set", "design", "parse_plots",
]

# Table 1: treatment -> (clamp, sack, rts_off). "clamp" is the sender's
# congestion window clamped to ceil(3n/2) segments for an n-hop flow (§2, finding
# 1; Table 1's "3 * (# of hops / 2)" is the same number rounded up).
TREATMENTS: dict[str, tuple[bool, bool, bool]] = {
    "0": (False, False, False),  # default: no clamp, SACK off, RTS/CTS on
    "1": (True, True, True),     # all = clamp + sack + rts_off
    "2": (True, False, False),   # clamp
    "3": (False, False, True),   # rts_off
    "4": (False, True, False),   # sack
    "5": (True, False, True),    # clamp + rts_off
    "6": (True, True, False),    # clamp + sack
    "7": (False, True, True),    # sack + rts_off
}
TREATMENT_NAMES = {"0": "default", "1": "all", "2": "clamp", "3": "rts_off", "4": "sack",
                   "5": "clamp+rts_off", "6": "clamp+sack", "7": "sack+rts_off"}

# §3.1 "plots": one flow over 1-6 hops, and two intersecting flows of 2, 3
# and 4 hops each ("2by2" = two flows of 2 hops). plot -> (hops per flow, flows).
PLOTS: dict[str, tuple[int, int]] = {
    "1hop": (1, 1), "2hop": (2, 1), "3hop": (3, 1), "4hop": (4, 1), "5hop": (5, 1), "6hop": (6, 1),
    "2by2": (2, 2), "3by2": (3, 2), "4by2": (4, 2),
}

DEFAULT_REPLICAS = 15  # §3.1: 15 runs per treatment and plot
# Run order: §3.3 takes the runs as independent, "each observation is
# obtained from a new TCP connection at a different time"; the lab
# randomises the order of all 1,080 runs (issue 11: "randomised (seed
# 004)"), with a fixed seed so that the order is reproducible.
ORDER_SEED = 4

# Run length. The paper transfers "a huge file" whose size it does not
# give. Unclamped runs settle slowly: after slow start, congestion avoidance
# refills a 100-packet queue at one segment per ~1 s round trip, so one
# sawtooth takes ~50 s. At 180 s the mean throughput is within 3 % and the
# mean RTT within ~8 % of a 600 s run (docs/VALIDATION.md), and the whole
# design (1,080 runs, ~0.5 s each) stays well under 10 minutes on 2 cores
# (issue 11 item 7; docs/BENCHMARKS.md).
DEFAULT_DURATION_S = 180.0

# §2, setting 2: MTU 2276 B, "the maximum possible value for the Cisco 350
# cards"; TCP's MSS is the MTU less the 20 B IP and 20 B TCP headers (no
# TCP options are modelled). The 802.11 frame (2276 B + 28 B MAC header and
# FCS = 2304 B) stays under the 2312 B fragmentation threshold of §2, setting 3,
# so no frame is fragmented, as on the testbed.
MTU_BYTES = 2276
MSS_BYTES = MTU_BYTES - 40
# RTS/CTS off: a threshold above every frame. 2347 B is the largest
# dot11RTSThreshold of IEEE 802.11-1999 (the value drivers use for "off").
RTS_OFF_BYTES = 2347
# RTS/CTS on: before every unicast frame (threshold 0), TCP ACKs included;
# the paper names no threshold, and "on" on the cards means the handshake
# precedes every unicast frame.
RTS_ON_BYTES = 0

# The receiver's advertised window. The paper does not give the socket
# buffers, but states the mechanism its clamp treats: "the TCP congestion
# window however grows far beyond this value, leading to excessive build-up
# of queues at the intermediate nodes" (§2, finding 1), limited by "the size of
# the buffer ... 100 packets" (§4). That needs a window that never binds
# before the buffers do, so the window is 4 MiB (Linux's tcp_rmem maximum
# with window scaling, RFC 7323): far above one 100-packet buffer (228 KB)
# and above all the buffers of the longest path together (7 x 228 KB).
# docs/VALIDATION.md also reports the 65,535 B window of a stack without
# window scaling (hoplab's default) on a few plots.
RECEIVE_WINDOW_BYTES = 4 * 1024 * 1024

# Geometry. The testbed's distances are not given (copper tape shortened
# the cards' range so that only neighbours communicate, §3). hoplab's chain
# convention (seed 000): nodes 200 m apart under the default two-ray-ground
# radio, 250 m transmission and 550 m carrier-sense range, so a node decodes
# only its neighbours and senses nodes up to two hops away, as indoor cards
# sense farther than they decode (§2, finding 2: "different carrier
# sensing and communication ranges").
SPACING_M = 200.0


def clamp(hops: int) -> int:
    """ceil(3n/2) segments for an n-hop flow (§2, finding 1)."""
    if hops < 1:
        raise ValueError("a flow has at least 1 hop")
    return (3 * hops + 1) // 2


# The PLCP preamble and the rate of the control frames (RTS, CTS, ACK), which
# the paper does not give: (preamble, basic rate in Mbit/s). The testbed's
# RTS/CTS cost, 0.30 ms per segment on 1 hop (Table 2), fits only a short
# preamble with control frames at 11 Mbit/s; 802.11b forbids the short
# preamble at 1 Mbit/s (§18.2.2.2), so the long one is the only choice there.
CONTROLS: dict[str, tuple[str, float]] = {"long-1": ("long", 1.0), "short-2": ("short", 2.0),
                                          "short-11": ("short", 11.0)}
DEFAULT_CONTROL = "long-1"


def base_scenario(duration: float = DEFAULT_DURATION_S, control: str = DEFAULT_CONTROL) -> dict[str, Any]:
    """The settings every run shares; plots and treatments override parts."""
    preamble, basic = CONTROLS[control]
    return {
        "name": "seed004",
        "duration_s": float(duration),
        "seed": 1,
        # placeholder topology and flow (the 1-hop plot); every plot sets both
        "topology": {"kind": "chain", "nodes": 2, "spacing_m": SPACING_M},
        "mac": {
            # §2, setting 4: 11 Mbit/s, no rate adaptation; RTS, CTS (and the
            # MAC ACK) at the 1 Mbit/s base rate, long PLCP preamble.
            "data_rate_mbps": 11.0,
            "basic_rate_mbps": basic,
            "preamble": preamble,
            "rts_threshold_bytes": RTS_ON_BYTES,
            # §2, setting 1: "retry limit ... is set to 8": one limit for every
            # frame, so both the short and the long limit.
            "short_retry_limit": 8,
            "long_retry_limit": 8,
            # §4: "The size of the buffer is set to 100 packets".
            "queue_limit": 100,
        },
        "tcp": {
            # Linux 2.4 recovers with NewReno when SACK is off (treatments
            # 0, 2, 3, 5) and with SACK when it is on (1, 4, 6, 7).
            "variant": "new_reno",
            "mss_bytes": MSS_BYTES,
            # The testbed's receiver is Linux (2.4.11). hoplab's Linux model
            # is read from 2.6-era sources; its rules (quick ACKs at the
            # start, an ACK per two full segments, an adaptive delayed-ACK
            # timer from 40 ms) are 2.4's in outline, closer to the testbed
            # than ns-2's receiver.
            "receiver": "linux",
            # The clamp is on the sender's congestion window (§2, finding 1:
            # "a clamp on the sender congestion window").
            "clamp": "sender",
            "max_cwnd": 0,
            "receive_window_bytes": RECEIVE_WINDOW_BYTES,
        },
        # The testbed's topologies were fixed, with routes set up once (§3:
        # "setting up desired topologies reliably and repeatably"); static
        # shortest-path routes keep route discovery out of the treatments.
        "routing": {"protocol": "static"},
        "flows": [{"kind": "ftp", "src": 0, "dst": 1}],
        "output": {"timeseries": False},
    }


def _cross_positions(hops: int) -> tuple[list[list[float]], list[dict[str, Any]]]:
    """Two perpendicular chains of ``hops`` hops that share one relay.

    Figure 1 of the paper did not survive the text conversion; the text says
    "two intersecting flows". One chain runs west->east along y = 0 and the
    other south->north along x = 0; they cross at (0, 0): the middle node of
    both chains for 2 and 4 hops, and the first relay of both for 3 hops
    (4 nodes have no middle; the same position in both keeps them alike).
    Perpendicular arms keep the two flows' other nodes as far apart as a
    crossing allows (the centre's neighbours on different arms are 283 m
    apart: outside the 250 m range, inside the 550 m carrier sense), so the
    flows meet in the shared relay and its neighbourhood, as two
    intersecting routes do. Node ids: the west->east chain 0..hops, then the
    south->north chain without the centre, south to north."""
    steps = [i - hops // 2 for i in range(hops + 1)]  # 2: -1..1, 3: -1..2, 4: -2..2
    centre = steps.index(0)
    positions = [[s * SPACING_M, 0.0] for s in steps] + [[0.0, s * SPACING_M] for s in steps if s != 0]
    others = list(range(hops + 1, 2 * hops + 1))
    north = others[:centre] + [centre] + others[centre:]
    flows = [{"kind": "ftp", "src": 0, "dst": hops},
             {"kind": "ftp", "src": north[0], "dst": north[-1]}]
    return positions, flows


def plot_set(plot: str) -> dict[str, Any]:
    """The overrides of one plot: topology, flows and the per-plot clamp."""
    if plot not in PLOTS:
        raise ValueError(f"unknown plot {plot!r} (one of {', '.join(PLOTS)})")
    hops, nflows = PLOTS[plot]
    if nflows == 1:
        return {"topology": {"kind": "chain", "nodes": hops + 1, "spacing_m": SPACING_M},
                "flows": [{"kind": "ftp", "src": 0, "dst": hops}]}
    positions, flows = _cross_positions(hops)
    return {"topology": {"kind": "explicit", "positions": positions}, "flows": flows}


def treatment_set(treatment: str, plot: str) -> dict[str, Any]:
    """The overrides of one treatment on one plot (the clamp depends on the
    flows' hop count: both flows of a crossing plot have the same)."""
    if treatment not in TREATMENTS:
        raise ValueError(f"unknown treatment {treatment!r} (one of {', '.join(TREATMENTS)})")
    hops, _ = PLOTS[plot]
    c, sack, rts_off = TREATMENTS[treatment]
    return {"tcp.max_cwnd": clamp(hops) if c else 0,
            "tcp.variant": "sack" if sack else "new_reno",
            "mac.rts_threshold_bytes": RTS_OFF_BYTES if rts_off else RTS_ON_BYTES}


def design(*, replicas: int = DEFAULT_REPLICAS, duration: float = DEFAULT_DURATION_S, control: str = DEFAULT_CONTROL,
           plots: Iterable[str] = tuple(PLOTS), treatments: Iterable[str] = tuple(TREATMENTS),
           name: str = "seed004") -> dict[str, Any]:
    """The lab design dict: listed cells (treatment x plot), each with its
    overrides, ``replicas`` seeds, randomised order."""
    plots, treatments = list(plots), list(treatments)
    cells = []
    for p in plots:
        for t in treatments:
            cells.append({"factors": {"treatment": t, "plot": p},
                          "set": {**plot_set(p), **treatment_set(t, p)}})
    return {"name": name, "base": base_scenario(duration, control), "replicas": int(replicas),
            "order": "randomised", "order_seed": ORDER_SEED, "treatments": cells}


def parse_plots(text: str) -> list[str]:
    """``"1hop,3hop,4by2"`` -> plot names in Table 2's order; ValueError
    naming an unknown plot."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise ValueError("--plots: no plot given")
    for n in names:
        if n not in PLOTS:
            raise ValueError(f"--plots: unknown plot {n!r} (one of {', '.join(PLOTS)})")
    return [p for p in PLOTS if p in names]
