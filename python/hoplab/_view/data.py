"""What the page animates, read from a run: the JSON object page.py inlines.

Sources: the run directory `hoplab run --out DIR` writes (movement, flows,
nodes, timeseries, route_events; `Result.load`) and its `anim.csv`, the
compact event log a run writes with `[trace] formats = ["anim"]`: every
frame put on the air (MAC `send`, with its airtime) and every drop, in the
CSV columns of the trace. A `Result` in memory gives the same rows from its
`trace` table (`[output] trace = true`).

Columns are sent as arrays (one per field, not one object per event) and
names as indices into short lists, which keeps a 500,000-frame page near
30 MB.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np
import pandas as pd

from .._drop_codes import REASONS
from . import routes
from .log_check import LogCheck

__all__ = ["ANIM_COLUMNS", "DEFAULT_MAX_FRAMES", "ViewInputError", "build"]

#: The columns of anim.csv (those of the trace: docs/ARCHITECTURE.md, trace).
ANIM_COLUMNS = ["time_s", "node", "layer", "event", "frame", "src", "dst", "seq", "retry", "uid", "packet_type",
                "packet_src", "packet_dst", "tcp_seq", "size_bytes", "airtime_s", "reason"]
#: More frames than this make a page a browser opens slowly (~30 MB of JSON).
DEFAULT_MAX_FRAMES = 500_000
CHUNK_ROWS = 200_000  # anim.csv is read in bounded memory, a chunk at a time
TABLES = ["flows", "nodes", "timeseries", "route_events", "movement"]
MAX_SERIES_POINTS = 4000  # per flow and plot; more are thinned to each bin's extremes
THROUGHPUT_BINS = 120
HOW_TO_LOG = 'run the scenario with [trace] formats = ["anim"] (or add "anim" to its formats)'


class ViewInputError(ValueError):
    """A run the page cannot be made from: one line naming the file and the problem."""


# ------------------------------------------------------------------ the log
def _chunks_of_file(path: Path) -> Iterator[pd.DataFrame]:
    try:
        header = pd.read_csv(path, nrows=0).columns.tolist()
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ViewInputError(f"{path}: not a CSV file ({_first_line(e)})") from None
    missing = [c for c in ANIM_COLUMNS if c not in header]
    if missing:
        raise ViewInputError(f"{path}: no column {missing[0]!r} (an anim.csv has {', '.join(ANIM_COLUMNS)})")
    try:
        yield from pd.read_csv(path, usecols=ANIM_COLUMNS, chunksize=CHUNK_ROWS, keep_default_na=False,
                               na_values={"airtime_s": ["", "NaN", "nan"]}, dtype={"reason": str, "frame": str})
    except (pd.errors.ParserError, ValueError, UnicodeDecodeError) as e:
        raise ViewInputError(f"{path}: {_first_line(e)}") from None


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _checked(chunk: pd.DataFrame, check: LogCheck, where: str, in_file: bool) -> None:
    """`ViewInputError` naming the first cell a run cannot have written: its
    line in the file (the header is line 1) or its row in a result's trace."""
    bad = check.first_bad(chunk)
    if bad is not None:
        label, col, cell, problem = bad
        at = f"line {int(label) + 2}" if in_file else f"row {label}"
        raise ViewInputError(f"{where}: {at}, column {col}: {cell} {problem}")


