"""The results of one run as pandas DataFrames, and their files on disk.

A results directory holds ``info.json`` (facts about the run: scenario name,
seed, events, wall time, event hash), one file per table of ``TABLES`` that
has rows (``flows.csv``, ``nodes.csv``, ...; or ``.parquet`` with
format="parquet"; a table without rows is not written), the scenario that was
run as ``scenario.toml`` (a dict, a .json file or --set overrides are written
as TOML too) and ``MANIFEST.json`` (each file's size and SHA-256, written
last). The tables and their columns are the engine's (`_schema.py`);
docs/RESULTS.md lists them.

`Result.load(dir)` reads such a directory back into equal DataFrames, after
checking every file against the manifest (`hoplab.ResultError` if not whole);
a table with no file reads as an empty DataFrame with the schema's columns.
The event hash is 16 hexadecimal digits in `Result.info`, info.json and the
summary alike (info.json files written before hold a decimal number: read as
the same hex string).
"""

from __future__ import annotations

import json
import math
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from . import manifest
from ._csv import csv_text
from ._drop_codes import REASONS
from ._schema import SCHEMA, TABLES
from ._trace_files import STREAM_NAMES, is_stream_name, place
from ._table import fmt_num, text_table

if TYPE_CHECKING:  # pandas is imported when a DataFrame is first needed
    import pandas as pd

__all__ = ["Result", "TABLES", "SCHEMA", "event_hash_text", "read_csv_kw"]

# Column order and dtype of every table come from the engine (`_schema.py`).


