"""`hoplab lab summary STORE --by FACTOR ... --metric M ...`: the mean,
standard deviation, n and t-interval of flow metrics per cell of a store,
computed by `hoplab.stats.describe` over `hoplab.lab.load(STORE)`, as the
Python API computes them.

    hoplab lab summary STORE --by FACTOR [--by ...] --metric M [--metric ...]
                       [--design NAME] [--level 0.95] [--format table|csv|markdown]
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ._designs import lab_errors
from .errors import HoplabError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["summary_cmd", "summarise", "metric_names", "FLOW_KEYS"]

FORMATS = ("table", "csv", "markdown")
# Flows columns that say which flow a row is rather than how it went: they
# group (--by), they are not metrics.
FLOW_KEYS = ("flow", "kind", "src", "dst")


def metric_names() -> list[str]:
    """The numeric (and yes/no) columns of the flows table, from the result schema."""
    from .._schema import SCHEMA

    return [c for c, t in SCHEMA["flows"].items() if t is not str and c not in FLOW_KEYS]


def group_names(df: pd.DataFrame) -> list[str]:
    """What a store's table can be grouped by: design, the designs' factors, then the flow keys."""
    from .._schema import SCHEMA
    from ..lab.load import RUN_COLUMNS, RUN_TAIL

    skip = {*RUN_COLUMNS, *RUN_TAIL, *SCHEMA["flows"]}  # design.py refuses factors of these names
    return ["design", *(c for c in df.columns if c not in skip), *FLOW_KEYS]


def summarise(df: pd.DataFrame, by: list[str], metrics: list[str], level: float = 0.95) -> pd.DataFrame:
    """`hoplab.stats.describe` of each metric, one below the other, with a
    leading ``metric`` column: ``[metric, *by, n, mean, std, sem, ci_low, ci_high]``."""
    import pandas as pd

    from ..stats import describe

    parts = []
    for m in metrics:
        part = describe(df, m, by, level)
        part.insert(0, "metric", m)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _decimals(means: Any, stds: Any) -> int:
    """Decimals for one metric's rows: 4 significant digits of its largest
    mean (312.4, 2.534, 0.02013) and at least 2 of its smallest standard
    deviation, so that a spread is never printed as 0 or 1; at most 6."""

    def nonzero(values: Any) -> list[float]:
        return [abs(v) for v in values if isinstance(v, float) and math.isfinite(v) and v != 0]

    m, s = nonzero(means), nonzero(stds)
    d = max(3 - math.floor(math.log10(max(m))) if m else 0, 1 - math.floor(math.log10(min(s))) if s else 0)
    return min(6, max(0, d))


def _num(v: Any, decimals: int) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{decimals}f}"


def _level_text(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _rows(out: pd.DataFrame, by: list[str], level: float) -> tuple[list[str], list[list[str]]]:
    headers = ["metric", *by, "n", "mean", "std", f"{level * 100:g}% CI"]
    rows = []
    for m, part in out.groupby("metric", sort=False):
        d = _decimals(part["mean"].tolist(), part["std"].tolist())
        for r in part.to_dict("records"):
            ci = "-" if math.isnan(r["ci_low"]) else f"[{_num(r['ci_low'], d)}, {_num(r['ci_high'], d)}]"
            rows.append([str(m), *(_level_text(r[b]) for b in by), str(r["n"]), _num(r["mean"], d),
                         _num(r["std"], d), ci])
    return headers, rows


def render(out: pd.DataFrame, by: list[str], level: float, fmt: str) -> str:
    """The summary as a text table, CSV (full precision: every digit of
    describe's floats, empty for NaN) or a markdown table."""
    if fmt == "csv":
        return out.to_csv(index=False)
    from .._table import markdown_table, text_table

    headers, rows = _rows(out, by, level)
    align = "l" * (1 + len(by)) + "rrrr"
    table = markdown_table if fmt == "markdown" else text_table
    return table(headers, rows, align=align) + "\n"


def _check_names(what: str, asked: list[str], valid: list[str]) -> None:
    for name in asked:
        if name not in valid:
            raise HoplabError(f"{what} {name}: not one of {', '.join(valid)}")


@click.command("summary")
@click.argument("store", type=click.Path(file_okay=False, path_type=Path))
@click.option("--by", "by", multiple=True, required=True, metavar="FACTOR",
              help="Group by this factor (repeat for a cell per combination); also design, flow, kind, src, dst.")
@click.option("--metric", "metrics", multiple=True, required=True, metavar="M",
              help="A column of the flows table, e.g. throughput_kbps, retransmission_index (repeatable).")
@click.option("--design", "design", default=None, metavar="NAME", help="One design's runs (default: all).")
@click.option("--level", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95, show_default=True,
              help="Confidence level of the t-interval.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
def summary_cmd(store: Path, by: tuple[str, ...], metrics: tuple[str, ...], design: str | None, level: float,
                fmt: str) -> None:
    """Mean, standard deviation, n and t confidence interval of metrics per cell of STORE.

    The numbers are those of `hoplab.stats.describe(hoplab.lab.load(STORE), metric, by)`: n
    counts rows, one per run and flow (--by flow splits the flows), failed runs left out;
    the interval is mean ± t(1-α/2, n-1)·std/√n. --format csv gives every digit. Reads the
    store only.
    """
    from .. import lab

    _check_names("--metric", list(metrics), metric_names())
    with lab_errors():
        try:
            df = lab.load(store, design)
        except ValueError as e:
            raise HoplabError(str(e)) from None
    if not len(df):
        raise HoplabError(f"{store}: no run recorded yet (`hoplab lab run DESIGN --store {store}`)")
    _check_names("--by", list(by), group_names(df))
    for m in metrics:
        if not df[m].notna().any():
            failed = int((df["status"] == "failed").sum())
            raise HoplabError(f"{store}: {m}: no value in any of the {len(df)} row(s) ({failed} from failed runs)")
    from ..stats import StatsInputError

    try:
        out = summarise(df, list(by), list(metrics), level)
    except StatsInputError as e:
        raise HoplabError(f"{store}: {e}") from None
    click.echo(render(out, list(by), level, fmt), nl=False)
