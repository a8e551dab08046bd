"""The scenarios of seed 002 (Östergren, *TCP Performance in Ad Hoc
Networks*, ns-2 + CMU Monarch), one function per experiment.

Common to all (seed 002 §5-§8): ns-2's 2 Mbit/s 802.11 with RTS/CTS and
two-ray ground (250 m decode, 550 m carrier sense: hoplab's defaults), a
priority interface queue of 50, ns-2's one-packet ARP buffer (the thesis
counts its ARP drops), AODV with link-layer notification and DSR in
promiscuous mode (§8), TCP Reno or SACK with ns-2's TCPSink (an ACK per
segment) and initial window 1, segments of 512 B (maximum windows 8, 32 and
64 packets) or 1460 B (2, 11 and 22), 4 MB transfers whose throughput is the
time to acknowledge them (§7.1).

Figs. 3 and 10 (the movement of the one-to-four-hop and overlap
experiments) did not survive the text conversion; `one_to_four` and
`overlap` rebuild a geometry from what the text states: the connectivity
changes at 5, 25, 45 s with shortest paths of 1, 2, 3, 4 hops (§8.1), and
Table 2's paths with changes at 17, 37 and 47 s (§8.2). The shortest-path
oracle (`oracle_paths`) of every run checks them (tests/python).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

TRANSFER_BYTES = 4_000_000  # seed 002 §6: "a file transfer of exactly 4 MB"

# (mss_bytes, maximum window in packets): 4, 16 and 32 kB windows (§8).
WINDOWS: tuple[tuple[int, int], ...] = ((512, 8), (512, 32), (512, 64), (1460, 2), (1460, 11), (1460, 22))
VARIANTS = ("reno", "sack")
ROUTINGS = ("aodv", "dsr")
SPEEDS_MPS = (2.0, 10.0)  # §8.4: mean speeds; each leg's speed uniform in [0.9 v, 1.1 v]
MAX_CHAIN_HOPS = 9  # §7.1.1: T_i for 1 <= i <= 9

# §8: AODV "set to use link layer notifications", DSR "configured to use the
# promiscuous mode option". The standards' reading: RFC 3561 AODV and hoplab's
# `ns2` DSR preset; ns-2's reading (the default): the presets `compat = "ns2"`
# gives, ns-2's CMU AODV and CMU DSR.
ROUTING = {
    "aodv": {"protocol": "aodv", "preset": "rfc3561", "aodv": {"link_detection": "link_layer"}},
    "dsr": {"protocol": "dsr", "preset": "ns2", "dsr": {"promiscuous": True}},
    "static": {"protocol": "static"},  # the thesis's ZERO: routes set before the run
}
NS2_ROUTING = {
    "aodv": {"protocol": "aodv", "aodv": {"link_detection": "link_layer"}},
    "dsr": {"protocol": "dsr", "dsr": {"promiscuous": True}},
    "static": {"protocol": "static"},
}
# The thesis ran ns-2 with the CMU Monarch extensions (§5): `compat = "ns2"`.
READINGS = ("ns2", "standard")
READING_TEXT = {
    "ns2": "ns-2's reading (compat = \"ns2\": ns-2.35's MAC, CMU AODV and DSR, ns-2's RTO estimator)",
    "standard": "the standards' reading (IEEE 802.11, RFC 3561 AODV, hoplab's ns2 DSR preset, RFC 6298 RTO)",
}


def read_as(s: dict[str, Any], reading: str) -> dict[str, Any]:
    """A scenario built for the standards' reading, as ns-2's reading runs it."""
    if reading == "ns2":
        s["compat"] = "ns2"
        proto = s.get("routing", {}).get("protocol", "static")
        s["routing"] = {k: (dict(v) if isinstance(v, dict) else v) for k, v in NS2_ROUTING[proto].items()}
    return s


@dataclass(frozen=True)
class Tcp:
    """One TCP parameter set of the thesis."""

    variant: str
    mss: int
    window: int

    @property
    def label(self) -> str:
        return f"{self.variant.capitalize()} {self.mss} B w{self.window}"

    def table(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "mss_bytes": self.mss,
            "max_cwnd": self.window,  # ns-2 window_: "the maximum number of outstanding packets" (§8)
            "initial_cwnd": 1,  # ns-2 windowInit_
            "delayed_ack": False,  # ns-2 TCPSink / TCPSink/Sack1: an ACK per segment
        }


def tcp_sets(variants: tuple[str, ...] = VARIANTS) -> list[Tcp]:
    return [Tcp(v, m, w) for v in variants for m, w in WINDOWS]


def base(name: str, duration_s: float) -> dict[str, Any]:
    """What every seed 002 scenario shares."""
    return {
        "name": name,
        "duration_s": duration_s,
        # ns-2's Mac802_11 backs off even on an idle medium; without it two
        # sources that start at the same instant (the overlap experiment's)
        # send every frame at the same instant, for ever.
        "mac": {"data_rate_mbps": 2.0, "basic_rate_mbps": 1.0, "rts_threshold_bytes": 0, "queue_limit": 50,
                "idle_backoff": True},
        "link": {"arp": "ns2"},  # seed 002 §8.1.2: drops in the ARP buffer
        "output": {"timeseries": False},
    }


def _ftp(src: int, dst: int) -> dict[str, Any]:
    return {"kind": "ftp", "src": src, "dst": dst, "bytes": TRANSFER_BYTES}


def chain(hops: int, tcp: Tcp, streams: int = 1) -> dict[str, Any]:
    """§7.1.1: a static chain of ``hops`` hops (200 m apart) under ZERO
    routing, one 4 MB transfer end to end (T_i), or two sharing the whole
    path (Table 1)."""
    s = base(f"seed002-chain{hops}", 3000.0)
    s["topology"] = {"kind": "chain", "nodes": hops + 1, "spacing_m": 200.0}
    s["routing"] = dict(ROUTING["static"])
    s["tcp"] = tcp.table()
    s["flows"] = [_ftp(0, hops) for _ in range(streams)]
    return s


# One-to-four hop (§8.1): source (thesis node one, here 0) at x = 0 and
# relays (thesis nodes three to five, here 2-4) at 150, 300, 450 m stand
# still; the sink (thesis node two, here 1) walks away along the line at
# 7.5 m/s from 212.5 m to 625 m. With 250 m links the shortest path is 1 hop
# until the sink passes 250 m (5 s), 2 until 400 m (25 s), 3 until 550 m
# (45 s) and 4 after, as §8.1 states; relays 150 m apart make every relay
# reach exactly the next one (two of them are 300 m apart).
ONE_TO_FOUR_RELAYS_M = (150.0, 300.0, 450.0)
ONE_TO_FOUR_SINK = (212.5, 625.0, 7.5)  # from x, to x, m/s
ONE_TO_FOUR_CHANGES_S = (5.0, 25.0, 45.0)


def one_to_four(routing: str, tcp: Tcp) -> dict[str, Any]:
    x0, x1, v = ONE_TO_FOUR_SINK
    s = base("seed002-one-to-four", 600.0)
    s["topology"] = {"kind": "explicit", "positions": [[0.0, 0.0], [x0, 0.0]] + [[x, 0.0] for x in ONE_TO_FOUR_RELAYS_M]}
    s["mobility"] = {"legs": [{"node": 1, "at_s": 0.0, "to": [x1, 0.0], "speed_mps": v}]}
    s["routing"] = dict(ROUTING[routing])
    s["tcp"] = tcp.table()
    s["flows"] = [_ftp(0, 1)]  # "sourced at node one and sinked at node two"
    return s


# Overlap (§8.2, Table 2; thesis nodes 1-5 are 0-4 here). Node 0 (1) and
# node 2 (3) stand on the x axis at 0 and 200 m, node 1 (2) at (200, -170)
# and node 4 (5) at (303, 150); node 3 (4), stream one's sink, walks along
# the axis at 20/3 m/s from 136.7 m to 480 m. Its links break with node 0 at
# 17 s (250 m), with node 1 at 37.0 s and with node 2 at 47 s, and nothing
# else changes, so the shortest paths are Table 2's: stream one 1->4,
# 1->3->4, 1->3->4, 1->3->5->4; stream two 2->4->5 until 37 s, then 2->3->5.
# (2->3->5 is as short as 2->4->5 before 37 s: the table lists the route
# in use.) The streams cross at node 4 first and share the hop 3->5 last.
OVERLAP_POSITIONS = ((0.0, 0.0), (200.0, -170.0), (200.0, 0.0), (250.0 - 17.0 * 20.0 / 3.0, 0.0), (303.0, 150.0))
OVERLAP_WALK = (480.0, 20.0 / 3.0)  # node 3: to x, m/s
OVERLAP_CHANGES_S = (17.0, 37.0, 47.0)


def overlap(routing: str, tcp: Tcp) -> dict[str, Any]:
    to_x, v = OVERLAP_WALK
    s = base("seed002-overlap", 900.0)
    s["topology"] = {"kind": "explicit", "positions": [list(p) for p in OVERLAP_POSITIONS]}
    s["mobility"] = {"legs": [{"node": 3, "at_s": 0.0, "to": [to_x, 0.0], "speed_mps": v}]}
    s["routing"] = dict(ROUTING[routing])
    s["tcp"] = tcp.table()
    s["flows"] = [_ftp(0, 3), _ftp(1, 4)]  # "sourced at node one and sinked at node four", two -> five
    return s


# Random waypoint (§8.4, after Holland & Vaidya): 30 nodes, 1500 x 300 m, no
# pause, speeds uniform in [0.9 v, 1.1 v]. A "scenario file" is a run seed
# (it draws the initial positions and every leg, as setdest's seed did);
# setdest of the time started nodes at uniform positions, not in the
# stationary distribution. The source/destination pairs are drawn once and
# used for every parameter set and scenario file (§8.4).
WAYPOINT_NODES = 30
WAYPOINT_AREA_M = (1500.0, 300.0)
PAIRS_SEED = 2002


def random_pairs(count: int, nodes: int = WAYPOINT_NODES, seed: int = PAIRS_SEED) -> list[tuple[int, int]]:
    """``count`` distinct (source, destination) pairs of distinct nodes."""
    rng = random.Random(seed)
    pairs: list[tuple[int, int]] = []
    while len(pairs) < count:
        src, dst = rng.sample(range(nodes), 2)
        if (src, dst) not in pairs and src not in {p[0] for p in pairs} and dst not in {p[1] for p in pairs}:
            pairs.append((src, dst))
    return pairs


def _waypoint_base(name: str, speed: float, duration_s: float) -> dict[str, Any]:
    s = base(name, duration_s)
    w, h = WAYPOINT_AREA_M
    s["topology"] = {"kind": "random", "nodes": WAYPOINT_NODES, "width_m": w, "height_m": h}
    s["mobility"] = {"model": "waypoint", "speed_min_mps": 0.9 * speed, "speed_max_mps": 1.1 * speed,
                     "pause_s": 0.0, "steady_state": False}
    return s


WAYPOINT_DURATION_S = 900.0  # long enough for a 4 MB transfer through the partitions seen


def waypoint(speed: float, routing: str, tcp: Tcp, streams: int) -> dict[str, Any]:
    s = _waypoint_base(f"seed002-waypoint-{streams}", speed, WAYPOINT_DURATION_S)
    s["routing"] = dict(ROUTING[routing])
    s["tcp"] = tcp.table()
    s["flows"] = [_ftp(a, b) for a, b in random_pairs(streams)]
    return s


# WWW, "Realistic" (§8.6): the random-waypoint network, one server and five
# clients, each a session of at most 15 downloads, 900 s, TCP Reno, 512 B
# segments, 4 kB and 16 kB windows (8 and 32 packets).
WWW_CLIENTS = 5
WWW_DOWNLOADS = 15
WWW_DURATION_S = 900.0
WWW_WINDOWS = (8, 32)


def www(speed: float, routing: str, window: int) -> dict[str, Any]:
    s = _waypoint_base("seed002-www", speed, WWW_DURATION_S)
    s["routing"] = dict(ROUTING[routing])
    s["tcp"] = Tcp("reno", 512, window).table()
    rng = random.Random(PAIRS_SEED)
    server, *clients = rng.sample(range(WAYPOINT_NODES), WWW_CLIENTS + 1)
    s["flows"] = [{"kind": "www", "src": server, "dst": c, "downloads": WWW_DOWNLOADS} for c in clients]
    return s


def overlap_distance(a: int, b: int, t: float) -> float:
    """Distance between two overlap nodes at time ``t`` (for tests and docs)."""
    pos = [list(p) for p in OVERLAP_POSITIONS]
    to_x, v = OVERLAP_WALK
    pos[3][0] = min(to_x, OVERLAP_POSITIONS[3][0] + v * t)
    return math.dist(pos[a], pos[b])