def read_csv_kw() -> dict[str, Any]:
    """pandas 3 parses floats exactly by default (and deprecates the option);
    pandas 2 needs float_precision="round_trip" for CSV files to round-trip."""
    import pandas as pd

    return {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


# Every name a file of a result can have: those in a directory that a
# manifest does not list are refused on load and moved aside on save.
RESULT_NAMES = frozenset(
    [f"{t}.{ext}" for t in TABLES for ext in ("csv", "parquet")]
    + ["info.json", "scenario.toml", "scenario.json", manifest.MANIFEST] + sorted(STREAM_NAMES))


def event_hash_text(value: Any) -> str:
    """The event hash as hoplab shows and writes it: 16 hexadecimal digits.

    The engine gives a 64-bit integer, and info.json files written before
    this form hold it as a decimal JSON number: both are converted; a string
    is already this form."""
    return value if isinstance(value, str) else f"{int(value):016x}"


def _with_hex_hash(info: dict[str, Any]) -> dict[str, Any]:
    if info.get("event_hash") is not None:
        info["event_hash"] = event_hash_text(info["event_hash"])
    return info


def _read_table(path: Path, read: Any) -> "pd.DataFrame":
    """A table file as a DataFrame (an empty file is an empty table), or ResultError."""
    import pandas as pd

    try:
        return read()
    except pd.errors.EmptyDataError:
        return pd.DataFrame()
    except (ValueError, OSError) as e:  # pandas' ParserError is a ValueError
        raise manifest.ResultError(path, f"unreadable table ({e})") from None


def _frame(table: str, columns: Mapping[str, Any]) -> "pd.DataFrame":
    """A DataFrame in the schema's column order and dtypes.

    Columns the simulator adds beyond the schema are kept, after the known ones.
    """
    import pandas as pd

    schema = SCHEMA[table]
    df = pd.DataFrame({k: list(v) if not hasattr(v, "dtype") else v for k, v in columns.items()})
    for col, t in schema.items():
        if t is str and col in df.columns:
            df[col] = df[col].astype(object).fillna("")  # an empty string reads back from CSV as NaN
    # A column the file predates (written by an older hoplab) is NaN: an
    # integer dtype cannot hold NaN, so it stays float.
    missing = [c for c in schema if c not in df.columns]
    for col in missing:
        df[col] = pd.Series([], dtype="float64") if len(df) == 0 else float("nan")
    extra = [c for c in df.columns if c not in schema]
    df = df[list(schema) + extra]
    # With no rows there is no NaN to hold: the schema's dtypes (a table
    # without a file, as a run with no rows in it saves, loads as it ran).
    as_float = missing if len(df) else []
    return df.astype({c: t for c, t in schema.items() if c not in as_float}).reset_index(drop=True)


def _read_csv(path: Path, table: str) -> "pd.DataFrame":
    """A table's CSV file, its text columns read as text: a long file whose
    first rows leave one empty would otherwise be guessed chunk by chunk
    (mixed types)."""
    import pandas as pd

    text = {c: str for c, t in SCHEMA[table].items() if t is str}
    return pd.read_csv(path, dtype=text, **read_csv_kw())


def _load_table(d: Path, table: str, name: str, meta: Mapping[str, Any], check: bool) -> "pd.DataFrame":
    """One table file of a result directory as its DataFrame (``check``: its
    checksum first, when `Result.load` left it for later)."""
    import pandas as pd

    path = d / name
    if check:
        manifest.check_file(path, meta)
    if name.endswith(".csv"):
        raw = _read_table(path, lambda: _read_csv(path, table))
    else:
        raw = _read_table(path, lambda: pd.read_parquet(path))
    manifest.check_rows(path, len(raw), dict(meta))
    return _frame(table, {c: raw[c].to_numpy() for c in raw.columns})


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _refuse_store(d: Path) -> None:
    """A lab store is many runs, not one result: say how to read it, rather
    than that its manifest is missing (and then, with verify=False, that
    info.json is)."""
    from .lab.store import STORE_FILE

    if (d / STORE_FILE).is_file() and not (d / manifest.MANIFEST).exists():
        raise manifest.ResultError(d, f"a lab store ({STORE_FILE}), not the result of one run: read its "
                                      f"tables with hoplab.lab.load({str(d)!r})")


def _table_property(name: str) -> property:
    def get(self: "Result") -> "pd.DataFrame":
        df = self._frames.get(name)
        if df is None:
            pending = self._pending.pop(name, None)
            df = pending[0]() if pending is not None else _frame(name, self._columns.pop(name, {}))
            self._frames[name] = df
        return df

    def set_(self: "Result", df: "pd.DataFrame") -> None:
        if name == "trace":  # no longer the streamed file's table: saved from the DataFrame
            self._streamed.pop("trace.csv", None)
        self._columns.pop(name, None)
        self._pending.pop(name, None)
        self._frames[name] = df

    return property(get, set_, doc=f"The ``{name}`` table as a DataFrame (built on first use).")


class Result:
    """What one simulation run produced.

    Attributes: ``info`` (dict), and DataFrames ``flows``, ``nodes``,
    ``drops``, ``timeseries``, ``overhead``, ``route_events``, ``paths``,
    ``outages``, ``trace``, ``movement``, ``downloads`` and
    ``oracle_paths`` (see the module docstring and docs/RESULTS.md). Each
    DataFrame is built from the engine's columns when first used, so a
    result that is only printed and saved never imports pandas.
    """

    def __init__(
        self,
        info: dict[str, Any],
        *frames: "pd.DataFrame",
        scenario_text: str | None = None,
        scenario_format: str | None = None,
    ) -> None:
        """``frames`` are the tables in ``TABLES`` order; missing ones are empty."""
        self.info = info
        self._frames: dict[str, Any] = dict(zip(TABLES, frames))
        # Tables not yet turned into DataFrames: {table: {column: list}}.
        self._columns: dict[str, Mapping[str, Any]] = {
            t: {c: [] for c in SCHEMA[t]} for t in TABLES[len(frames):]}
        # Tables of a loaded directory read on first use: {table: (read, rows or None)}.
        self._pending: dict[str, tuple[Callable[[], "pd.DataFrame"], int | None]] = {}
        self.scenario_text = scenario_text
        self.scenario_format = scenario_format
        # Files the run streamed ([trace] formats): {name: (where it is now, events)}.
        self._streamed: dict[str, tuple[Path, int | None]] = {}

    @classmethod
    def from_core(cls, raw: Mapping[str, Any], *, scenario_text: str | None = None,
                  scenario_format: str | None = None, trace_dir: str | os.PathLike[str] | None = None) -> "Result":
        """Build from the dict returned by ``hoplab._core.run`` (``trace_dir``:
        where its trace files were streamed)."""
        r = cls(
            # The version and commit that ran the simulation (a later save by
            # another hoplab records itself in MANIFEST.json, not here).
            _with_hex_hash({**dict(raw["info"]), **manifest.writer_info()}),
            scenario_text=scenario_text,
            scenario_format=scenario_format,
        )
        r._columns = {t: raw[t] for t in TABLES}
        if trace_dir is not None:
            r._streamed = {name: (Path(trace_dir) / name, int(n)) for name, n in raw.get("trace_files", {}).items()}
        if "trace.csv" in r._streamed and not len(next(iter(r._columns["trace"].values()), ())):
            # Streamed but not kept in memory: the table reads the file when first used.
            del r._columns["trace"]
            r._pending["trace"] = (r._read_streamed_trace, r._streamed["trace.csv"][1])
        return r

    def _read_streamed_trace(self) -> "pd.DataFrame":
        import pandas as pd

        path = self._streamed["trace.csv"][0]
        raw = _read_table(path, lambda: _read_csv(path, "trace"))
        return _frame("trace", {c: raw[c].to_numpy() for c in raw.columns})

    @property
    def trace_files(self) -> dict[str, Path]:
        """The files this run streamed (`[trace] formats`), by name: where
        each is now (the trace directory, or the result directory once saved)."""
        return {name: path for name, (path, _) in self._streamed.items()}

    def _rows(self, table: str) -> list[Any]:
        """The table's rows as named tuples, from the engine's columns if the
        DataFrame was never built (what the summary reads)."""
        cols = self._columns.get(table)
        if cols is None:
            return list(getattr(self, table).itertuples(index=False))
        from collections import namedtuple

        names = list(SCHEMA[table])
        row = namedtuple("Row", names)  # type: ignore[misc]
        return [row(*vals) for vals in zip(*(cols[c] for c in names))]

    def _length(self, table: str) -> int:
        """Rows of ``table``, without reading a table not loaded yet whose
        manifest gives its row count."""
        pending = self._pending.get(table)
        if pending is not None and pending[1] is not None:
            return pending[1]
        cols = self._columns.get(table)
        if cols is None:
            return len(getattr(self, table))
        return len(next(iter(cols.values()), ()))

    # ------------------------------------------------------------------ files
    def _extra_entries(self, format: str) -> list[manifest.Entry]:
        """Files a kind of result saves beside the run's tables (a capture's throughput)."""
        return []

    def _extra_names(self, format: str) -> frozenset[str]:
        """The names of `_extra_entries`, so that an older save's copy is replaced too."""
        return frozenset()

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
        target = Path(directory)
        in_place = []
        for name, (src, events) in self._streamed.items():
            rows = events if name == "trace.csv" else None
            if _same_file(src, target / name):
                in_place.append(manifest.Entry(name, None, rows))  # streamed into this very directory
            else:
                entries.append(manifest.Entry(name, place(src), rows))
        for t in TABLES:
            if t == "trace" and "trace.csv" in self._streamed:
                continue  # the streamed trace.csv is this table, byte for byte
            rows = self._length(t)
            if rows == 0:  # no header-only files: `load` gives the table empty, with its columns
                continue
            cols = self._columns.get(t)
            if format == "csv" and cols is not None:
                write = text(csv_text(list(SCHEMA[t]), cols))
            elif format == "csv":
                write = text(getattr(self, t).to_csv(index=False))
            else:
                write = (lambda p, df=getattr(self, t): df.to_parquet(p, index=False))
            entries.append(manifest.Entry(f"{t}.{format}", write, rows))
        entries += self._extra_entries(format)
        info = _with_hex_hash(dict(self.info))  # an info dict set by hand may hold the engine's integer
        entries.append(manifest.Entry("info.json", text(json.dumps(info, indent=2, sort_keys=True) + "\n")))
        if self.scenario_text is not None:
            entries.append(manifest.Entry("scenario.toml", text(self.scenario_toml())))
        saved = manifest.save_dir(directory, entries + in_place, table_format=format,
                                  result_names=RESULT_NAMES | self._extra_names(format))
        self._streamed = {name: (saved / name, n) for name, (_, n) in self._streamed.items()}
        return saved

    def scenario_toml(self) -> str | None:
        """The scenario that ran as TOML text: as given, or written from the
        JSON a dict, a .json file or --set overrides were sent as."""
        if self.scenario_text is None or self.scenario_format != "json":
            return self.scenario_text
        from . import _toml_emit

        return _toml_emit.dumps(json.loads(self.scenario_text),
                                header="The scenario this run ran, written as TOML by hoplab "
                                       "(it was given as a dict, JSON or with --set overrides).")

    @staticmethod
    def check_writable(directory: str | os.PathLike[str]) -> Path:
        """Raise an OSError naming ``directory`` if `save` could not write there;
        call it before a long run (the CLI does for ``--out``)."""
        return manifest.check_writable(directory)

    @classmethod
    def load(cls, directory: str | Path, *, verify: bool = True,
             tables: "Iterable[str] | None" = None) -> "Result":
        """Read a directory written by `save` (CSV or Parquet).

        Every file is checked against MANIFEST.json first: a missing manifest,
        a missing, truncated or changed file, or result files the manifest does
        not list raise `hoplab.ResultError` naming the file. ``verify=False``
        reads a directory without a manifest (saved before hoplab wrote them)
        with a warning; check it, then `save` it again to add a manifest.

        ``tables`` (names from ``TABLES``): read and checksum only these now;
        the others are checked and read when first used, so that a figure of
        the time series does not read a run's 760 MB trace. Default: all.
        """
        d = Path(directory)
        _refuse_store(d)
        now = None if tables is None else set(tables)
        unknown = sorted((now or set()) - set(TABLES))
        if unknown:
            raise ValueError(f"tables: {unknown[0]!r} is not a table of a result ({', '.join(TABLES)})")
        if verify:
            names = None if now is None else (set(RESULT_NAMES) - {f"{t}.{e}" for t in set(TABLES) - now
                                                                   for e in ("csv", "parquet")})
            files = manifest.verify(d, RESULT_NAMES, checksums=names)["files"]
        else:
            warnings.warn(f"{d}: loading without checking the result's manifest", stacklevel=2)
            files = {f"{t}.{ext}": {} for t in TABLES for ext in ("csv", "parquet") if (d / f"{t}.{ext}").exists()}
        if not (d / "info.json").is_file():  # verify=False: not checked above
            raise manifest.ResultError(d / "info.json", "missing: not a result directory written by "
                                       "Result.save or `hoplab run --out`")
        info = _with_hex_hash(json.loads((d / "info.json").read_text()))
        text, fmt = None, None
        for ext in ("toml", "json"):  # scenario.json: written by hoplab before it wrote TOML always
            if (d / f"scenario.{ext}").exists():
                text, fmt = (d / f"scenario.{ext}").read_text(), ext
        r = cls(info, scenario_text=text, scenario_format=fmt)
        r._columns = {}
        r._streamed = {n: (d / n, files[n].get("rows")) for n in sorted(files) if is_stream_name(n)}
        for t in TABLES:
            name = next((f"{t}.{e}" for e in ("csv", "parquet") if f"{t}.{e}" in files), None)
            if name is None:  # no rows (not written), or saved before this table existed
                r._frames[t] = _frame(t, {})
                continue
            meta = files[name]
            later = now is not None and t not in now
            read = (lambda t=t, name=name, meta=meta, check=verify and later:
                    _load_table(d, t, name, meta, check))
            if later:
                r._pending[t] = (read, meta.get("rows"))
            else:
                r._frames[t] = read()
        return r

    # ---------------------------------------------------------------- display
    def flows_table(self) -> str:
        headers, rows, align = self._flows_cells()
        return text_table(headers, rows, align=align)

    def _flows_cells(self) -> tuple[list[str], list[list[Any]], str]:
        """Headers, formatted rows and alignment of the flows table (text and HTML)."""
        # NaN (no RTT for a CBR flow, no delay for an FTP flow) prints "-".
        rows = []
        for r in self._rows("flows"):
            tcp = r.kind != "cbr"
            rows.append([
                r.flow, r.kind, f"{r.src}->{r.dst}", fmt_num(r.throughput_kbps, 1),
                fmt_num(r.retransmission_index, 2), fmt_num(r.loss_rate, 4),
                fmt_num(r.rtt_mean_ms, 1), fmt_num(r.rtt_std_ms, 1),
                fmt_num(r.delay_mean_ms, 1), fmt_num(r.jitter_ms, 2),
                fmt_num(r.timeouts, 0),  # NaN in a capture's flows (hoplab.analyze): "-"
                ("yes" if r.stream_errors == 0 else f"NO ({r.stream_errors})")
                if tcp and r.stream_errors == r.stream_errors else "-",
            ])
        return (["flow", "kind", "path", "thr kbps", "retx idx %", "loss rate", "rtt ms", "rtt std", "delay ms",
                 "jitter ms", "RTOs", "in order"], rows, "llrrrrrrrrrr")

    def nodes_table(self) -> str:
        rows = [[r.node, fmt_num(r.x, 0), fmt_num(r.y, 0), fmt_num(r.ifq_mean, 2), r.ifq_max,
                 fmt_num(int(r.mac_frames_sent), 0), fmt_num(int(r.mac_retransmissions), 0),
                 fmt_num(int(r.rx_collisions), 0), fmt_num(int(r.forwarded), 0)]
                for r in self._rows("nodes")]
        return text_table(["node", "x m", "y m", "queue mean", "queue max", "MAC frames", "MAC retx",
                           "rx collisions", "forwarded"], rows)

    def drops_table(self) -> str:
        rows = [[r.node, r.layer, r.reason, r.packet_type, fmt_num(int(r.count), 0)]
                for r in self._rows("drops")]
        return text_table(["node", "layer", "reason", "type", "count"], rows, align="llllr")

    def drops_by_cause_table(self) -> str:
        """Drops summed over nodes and packet types: one row per layer, its
        causes (ns-2 codes, most frequent first) and a total."""
        by: dict[str, dict[str, int]] = {}
        for r in self._rows("drops"):
            causes = by.setdefault(str(r.layer), {})
            causes[str(r.reason)] = causes.get(str(r.reason), 0) + int(r.count)
        rows = []
        for layer, causes in sorted(by.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])):
            ranked = sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))
            rows.append([layer, fmt_num(sum(causes.values()), 0),
                         ", ".join(f"{code} {n:,} ({REASONS.get(code, 'unknown code')})" for code, n in ranked)])
        rows.append(["total", fmt_num(sum(sum(c.values()) for c in by.values()), 0), ""])
        return text_table(["layer", "drops", "by cause"], rows, align="lrl")

    def tables_lines(self, where: Callable[[str], str] | None = None) -> list[str]:
        """One line per table other than flows with its row count (and
        ``where(table)``, how to see it), then one naming those with no rows."""
        lines, empty = [], []
        for t in TABLES[1:]:
            n = self._length(t)
            if n == 0:
                empty.append(t)
                continue
            hint = where(t) if where is not None else ""
            lines.append(f"{t:<13}{n:>10,} row{'s' if n != 1 else ' '}{'  ' + hint if hint else ''}".rstrip())
        if empty:
            lines.append(f"no rows: {', '.join(empty)}")
        return lines

    def routing_table(self) -> str:
        """Routing figures per flow and overall: route changes, outages, RTO
        time, link failures (false ones), discoveries, control overhead."""
        rows = [[r.flow, f"{r.src}->{r.dst}", fmt_num(int(r.route_changes), 0), fmt_num(r.no_route_s, 2),
                 fmt_num(r.longest_gap_s, 2), fmt_num(r.rto_time_s, 2)]
                for r in self._rows("flows")]
        parts = [text_table(["flow", "path", "route changes", "no route s", "longest gap s", "time in RTO s"], rows)]
        ev = self._rows("route_events")

        def count(event: str) -> int:
            return sum(1 for e in ev if e.event == event)

        links = [e for e in ev if e.event == "link_broken"]
        lat = [float(e.latency_s) for e in ev if e.event == "discovery_done" and not math.isnan(e.latency_s)]
        parts.append(
            f"link failures declared {len(links)} (false: {sum(1 for e in links if e.false_failure)}), "
            f"route errors sent {count('rerr_sent')}, "
            f"discoveries {count('discovery_started')} "
            f"(done {count('discovery_done')}, failed {count('discovery_failed')}"
            + (f", mean latency {sum(lat) / len(lat) * 1e3:.1f} ms" if lat else "") + "), "
            f"salvaged {count('salvaged')}")
        by: dict[str, list[int]] = {}
        for r in self._rows("overhead"):
            tot = by.setdefault(r.kind, [0, 0])
            tot[0] += int(r.packets)
            tot[1] += int(r.bytes)
        if by:
            orow = [[k, fmt_num(p, 0), fmt_num(b, 0)] for k, (p, b) in sorted(by.items())]
            orow.append(["total", fmt_num(sum(p for p, _ in by.values()), 0),
                         fmt_num(sum(b for _, b in by.values()), 0)])
            parts.append(text_table(["control type", "packets sent", "bytes sent"], orow, align="lrr"))
        return "\n".join(parts)

    def info_line(self) -> str:
        i = self.info
        events = int(i.get("events", 0))
        wall = float(i.get("wall_s", 0.0))
        rate = f"{events / wall:,.0f}" if wall > 0 else "-"
        return (f"scenario {i.get('scenario')!r}  seed {i.get('seed')}  {fmt_num(i.get('duration_s'), 1)} s simulated  "
                f"{i.get('nodes')} nodes  {events:,} events  {wall:.3f} s wall  {rate} events/s  "
                f"event hash {event_hash_text(i.get('event_hash', 0))}")

    def no_path_lines(self) -> list[str]:
        """One line per flow whose ends had no path at its start (the oracle's
        `oracle_hops_at_start` is 0): its zero throughput and undefined ratios
        are the topology's, not the protocols'."""
        # From the rows, not `self.flows`: the summary never builds a DataFrame
        # (pandas would add ~0.4 s to `hoplab run`); an old result lacks the column.
        return [f"flow {r.flow} ({r.src}->{r.dst}): no path between its ends at its start "
                "(no chain of nodes in range; '-' = undefined, nothing delivered)"
                for r in self._rows("flows") if getattr(r, "oracle_hops_at_start", -1) == 0]

    def summary(self, full: bool = False, *, tables_title: str | None = None,
                where: Callable[[str], str] | None = None) -> str:
        """A text summary that fits a terminal: the run info, the flows,
        routing per flow and its totals, drops totalled by layer and cause,
        then one line per other table with its row count.

        ``full=True``: the full view instead, with the per-node table and the
        drops per node, layer, cause and packet type. ``tables_title`` and
        ``where(table)`` word the last part (`hoplab run` names the files and
        ``--detail``; the default names the DataFrame attributes).
        """
        n = self._length
        parts = [self.info_line(), "", "Flows", self.flows_table() if n("flows") else "(no flows)"]
        parts += self.no_path_lines()
        if n("overhead") or n("route_events"):
            parts += ["", "Routing", self.routing_table()]
        if full:
            parts += ["", "Nodes", self.nodes_table() if n("nodes") else "(no nodes)"]
            parts += ["", "Drops", self.drops_table() if n("drops") else "(no drops)"]
            return "\n".join(parts)
        parts += ["", "Drops by layer and cause", self.drops_by_cause_table() if n("drops") else "(no drops)"]
        if where is None:
            where = lambda t: f".{t}"  # noqa: E731
        parts += ["", tables_title or "Other tables (DataFrames; summary(full=True) prints nodes and drops in full)",
                  *self.tables_lines(where)]
        return "\n".join(parts)

    def __repr__(self) -> str:
        return f"<hoplab.Result>\n{self.summary()}"

    def _repr_html_(self) -> str:
        """Jupyter's display: the run info, the flows table and one line per other table."""
        from html import escape

        from ._table import html_table

        headers, rows, align = self._flows_cells()
        flows = html_table(headers, rows, align=align) if self._length("flows") else "<p>(no flows)</p>"
        others = "<br>".join(escape(line) for line in self.tables_lines(lambda t: f".{t}"))
        return (f"<div><p><b>hoplab.Result</b> <code>{escape(self.info_line())}</code></p>{flows}"
                f"<p><small>{others}</small></p></div>")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        return self.info == other.info and all(getattr(self, t).equals(getattr(other, t)) for t in TABLES)


for _t in TABLES:
    setattr(Result, _t, _table_property(_t))
