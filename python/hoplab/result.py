"""The results of one run as pandas DataFrames, and their files on disk.

A results directory holds::

    info.json        facts about the run (scenario name, seed, events, wall time, event hash)
    flows.csv        one row per flow       (or .parquet with format="parquet")
    nodes.csv        one row per node
    drops.csv        one row per (node, layer, reason, packet type)
    timeseries.csv   TCP sender state (cwnd, ssthresh, srtt, rto) over time, bounded by
                     [output] timeseries_interval_s and timeseries_max_samples
    overhead.csv     routing control packets and bytes sent, per node and message type
    route_events.csv link failures (false or not), discoveries and their latency, RERRs, salvages
    paths.csv        seconds each flow direction spent at each path length
    outages.csv      no-route periods at sources and delivery gaps at destinations
    trace.csv        with `[output] trace = true`: every frame sent and received, every drop
    scenario.toml    the scenario that was run (scenario.json for a dict)

`Result.load(dir)` reads such a directory back into equal DataFrames.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from . import _io
from ._table import fmt_num, text_table

__all__ = ["Result", "TABLES", "SCHEMA", "READ_CSV_KW"]

# pandas 3 parses floats exactly by default (and deprecates the option);
# pandas 2 needs float_precision="round_trip" for CSV files to round-trip.
READ_CSV_KW: dict[str, Any] = (
    {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"})

TABLES = ("flows", "nodes", "drops", "timeseries", "overhead", "route_events", "paths", "outages", "trace")

# Column order and dtype of every table (mirrors crates/hoplab-sim/src/results.rs).
SCHEMA: dict[str, dict[str, Any]] = {
    "flows": {
        "flow": "int64",
        "kind": str,
        "src": "int64",
        "dst": "int64",
        "start_s": "float64",
        "end_s": "float64",
        "bytes_delivered": "int64",
        "throughput_kbps": "float64",
        "packets_sent": "int64",
        "retransmissions": "int64",
        "packets_received": "int64",
        "retransmission_index": "float64",
        "loss_rate": "float64",
        "rtt_mean_ms": "float64",
        "rtt_std_ms": "float64",
        "rtt_samples": "int64",
        "timeouts": "int64",
        "fast_retransmits": "int64",
        "stream_errors": "int64",
        "completed": "bool",
        "route_changes": "int64",
        "rto_time_s": "float64",
        "no_route_s": "float64",
        "longest_gap_s": "float64",
        "elfn_events": "int64",
        "probes": "int64",
        "standby_s": "float64",
        "adtcp_congestion": "int64",
        "adtcp_channel_error": "int64",
        "adtcp_route_change": "int64",
        "adtcp_disconnection": "int64",
        "delay_mean_ms": "float64",
        "delay_std_ms": "float64",
        "jitter_ms": "float64",
    },
    "nodes": {
        "node": "int64",
        "x": "float64",
        "y": "float64",
        "ifq_mean": "float64",
        "ifq_max": "int64",
        "mac_frames_sent": "int64",
        "mac_data_sent": "int64",
        "mac_retransmissions": "int64",
        "rx_collisions": "int64",
        "forwarded": "int64",
    },
    "drops": {
        "node": "int64",
        "layer": str,
        "reason": str,
        "packet_type": str,
        "count": "int64",
    },
    "timeseries": {
        "flow": "int64",
        "time_s": "float64",
        "cwnd": "float64",
        "ssthresh": "float64",
        "srtt_ms": "float64",
        "rto_ms": "float64",
    },
    "overhead": {"node": "int64", "kind": str, "packets": "int64", "bytes": "int64"},
    "route_events": {
        "time_s": "float64",
        "node": "int64",
        "event": str,
        "peer": "int64",
        "cause": str,
        "false_failure": "bool",
        "flow": "int64",
        "latency_s": "float64",
    },
    "paths": {"flow": "int64", "direction": str, "hops": "int64", "time_s": "float64"},
    "outages": {"flow": "int64", "node": "int64", "kind": str, "start_s": "float64", "end_s": "float64"},
    # `[output] trace = true`: every frame sent ("tx") or ended at a receiver
    # ("rx" decoded, "col" collided, "weak" below the receive threshold) and
    # every drop ("drop", with the ns-2 code in `reason`).
    "trace": {
        "time_s": "float64",
        "node": "int64",
        "event": str,
        "frame": str,
        "src": "int64",
        "dst": "int64",
        "seq": "int64",
        "retry": "bool",
        "uid": "int64",
        "packet_type": str,
        "packet_src": "int64",
        "packet_dst": "int64",
        "tcp_seq": "int64",
        "reason": str,
    },
}


def _frame(table: str, columns: Mapping[str, Any]) -> pd.DataFrame:
    """A DataFrame in the schema's column order and dtypes.

    Columns the simulator adds beyond the schema are kept, after the known ones.
    """
    schema = SCHEMA[table]
    df = pd.DataFrame({k: list(v) if not hasattr(v, "dtype") else v for k, v in columns.items()})
    for col in {"route_events": ("cause",), "trace": ("frame", "reason")}.get(table, ()):
        if col in df.columns:
            df[col] = df[col].astype(object).fillna("")  # an empty string reads back from CSV as NaN
    for col in schema:
        if col not in df.columns:
            df[col] = pd.Series([], dtype="float64") if len(df) == 0 else float("nan")
    extra = [c for c in df.columns if c not in schema]
    df = df[list(schema) + extra]
    return df.astype({c: t for c, t in schema.items()}).reset_index(drop=True)


class Result:
    """What one simulation run produced.

    Attributes: ``info`` (dict), and DataFrames ``flows``, ``nodes``,
    ``drops``, ``timeseries``, ``overhead``, ``route_events``, ``paths``,
    ``outages`` and ``trace`` (see the module docstring).
    """

    flows: pd.DataFrame
    nodes: pd.DataFrame
    drops: pd.DataFrame
    timeseries: pd.DataFrame
    overhead: pd.DataFrame
    route_events: pd.DataFrame
    paths: pd.DataFrame
    outages: pd.DataFrame
    trace: pd.DataFrame

    def __init__(
        self,
        info: dict[str, Any],
        *frames: pd.DataFrame,
        scenario_text: str | None = None,
        scenario_format: str | None = None,
    ) -> None:
        """``frames`` are the tables in ``TABLES`` order; missing ones are empty."""
        self.info = info
        for i, t in enumerate(TABLES):
            setattr(self, t, frames[i] if i < len(frames) else _frame(t, {}))
        self.scenario_text = scenario_text
        self.scenario_format = scenario_format

    @classmethod
    def from_core(cls, raw: Mapping[str, Any], *, scenario_text: str | None = None,
                  scenario_format: str | None = None) -> "Result":
        """Build from the dict returned by ``hoplab._core.run_toml``/``run_json``."""
        return cls(
            dict(raw["info"]),
            *(_frame(t, raw[t]) for t in TABLES),
            scenario_text=scenario_text,
            scenario_format=scenario_format,
        )

    # ------------------------------------------------------------------ files
    def save(self, directory: str | Path, format: str = "csv") -> Path:
        """Write the four tables, info.json and the scenario into ``directory``.

        Each file is written atomically (temporary name, then rename); an
        existing file with different content is moved to
        ``previous/<timestamp>/`` first, and unrelated files are left alone.
        Returns the directory.
        """
        if format not in ("csv", "parquet"):
            raise ValueError(f"format must be 'csv' or 'parquet', not {format!r}")
        if format == "parquet":
            try:
                import pyarrow  # noqa: F401
            except ImportError as e:  # pragma: no cover - depends on the environment
                raise ImportError("format='parquet' needs pyarrow: pip install 'hoplab[parquet]'") from e
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        stamp = _io._stamp()
        for t in TABLES:
            df = getattr(self, t)
            if format == "csv":
                _io.atomic_write_bytes(d / f"{t}.csv", df.to_csv(index=False).encode(), stamp=stamp)
            else:
                _io.atomic_write_with(d / f"{t}.parquet", lambda p, df=df: df.to_parquet(p, index=False), stamp=stamp)
        info = json.dumps(self.info, indent=2, sort_keys=True) + "\n"
        _io.atomic_write_bytes(d / "info.json", info.encode(), stamp=stamp)
        if self.scenario_text is not None:
            ext = "json" if self.scenario_format == "json" else "toml"
            _io.atomic_write_bytes(d / f"scenario.{ext}", self.scenario_text.encode(), stamp=stamp)
        return d

    @classmethod
    def load(cls, directory: str | Path) -> "Result":
        """Read a directory written by `save` (CSV or Parquet)."""
        d = Path(directory)
        info = json.loads((d / "info.json").read_text())
        frames = {}
        for t in TABLES:
            if (d / f"{t}.csv").exists():
                raw = pd.read_csv(d / f"{t}.csv", **READ_CSV_KW)
            elif (d / f"{t}.parquet").exists():
                raw = pd.read_parquet(d / f"{t}.parquet")
            else:  # written before this table existed
                raw = pd.DataFrame()
            frames[t] = _frame(t, {c: raw[c].to_numpy() for c in raw.columns})
        text, fmt = None, None
        for ext in ("toml", "json"):
            if (d / f"scenario.{ext}").exists():
                text, fmt = (d / f"scenario.{ext}").read_text(), ext
        return cls(info, *(frames[t] for t in TABLES), scenario_text=text, scenario_format=fmt)

    # ---------------------------------------------------------------- display
    def flows_table(self) -> str:
        # NaN (no RTT for a CBR flow, no delay for an FTP flow) prints "-".
        rows = []
        for r in self.flows.itertuples(index=False):
            tcp = r.kind != "cbr"
            rows.append([
                r.flow, r.kind, f"{r.src}->{r.dst}", fmt_num(r.throughput_kbps, 1),
                fmt_num(r.retransmission_index, 2), fmt_num(r.loss_rate, 4),
                fmt_num(r.rtt_mean_ms, 1), fmt_num(r.rtt_std_ms, 1),
                fmt_num(r.delay_mean_ms, 1), fmt_num(r.jitter_ms, 2),
                fmt_num(int(r.timeouts), 0),
                ("yes" if r.stream_errors == 0 else f"NO ({r.stream_errors})") if tcp else "-",
            ])
        return text_table(
            ["flow", "kind", "path", "thr kbps", "retx idx %", "loss rate", "rtt ms", "rtt std", "delay ms",
             "jitter ms", "RTOs", "in order"],
            rows, align="llrrrrrrrrrr")

    def nodes_table(self) -> str:
        rows = [[r.node, fmt_num(r.x, 0), fmt_num(r.y, 0), fmt_num(r.ifq_mean, 2), r.ifq_max,
                 fmt_num(int(r.mac_frames_sent), 0), fmt_num(int(r.mac_retransmissions), 0),
                 fmt_num(int(r.rx_collisions), 0), fmt_num(int(r.forwarded), 0)]
                for r in self.nodes.itertuples(index=False)]
        return text_table(["node", "x m", "y m", "queue mean", "queue max", "MAC frames", "MAC retx",
                           "rx collisions", "forwarded"], rows)

    def drops_table(self) -> str:
        rows = [[r.node, r.layer, r.reason, r.packet_type, fmt_num(int(r.count), 0)]
                for r in self.drops.itertuples(index=False)]
        return text_table(["node", "layer", "reason", "type", "count"], rows, align="llllr")

    def routing_table(self) -> str:
        """Routing figures per flow and overall: route changes, outages, RTO
        time, link failures (false ones), discoveries, control overhead."""
        rows = [[r.flow, f"{r.src}->{r.dst}", fmt_num(int(r.route_changes), 0), fmt_num(r.no_route_s, 2),
                 fmt_num(r.longest_gap_s, 2), fmt_num(r.rto_time_s, 2)]
                for r in self.flows.itertuples(index=False)]
        parts = [text_table(["flow", "path", "route changes", "no route s", "longest gap s", "time in RTO s"], rows)]
        ev = self.route_events
        links = ev[ev.event == "link_broken"]
        done = ev[ev.event == "discovery_done"]
        lat = done.latency_s.dropna()
        parts.append(
            f"link failures declared {len(links)} (false: {int(links.false_failure.sum())}), "
            f"route errors sent {int((ev.event == 'rerr_sent').sum())}, "
            f"discoveries {int((ev.event == 'discovery_started').sum())} "
            f"(done {len(done)}, failed {int((ev.event == 'discovery_failed').sum())}"
            + (f", mean latency {lat.mean() * 1e3:.1f} ms" if len(lat) else "") + "), "
            f"salvaged {int((ev.event == 'salvaged').sum())}")
        if len(self.overhead):
            by = self.overhead.groupby("kind")[["packets", "bytes"]].sum()
            orow = [[k, fmt_num(int(r.packets), 0), fmt_num(int(r.bytes), 0)] for k, r in by.iterrows()]
            orow.append(["total", fmt_num(int(by.packets.sum()), 0), fmt_num(int(by.bytes.sum()), 0)])
            parts.append(text_table(["control type", "packets sent", "bytes sent"], orow, align="lrr"))
        return "\n".join(parts)

    def info_line(self) -> str:
        i = self.info
        events = int(i.get("events", 0))
        wall = float(i.get("wall_s", 0.0))
        rate = f"{events / wall:,.0f}" if wall > 0 else "-"
        return (f"scenario {i.get('scenario')!r}  seed {i.get('seed')}  {fmt_num(i.get('duration_s'), 1)} s simulated  "
                f"{i.get('nodes')} nodes  {events:,} events  {wall:.3f} s wall  {rate} events/s  "
                f"event hash {int(i.get('event_hash', 0)):016x}")

    def summary(self, full: bool = False) -> str:
        """A compact text summary: the flows table and the run info.

        With ``full=True`` also the per-node table and the drops.
        """
        parts = [self.info_line(), "", "Flows", self.flows_table() if len(self.flows) else "(no flows)"]
        if len(self.overhead) or len(self.route_events):
            parts += ["", "Routing", self.routing_table()]
        if full:
            parts += ["", "Nodes", self.nodes_table() if len(self.nodes) else "(no nodes)"]
            parts += ["", "Drops", self.drops_table() if len(self.drops) else "(no drops)"]
        return "\n".join(parts)

    def __repr__(self) -> str:
        return f"<hoplab.Result>\n{self.summary()}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        return self.info == other.info and all(getattr(self, t).equals(getattr(other, t)) for t in TABLES)
