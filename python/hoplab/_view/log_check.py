"""The values of an event log (anim.csv, or a result's trace) checked before
a page is made of them: each column held to what a run can write, so that a
damaged or hand-edited log is one line naming the file, the line and the
column, not an internal error (an infinite airtime cannot be written as
JSON) nor a page that draws nonsense in silence (a frame from a node the run
does not have, an event after its end).

What a run writes (trace/row.rs, docs/RESULTS.md `trace`):
  time_s                   0 to the run's duration
  node                     a node of the run, 0 .. nodes - 1
  src, dst, packet_src,
  packet_dst               a node, or -1 (none; broadcast)
  seq, uid, tcp_seq,
  size_bytes               whole numbers from -1 (-1: none)
  airtime_s                empty for a drop; for a frame sent, from 0 to what
                           the run's largest frame takes at its slowest rate
  retry                    True or False
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["LogCheck"]

#: Bytes of the largest frame a run can send: an IP datagram of 65,535 bytes
#: (RFC 791 §3.1) plus the MAC, LLC and routing headers around it, rounded up.
LARGEST_FRAME_BYTES = 70_000
#: The long DSSS PLCP preamble and header (IEEE 802.11-2012 §17.2.2.2), the longer one.
PLCP_S = 192e-6


class LogCheck:
    """The checks of one run's log: `first_bad(chunk)` gives the first cell,
    in file order, that a run cannot have written."""

    def __init__(self, duration_s: float, nodes: int, slowest_rate_mbps: float) -> None:
        self.duration_s = duration_s
        self.nodes = nodes
        self.max_airtime_s = PLCP_S + LARGEST_FRAME_BYTES * 8 / (slowest_rate_mbps * 1e6)
        # times are written at whole nanoseconds: the last event may round up to the end
        self.end_s = duration_s + 1e-9

    def _numbers(self, chunk: pd.DataFrame, col: str) -> tuple[np.ndarray, np.ndarray]:
        """(values as floats, which cells are not numbers at all)."""
        raw = chunk[col]
        v = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        given = raw.notna().to_numpy()  # an empty field read as missing is not a word
        text = raw.astype(str).str.strip().str.lower()
        return v, np.isnan(v) & given & ~text.isin(["nan", "-nan", "+nan"]).to_numpy(dtype=bool, na_value=False)

    def _problems(self, chunk: pd.DataFrame) -> list[tuple[np.ndarray, str, str]]:
        """Per column: the cells that are wrong, its name, and what it should be."""
        out = []
        n = self.nodes
        t, _ = self._numbers(chunk, "time_s")
        out.append((~((t >= 0) & (t <= self.end_s)), "time_s",
                    f"is not a time within the run (0 to {self.duration_s:g} s)"))
        for col, low, what in (("node", 0, f"is not a node of the run (0 to {n - 1})"),
                               ("src", -1, f"is not a node of the run (0 to {n - 1}) nor -1"),
                               ("dst", -1, f"is not a node of the run (0 to {n - 1}) nor -1 (broadcast)"),
                               ("packet_src", -1, f"is not a node of the run (0 to {n - 1}) nor -1"),
                               ("packet_dst", -1, f"is not a node of the run (0 to {n - 1}) nor -1")):
            v, _ = self._numbers(chunk, col)
            out.append((~((v >= low) & (v < n) & (v == np.floor(v))), col, what))
        for col in ("seq", "uid", "tcp_seq", "size_bytes"):
            v, _ = self._numbers(chunk, col)  # below 2^63: held as int64 on the way to the page
            out.append((~((v >= -1) & (v < 2.0**63) & (v == np.floor(v))), col,
                        "is not a whole number from -1 (none)"))
        a, not_number = self._numbers(chunk, "airtime_s")
        sent = (chunk["event"].astype(str) == "send").to_numpy()
        ok = (a >= 0) & (a <= self.max_airtime_s)
        # a drop has no airtime (an empty field); anything given must still be a duration
        out.append((~ok & (sent | not_number | ~np.isnan(a)), "airtime_s",
                    f"is not a frame's time on the air (0 to {self.max_airtime_s:.3g} s, the run's largest "
                    f"frame at its slowest rate)"))
        retry = chunk["retry"]
        if retry.dtype != bool:
            out.append((~retry.astype(str).isin(["True", "False", "true", "false", "1", "0"]).to_numpy(), "retry",
                        "is not True or False"))
        return out

    def first_bad(self, chunk: pd.DataFrame) -> tuple[Any, str, str, str] | None:
        """(the row's index label, column, the cell as written, the problem) of
        the first wrong cell in file order (ties: the column order), or None."""
        best: tuple[int, int, str, str] | None = None
        for k, (bad, col, what) in enumerate(self._problems(chunk)):
            hits = np.flatnonzero(bad)
            if len(hits) and (best is None or (hits[0], k) < (best[0], best[1])):
                best = (int(hits[0]), k, col, what)
        if best is None:
            return None
        pos, _, col, what = best
        return chunk.index[pos], col, _cell(chunk[col].iloc[pos]), what


def _cell(v: Any) -> str:
    """A cell as the message shows it: a number as a number (as read: 1e300
    for 1E+300), anything else quoted."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return "an empty field"
        return str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)
    return repr(str(v)) if str(v).strip() else "an empty field"
