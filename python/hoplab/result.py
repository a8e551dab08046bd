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
    movement.csv     every node's initial position (time 0, speed 0), then every leg it started
    downloads.csv    per download of a www flow: start, end (last byte ACKed), bytes, completed
    oracle_paths.csv seconds each flow's shortest path in the true topology had each hop count
                     (0: no path), while the flow was active (seed 002 Eq. 1's t_i)
    scenario.toml    the scenario that was run (scenario.json for a dict)
    MANIFEST.json    each file's size and SHA-256, written last (hoplab/manifest.py)

`Result.load(dir)` reads such a directory back into equal DataFrames, after
checking every file against the manifest (`hoplab.ResultError` if not whole).
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from . import manifest
from ._table import fmt_num, text_table

__all__ = ["Result", "TABLES", "SCHEMA", "READ_CSV_KW"]

# pandas 3 parses floats exactly by default (and deprecates the option);
# pandas 2 needs float_precision="round_trip" for CSV files to round-trip.
READ_CSV_KW: dict[str, Any] = (
    {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"})

TABLES = ("flows", "nodes", "drops", "timeseries", "overhead", "route_events", "paths", "outages", "trace",
          "movement", "downloads", "oracle_paths")

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
        "completion_s": "float64",
        "transfer_throughput_kbps": "float64",
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
    # One row per leg a node started, scripted or random waypoint: from (x, y)
    # toward (to_x, to_y) at speed_mps; each node's initial position is a row
    # at time 0 with speed 0 (what an ns-2 movement file needs).
    "movement": {
        "node": "int64",
        "time_s": "float64",
        "x": "float64",
        "y": "float64",
        "to_x": "float64",
        "to_y": "float64",
        "speed_mps": "float64",
    },
    "downloads": {
        "flow": "int64",
        "download": "int64",
        "start_s": "float64",
        "end_s": "float64",
        "bytes": "int64",
        "completed": "bool",
    },
    "oracle_paths": {"flow": "int64", "hops": "int64", "time_s": "float64"},
}


# Every name a file of a result can have: those in a directory that a
# manifest does not list are refused on load and moved aside on save.
RESULT_NAMES = frozenset(
    [f"{t}.{ext}" for t in TABLES for ext in ("csv", "parquet")]
    + ["info.json", "scenario.toml", "scenario.json", manifest.MANIFEST])


def _read_table(path: Path, read: Any) -> pd.DataFrame:
    """A table file as a DataFrame (an empty file is an empty table), or ResultError."""
    try:
        return read()
    except pd.errors.EmptyDataError:
        return pd.DataFrame()
    except (ValueError, OSError) as e:  # pandas' ParserError is a ValueError
        raise manifest.ResultError(path, f"unreadable table ({e})") from None


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
    ``outages``, ``trace``, ``movement``, ``downloads`` and
    ``oracle_paths`` (see the module docstring).
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
    movement: pd.DataFrame
    downloads: pd.DataFrame
    oracle_paths: pd.DataFrame

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
            # The version and commit that ran the simulation (a later save by
            # another hoplab records itself in MANIFEST.json, not here).
            {**dict(raw["info"]), **manifest.writer_info()},
            *(_frame(t, raw[t]) for t in TABLES),
            scenario_text=scenario_text,
            scenario_format=scenario_format,
        )

    # ------------------------------------------------------------------ files
    def save(self, directory: str | Path, format: str = "csv") -> Path:
        """Write the tables, info.json and the scenario into ``directory``, as one unit.

        The files and a MANIFEST.json listing their sizes and checksums are
        written into a staging directory, the manifest last, then renamed into
        place (`hoplab.manifest.save_dir`): a crash leaves the old result or the
        new one, or a directory `load` refuses, never a mix. Earlier result
        files with different content are moved to ``previous/<timestamp>/``
        first, and unrelated files are left alone. Files get the user's umask.
        Returns the directory.
        """
        if format not in ("csv", "parquet"):
            raise ValueError(f"format must be 'csv' or 'parquet', not {format!r}")
        if format == "parquet":
            try:
                import pyarrow  # noqa: F401
            except ImportError as e:  # pragma: no cover - depends on the environment
                raise ImportError("format='parquet' needs pyarrow: pip install pyarrow") from e

        def text(data: str) -> Any:
            return lambda p: p.write_bytes(data.encode())

        entries = []
        for t in TABLES:
            df = getattr(self, t)
            if format == "csv":
                write = text(df.to_csv(index=False))
            else:
                write = (lambda p, df=df: df.to_parquet(p, index=False))
            entries.append(manifest.Entry(f"{t}.{format}", write, len(df)))
        entries.append(manifest.Entry("info.json", text(json.dumps(self.info, indent=2, sort_keys=True) + "\n")))
        if self.scenario_text is not None:
            ext = "json" if self.scenario_format == "json" else "toml"
            entries.append(manifest.Entry(f"scenario.{ext}", text(self.scenario_text)))
        return manifest.save_dir(directory, entries, table_format=format, result_names=RESULT_NAMES)

    @staticmethod
    def check_writable(directory: str | os.PathLike[str]) -> Path:
        """Raise an OSError naming ``directory`` if `save` could not write there;
        call it before a long run (the CLI does for ``--out``)."""
        return manifest.check_writable(directory)

    @classmethod
    def load(cls, directory: str | Path, *, verify: bool = True) -> "Result":
        """Read a directory written by `save` (CSV or Parquet).

        Every file is checked against MANIFEST.json first: a missing manifest,
        a missing, truncated or changed file, or result files the manifest does
        not list raise `hoplab.ResultError` naming the file. ``verify=False``
        reads a directory without a manifest (saved before hoplab wrote them)
        with a warning; check it, then `save` it again to add a manifest.
        """
        d = Path(directory)
        if verify:
            m = manifest.verify(d, RESULT_NAMES)
            files = m["files"]
        else:
            warnings.warn(f"{d}: loading without checking the result's manifest", stacklevel=2)
            files = {f"{t}.{ext}": {} for t in TABLES for ext in ("csv", "parquet") if (d / f"{t}.{ext}").exists()}
        info = json.loads((d / "info.json").read_text())
        frames = {}
        for t in TABLES:
            if f"{t}.csv" in files:
                path = d / f"{t}.csv"
                raw = _read_table(path, lambda: pd.read_csv(path, **READ_CSV_KW))
            elif f"{t}.parquet" in files:
                path = d / f"{t}.parquet"
                raw = _read_table(path, lambda: pd.read_parquet(path))
            else:  # written before this table existed
                path, raw = d / f"{t}.csv", pd.DataFrame()
            manifest.check_rows(path, len(raw), files.get(path.name, {}))
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