def _kept(chunk: pd.DataFrame, start: float, end: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(MAC sends, drops) of one chunk within [start, end]."""
    t = pd.to_numeric(chunk["time_s"])
    inside = (t >= start) & (t <= end)
    event = chunk["event"].astype(str)
    sends = chunk[inside & (chunk["layer"].astype(str) == "MAC") & (event == "send")]
    drops = chunk[inside & (event == "drop")]
    return sends, drops


def read_log(chunks: Iterable[pd.DataFrame], where: str, start: float, end: float,
             max_frames: int, check: LogCheck, in_file: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The frames and drops of a log within [start, end]; raises
    `ViewInputError` for a value the run cannot have written (`check`; where
    is the log's name, ``in_file``: count its rows as lines of a CSV file) and
    when there are more than ``max_frames`` frames."""
    sends: list[pd.DataFrame] = []
    drops: list[pd.DataFrame] = []
    total = 0
    first = last_kept = None
    for chunk in chunks:
        _checked(chunk, check, where, in_file)
        s, d = _kept(chunk, start, end)
        if len(s) and first is None:
            first = float(s["time_s"].iloc[0])
        if total < max_frames:  # past the limit only counted, never held
            sends.append(s.iloc[: max_frames - total])
            drops.append(d)
            if len(sends[-1]):
                last_kept = float(sends[-1]["time_s"].iloc[-1])
        total += len(s)
    if total > max_frames:
        # rounded down to the microsecond: a window ending there holds at most max_frames
        fits = f"{math.floor((last_kept or 0.0) * 1e6) / 1e6:.6f}".rstrip("0").rstrip(".")
        raise ViewInputError(
            f"{where}: {total:,} frames from {first:g} s, more than the {max_frames:,} one page holds; "
            f"cut a window with --start/--end (--end {fits} keeps the first {max_frames:,})")
    cols = {c: [] for c in ANIM_COLUMNS}
    frames = pd.concat(sends, ignore_index=True) if sends else pd.DataFrame(cols)
    dropped = pd.concat(drops, ignore_index=True) if drops else pd.DataFrame(cols)
    return (frames.sort_values("time_s", kind="stable", ignore_index=True),
            dropped.sort_values("time_s", kind="stable", ignore_index=True))


# ------------------------------------------------------------ small helpers
def _codes(values: pd.Series, names: list[str]) -> list[int]:
    """Each value's index in ``names`` (new names appended in order of appearance)."""
    text = values.astype(str)
    names += [v for v in pd.unique(text) if v not in names]
    index = {n: k for k, n in enumerate(names)}
    return text.map(index).astype(np.int64).tolist()


def _ints(s: pd.Series) -> list[int]:
    return pd.to_numeric(s, errors="coerce").fillna(-1).astype(np.int64).tolist()


def _floats(s: pd.Series, digits: int = 9) -> list[float]:
    v = pd.to_numeric(s, errors="coerce").astype(float).round(digits)
    return [None if math.isnan(x) else x for x in v.tolist()]  # type: ignore[misc]


def _bools(s: pd.Series) -> list[int]:
    return [1 if str(v).lower() in ("true", "1") else 0 for v in s.tolist()]


# ------------------------------------------------------------- the pieces
def _legs(movement: pd.DataFrame, nodes: int) -> list[list[float]]:
    """Per node, its legs flattened: t0, x, y, to_x, to_y, speed per leg (the
    movement table's rows: docs/RESULTS.md, movement), in time order."""
    m = movement.sort_values(["node", "time_s"], kind="stable")
    out: list[list[float]] = [[] for _ in range(nodes)]
    for r in m.itertuples(index=False):
        n = int(r.node)
        if 0 <= n < nodes:
            out[n] += [float(r.time_s), float(r.x), float(r.y), float(r.to_x), float(r.to_y), float(r.speed_mps)]
    return out


def _area(sc: dict[str, Any], movement: pd.DataFrame) -> list[float]:
    """[x0, y0, x1, y1] holding every position, and the topology's area if it has one."""
    xs = np.concatenate([movement["x"].to_numpy(float), movement["to_x"].to_numpy(float)])
    ys = np.concatenate([movement["y"].to_numpy(float), movement["to_y"].to_numpy(float)])
    x0, x1, y0, y1 = float(xs.min()), float(xs.max()), float(ys.min()), float(ys.max())
    topo = sc.get("topology", {})
    if "width_m" in topo and "height_m" in topo:
        x0, y0 = min(x0, 0.0), min(y0, 0.0)
        x1, y1 = max(x1, float(topo["width_m"])), max(y1, float(topo["height_m"]))
    # a line of nodes (a chain) gets a band around it, a fifth as tall as it is long
    grow = max(0.2 * (x1 - x0) - (y1 - y0), 0.0) / 2
    return [x0, y0 - grow, x1, y1 + grow]


def _radio_ranges(sc: dict[str, Any]) -> tuple[float, float]:
    """(decode, carrier-sense) range in metres, both from the engine: the
    carrier-sense range is the decode range of the same radio with the
    receive threshold set to the carrier-sense one (propagation.rs
    RadioParams::from_config: both are `range_for_power` of a threshold)."""
    from ..plot import _geometry as geo

    tx = geo.tx_range_m(sc)
    radio = dict(sc.get("radio", {}))
    if radio.get("propagation") == "flat":  # one range: anything in range is decoded and sensed
        return tx, tx
    if "cs_range_m" in radio:
        radio["tx_range_m"] = radio["cs_range_m"]
    else:
        radio.pop("tx_range_m", None)
        radio["rx_threshold_w"] = radio["cs_threshold_w"]
    return tx, geo.tx_range_m({**sc, "radio": radio})


def _thin(t: np.ndarray, v: np.ndarray, limit: int = MAX_SERIES_POINTS) -> tuple[list[float], list[float]]:
    """At most ~``limit`` points: each bin's first, lowest and highest (a plot's shape kept)."""
    ok = np.isfinite(t) & np.isfinite(v)
    t, v = t[ok], v[ok]
    if len(t) > limit:
        bins = np.minimum(((t - t[0]) / max(t[-1] - t[0], 1e-12) * (limit // 3)).astype(np.int64), limit // 3 - 1)
        df = pd.DataFrame({"b": bins, "v": v})
        g = df.groupby("b")["v"]
        keep = np.unique(np.concatenate([g.head(1).index.to_numpy(), g.idxmin().to_numpy(), g.idxmax().to_numpy()]))
        t, v = t[keep], v[keep]
    return np.round(t, 9).tolist(), np.round(v, 6).tolist()


def _mss(sc: dict[str, Any], flow: int) -> int:
    flows = sc.get("flows", [])
    per = (flows[flow].get("tcp") or {}) if flow < len(flows) else {}
    return int(per.get("mss_bytes", sc.get("tcp", {}).get("mss_bytes", 1460)))


def _throughput(frames: pd.DataFrame, f: Any, sc: dict[str, Any], start: float, end: float
                ) -> tuple[list[float], list[float]]:
    """Payload reaching the flow's destination per bin, in kbit/s, seen on
    the air: each of its packets the first time a frame carries it over the
    last hop (to the destination), a TCP segment counted once however often
    it is sent (MSS bytes), a CBR packet its payload size."""
    # Bins of at least half a second (or a twentieth of a short window): a
    # 2 Mbit/s channel carries ~30 segments a second, and fewer per bin is noise.
    width = max((end - start) / THROUGHPUT_BINS, min(0.5, (end - start) / 20))
    flows = sc.get("flows", [])
    spec = flows[int(f.flow)] if int(f.flow) < len(flows) else {}
    ptype = "cbr" if f.kind == "cbr" else "tcp"
    m = frames[(frames["frame"].astype(str) == "DATA") & (frames["packet_type"] == ptype)
               & (frames["packet_src"] == f.src) & (frames["packet_dst"] == f.dst) & (frames["dst"] == f.dst)]
    m = m.drop_duplicates("uid" if ptype == "cbr" else "tcp_seq")
    size = float(spec.get("packet_size_bytes", 0)) if ptype == "cbr" else float(_mss(sc, int(f.flow)))
    edges = np.arange(start, end + width, width)
    if len(edges) < 2:
        return [], []
    counts, _ = np.histogram(m["time_s"].to_numpy(float), bins=edges)
    return np.round(edges[:-1] + width / 2, 9).tolist(), np.round(counts * size * 8 / 1000 / width, 3).tolist()


def _flows(res: Any, frames: pd.DataFrame, sc: dict[str, Any], start: float, end: float) -> list[dict[str, Any]]:
    out = []
    ts = res.timeseries
    data_frames = frames[frames["frame"].astype(str) == "DATA"]
    for f in res.flows.itertuples(index=False):
        ptype = "cbr" if f.kind == "cbr" else "tcp"
        mine = data_frames[(data_frames["packet_type"] == ptype) & (data_frames["packet_src"] == f.src)
                           & (data_frames["packet_dst"] == f.dst)]
        changes = routes.path_changes(mine["time_s"].tolist(), mine["node"].astype(int).tolist(),
                                      mine["dst"].astype(int).tolist(), int(f.src), int(f.dst))
        cw = ts[ts["flow"] == f.flow].sort_values("time_s", kind="stable") if len(ts) else ts
        if len(cw):
            before = cw[cw["time_s"] < start].tail(1)
            cw = pd.concat([before.assign(time_s=start), cw[(cw["time_s"] >= start) & (cw["time_s"] <= end)]])
        cwt, cwv = _thin(cw["time_s"].to_numpy(float), cw["cwnd"].to_numpy(float)) if len(cw) else ([], [])
        tt, tv = _throughput(frames, f, sc, start, end)
        out.append({
            "id": int(f.flow), "kind": str(f.kind), "src": int(f.src), "dst": int(f.dst),
            "start_s": float(f.start_s), "end_s": float(f.end_s), "throughput_kbps": _num(f.throughput_kbps),
            "bytes_delivered": int(f.bytes_delivered), "retransmissions": int(f.retransmissions),
            "timeouts": int(f.timeouts), "rtt_mean_ms": _num(f.rtt_mean_ms),
            "paths": [[t, p] for t, p in changes],
            "cwnd": {"t": cwt, "v": cwv}, "throughput": {"t": tt, "v": tv},
        })
    return out


def _num(v: Any) -> float | None:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def _nodes(res: Any, nodes: int) -> list[dict[str, Any]]:
    """The nodes table's counters per node (over the whole run), for the info panel."""
    t = res.nodes
    keep = [c for c in t.columns if c not in ("node", "x", "y")]
    rows: list[dict[str, Any]] = [{} for _ in range(nodes)]
    for r in t.to_dict("records"):
        n = int(r["node"])
        if 0 <= n < nodes:
            rows[n] = {c: _num(r[c]) for c in keep}
    return rows


def _route_events(res: Any, start: float, end: float) -> dict[str, list[Any]]:
    e = res.route_events
    e = e[(e["time_s"] >= start) & (e["time_s"] <= end)] if len(e) else e
    return {"t": _floats(e["time_s"]) if len(e) else [], "node": _ints(e["node"]) if len(e) else [],
            "event": e["event"].astype(str).tolist() if len(e) else [],
            "peer": _ints(e["peer"]) if len(e) else [],
            "cause": e["cause"].fillna("").astype(str).tolist() if len(e) else []}


# ------------------------------------------------------------------ the whole
def _load(run: Any) -> tuple[Any, Path | None]:
    from ..manifest import ResultError
    from ..result import Result

    if isinstance(run, Result):
        return run, None
    d = Path(os.fspath(run))
    if not d.is_dir():
        raise ViewInputError(f"{d}: not a directory (give the directory `hoplab run --out DIR` wrote)")
    try:
        return Result.load(d, tables=TABLES), d
    except (ResultError, OSError) as e:
        raise ViewInputError(str(e).splitlines()[0]) from None


def _log(res: Any, d: Path | None, start: float, end: float, max_frames: int,
         check: LogCheck) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    if d is not None:
        path = d / "anim.csv"
        if not path.is_file():
            raise ViewInputError(f"{path}: no such file: the page animates a run's event log; {HOW_TO_LOG} "
                                 f"and --out {d}")
        return (*read_log(_chunks_of_file(path), str(path), start, end, max_frames, check), str(path))
    trace = res.trace
    if len(trace) == 0:
        raise ViewInputError("the result has no trace: give the run directory with its anim.csv "
                             f"({HOW_TO_LOG}), or run with [output] trace = true")
    missing = [c for c in ANIM_COLUMNS if c not in trace.columns]
    if missing:
        raise ViewInputError(f"the result's trace has no column {missing[0]!r}")
    return (*read_log([trace], "the result's trace", start, end, max_frames, check, in_file=False), "trace")


def build(run: Any, *, start: float | None = None, end: float | None = None,
          max_frames: int = DEFAULT_MAX_FRAMES) -> dict[str, Any]:
    """The page's data for ``run`` (a result directory or a `Result`) between
    ``start`` and ``end`` (default: the whole run)."""
    from ..formats.ns2 import movement as nm
    from ..plot import _geometry as geo

    res, d = _load(run)
    try:
        sc = geo.resolved(nm._scenario_of(res))
        movement = nm.movement_of(res)
    except ValueError as e:
        raise ViewInputError(f"{d or 'the result'}: {_first_line(e)}") from None
    duration = float(res.info.get("duration_s", sc.get("duration_s", 0.0)))
    lo = 0.0 if start is None else float(start)
    hi = duration if end is None else float(end)
    if not (0.0 <= lo < hi):
        raise ViewInputError(f"--start/--end: the window {lo:g}-{hi:g} s is empty (the run lasts {duration:g} s)")
    nodes = int(res.info.get("nodes", len(res.nodes)))
    mac = sc.get("mac", {})
    slowest = min(float(mac.get("data_rate_mbps", 2.0)), float(mac.get("basic_rate_mbps", 1.0)))
    frames, drops, source = _log(res, d, lo, hi, max_frames, LogCheck(duration, nodes, slowest))
    tx_range, cs_range = _radio_ranges(sc)
    kinds: list[str] = ["RTS", "CTS", "DATA", "ACK"]
    ptypes: list[str] = ["tcp", "ack", "cbr", "routing", "ARP", "MAC"]
    layers: list[str] = ["AGT", "RTR", "MAC", "PHY"]
    infos: list[str] = []  # a frame's `reason`: the routing message it carries (RREQ, ...)
    reasons: list[str] = []  # a drop's: the ns-2 drop code
    out: dict[str, Any] = {
        "meta": {
            "scenario": str(res.info.get("scenario", sc.get("name", ""))), "seed": res.info.get("seed"),
            "event_hash": res.info.get("event_hash"), "duration_s": duration, "start_s": lo, "end_s": hi,
            "nodes": nodes, "frames": int(len(frames)), "drops": int(len(drops)), "source": source,
            "tx_range_m": tx_range, "cs_range_m": cs_range, "area": _area(sc, movement),
            "routing": str(sc.get("routing", {}).get("protocol", "")),
        },
        "legs": _legs(movement, nodes),
        "frames": {
            "t": _floats(frames["time_s"]), "air": _floats(frames["airtime_s"]),
            "tx": _ints(frames["node"]), "rx": _ints(frames["dst"]), "kind": _codes(frames["frame"], kinds),
            "ptype": _codes(frames["packet_type"], ptypes), "psrc": _ints(frames["packet_src"]),
            "pdst": _ints(frames["packet_dst"]), "seq": _ints(frames["seq"]), "retry": _bools(frames["retry"]),
            "tcp_seq": _ints(frames["tcp_seq"]), "size": _ints(frames["size_bytes"]), "uid": _ints(frames["uid"]),
            "info": _codes(frames["reason"], infos),
        },
        "drops": {
            "t": _floats(drops["time_s"]), "node": _ints(drops["node"]), "layer": _codes(drops["layer"], layers),
            "reason": _codes(drops["reason"], reasons), "ptype": _codes(drops["packet_type"], ptypes),
            "psrc": _ints(drops["packet_src"]), "pdst": _ints(drops["packet_dst"]),
            "tcp_seq": _ints(drops["tcp_seq"]), "uid": _ints(drops["uid"]),
        },
        "names": {"kind": kinds, "ptype": ptypes, "layer": layers, "info": infos, "reason": reasons,
                  "reason_text": {c: REASONS[c] for c in reasons if c in REASONS}},
        "flows": _flows(res, frames, sc, lo, hi),
        "nodes": _nodes(res, nodes),
        "route_events": _route_events(res, lo, hi),
    }
    return out
