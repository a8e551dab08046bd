"""Each flow's path as it changes, followed through the frames that carry it.

A run's `paths` and `route_events` tables say how many hops a flow's path had
and when routes broke or were found, not which nodes the path crossed; the
frames on the air do. Every DATA frame of a flow's packets (IP source and
destination the flow's ends) sets "this node forwards the flow to that one",
and the path at any time is the chain of those next hops from the source, as
a relay's routing table sends it (RFC 3561 §6.2: a route is its next hops).
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["QUIET_S", "path_changes"]

#: A flow with no DATA frame for this long has no path drawn (its route
#: broke, or it is idle); the path is followed afresh when frames resume, so
#: that a next hop of the old route is never drawn into the new one.
QUIET_S = 1.0


def _follow(nexthop: dict[int, int], src: int, dst: int) -> tuple[int, ...]:
    """The path from ``src`` along next hops, up to ``dst`` or where it ends
    (a relay that has not forwarded yet) or would loop."""
    path = [src]
    seen = {src}
    while path[-1] != dst and path[-1] in nexthop:
        n = nexthop[path[-1]]
        if n in seen:
            break
        path.append(n)
        seen.add(n)
    return tuple(path)


def path_changes(times: Sequence[float], tx: Sequence[int], rx: Sequence[int], src: int, dst: int,
                 quiet_s: float = QUIET_S) -> list[tuple[float, list[int] | None]]:
    """``(time, path)`` each time the flow's path changes, from its DATA
    frames in time order (``times``, transmitters ``tx``, receivers ``rx``);
    ``path`` is None from ``quiet_s`` after a frame not followed by another."""
    out: list[tuple[float, list[int] | None]] = []
    nexthop: dict[int, int] = {}
    current: tuple[int, ...] | None = None
    last = None
    for t, a, b in zip(times, tx, rx):
        if b < 0:  # broadcast: no next hop
            continue
        if last is not None and t - last > quiet_s:
            out.append((last + quiet_s, None))
            nexthop.clear()
            current = None
        last = t
        nexthop[a] = b
        p = _follow(nexthop, src, dst)
        if p != current:
            out.append((t, list(p)))
            current = p
    if last is not None:
        out.append((last + quiet_s, None))
    return out
