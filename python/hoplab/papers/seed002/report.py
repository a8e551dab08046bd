"""The tables and findings of `hoplab reproduce seed002` from its rows
(`experiment.row_of`): throughput, fraction of expected throughput
(Eq. 1 with the chains' T_i) and loss rate per experiment, beside what the
thesis states. The thesis's figures are lost (only their captions and the
text survive), so its findings are compared as the text states them: a
direction, a ratio or a number where it gives one."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from . import scenarios as S
from ..._table import text_table
from ...models import expected_throughput
from .experiment import parse_hops

Key = tuple[str, int, int]  # (variant, mss, window)


def chain_T(rows: pd.DataFrame) -> dict[Key, dict[int, float]]:
    """T_i per TCP set: the one-stream chain runs (§7.1.1)."""
    c = rows[(rows.exp == "chain") & (rows.streams == 1)]
    out: dict[Key, dict[int, float]] = {}
    for r in c.itertuples():
        out.setdefault((r.variant, int(r.mss), int(r.window)), {})[int(r.hops)] = float(r.thr1_kbps)
    return out


def expected(t: dict[int, float], T: dict[int, float]) -> float:
    """Eq. 1; a path longer than the longest chain (9 hops) counts at
    that chain's T (rare in 1500 x 300 m); 0 hops (no path) counts 0."""
    if not t or sum(t.values()) <= 0 or not T:
        return float("nan")
    top = max(T)
    TT = {0: 0.0, **T, **{h: T[top] for h in t if h > top}}
    return float(expected_throughput(t, TT))


def with_fractions(rows: pd.DataFrame, T: dict[Key, dict[int, float]]) -> pd.DataFrame:
    """Rows with exp{k}_kbps and frac{k} for flows 1 and 2."""
    df = rows.copy()
    for k in (1, 2):
        exp_col = []
        for r in df.itertuples():
            key = (r.variant, int(r.mss), int(r.window))
            text = getattr(r, f"t{k}")
            exp_col.append(expected(parse_hops(text), T.get(key, {})) if isinstance(text, str) else float("nan"))
        df[f"exp{k}_kbps"] = exp_col
        df[f"frac{k}"] = df[f"thr{k}_kbps"] / df[f"exp{k}_kbps"].replace(0.0, np.nan)
    return df


def _f(x: float, fmt: str = ".0f") -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def _tcp_label(variant: str, mss: int, window: int) -> str:
    return f"{variant.capitalize()} {mss} B w{window}"


def _verdicts(items: list[tuple[str, str, str, bool | None]]) -> str:
    rows = [[text, thesis, ours, {True: "reproduced", False: "NOT reproduced", None: "no data"}[ok]]
            for text, thesis, ours, ok in items]
    return text_table(["finding", "thesis", "hoplab", "verdict"], rows, align="llll")


def _drops_by_routing(d: pd.DataFrame) -> dict[str, pd.Series]:
    """Mean drops per run by "CAUSE/type", per routing protocol."""
    out = {}
    for routing, g in d.groupby("routing"):
        tot: dict[str, float] = {}
        for text in g.drops.fillna(""):
            for part in str(text).split():
                name, n = part.rsplit(":", 1)
                tot[name] = tot.get(name, 0.0) + float(n)
        out[routing] = pd.Series(tot, dtype=float).sort_values(ascending=False) / max(len(g), 1)
    return out


def _packet_drops(s: pd.Series) -> float:
    """Drops of packets: every cause but COL, a frame garbled at its
    addressee, which the MAC retries (a lost frame, not a lost packet)."""
    return float(s[[k for k in s.index if not k.startswith("COL/")]].sum())


def _drop_lines(d: pd.DataFrame) -> str:
    lines = []
    for routing, s in _drops_by_routing(d).items():
        top = ", ".join(f"{k} {v:.1f}" for k, v in s.head(7).items())
        lines.append(f"  {routing.upper()}: {_packet_drops(s):.1f} packets dropped per run (+ {s.sum() - _packet_drops(s):.1f} "
                     f"COL frame collisions); most: {top or 'none'}")
    return "drops by cause/packet type (Appendix B codes), mean per run:\n" + "\n".join(lines)


def _above(a: float, b: float) -> bool | None:
    """a > b, or None (no data) when either side is missing (an experiment not run)."""
    return None if a != a or b != b else bool(a > b)


def _corr(x: Any, y: Any) -> float:
    """Pearson's r, NaN when either side is constant or too short."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2 or x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def _near(ours: tuple[float, ...], theirs: tuple[float, ...], *, absolute: float | None = None,
          relative: float | None = None) -> bool | None:
    """Every value within the tolerance of the thesis's; None without data."""
    if any(x != x for x in (*ours, *theirs)):
        return None
    tol = [absolute if absolute is not None else relative * abs(t) for t in theirs]  # type: ignore[operator]
    return all(abs(o - t) <= e for o, t, e in zip(ours, theirs, tol))


def _ifq(text: str) -> dict[int, float]:
    return {int(n): float(q) for n, q in (p.split(":") for p in str(text).split())}


# ------------------------------------------------------------------ chains
def report_chain(rows: pd.DataFrame, T: dict[Key, dict[int, float]]) -> str:
    hops = list(range(1, S.MAX_CHAIN_HOPS + 1))
    body = []
    for key, t in T.items():
        body.append([_tcp_label(*key)] + [_f(t.get(h, float("nan"))) for h in hops])
    out = ["T_i: one 4 MB transfer over a static chain of i hops, ZERO routing (kbit/s; §7.1.1, Fig. 1)",
           text_table(["TCP"] + [f"{h}" for h in hops], body)]
    two = with_fractions(rows[(rows.exp == "chain") & (rows.streams == 2)], T)
    t1 = ["Table 1: two 4 MB transfers sharing the chain, fraction of expected throughput, mean over 1-9 hops"]
    tab = []
    paper = {("reno", 1): 0.518, ("sack", 1): 0.521, ("reno", 2): 0.514, ("sack", 2): 0.509}
    for k in (1, 2):
        cells = [f"stream {'one' if k == 1 else 'two'}"]
        for v in S.VARIANTS:
            m = two[two.variant == v][f"frac{k}"].mean()
            cells += [_f(m, ".3f"), f"{paper[(v, k)]:.3f}"]
        tab.append(cells)
    t1.append(text_table(["stream", "Reno", "thesis", "SACK", "thesis"], tab))
    # Findings (§7.1.1)
    halves, sack = [], []
    for key, t in T.items():
        if all(h in t for h in (1, 2, 4)):
            halves += [t[1] / t[2], t[2] / t[4]]
        if key[0] == "sack" and ("reno", key[1], key[2]) in T:
            r = T[("reno", key[1], key[2])]
            sack += [t[h] / r[h] - 1 for h in t if h in r and r[h] > 0]
    by_mss = {m: [v for (_, mm, _), t in T.items() if mm == m for v in t.values()] for m in (512, 1460)}
    by_mss = {m: float(np.mean(v)) if v else float("nan") for m, v in by_mss.items()}
    frac_all = two[["frac1", "frac2"]].to_numpy().ravel()
    frac_all = frac_all[~np.isnan(frac_all)]
    items = [
        ("hop count doubles, throughput halves (n <= 5): T1/T2 and T2/T4", "2", 
         f"{np.min(halves):.2f}-{np.max(halves):.2f} (mean {np.mean(halves):.2f})" if halves else "-",
         bool(halves) and 1.5 <= float(np.mean(halves)) <= 2.6),
        ("512 B segments give lower throughput than 1460 B", "lower",
         f"{by_mss[512]:.0f} vs {by_mss[1460]:.0f} kbit/s (mean T_i)", bool(by_mss[512] < by_mss[1460])),
        ("SACK against Reno, per T_i", "-18.8 % to +7.1 %",
         f"{100 * min(sack):+.1f} % to {100 * max(sack):+.1f} %" if sack else "-",
         (min(sack) >= -0.25 and max(sack) <= 0.15) if sack else None),
        ("two streams on one chain: each gets half its expected throughput", "0.509-0.521",
         _f(float(np.mean(frac_all)), ".3f") if len(frac_all) else "-",
         (0.4 <= float(np.mean(frac_all)) <= 0.6) if len(frac_all) else None),
    ]
    return "\n".join(out + [""] + t1 + ["", _verdicts(items)])


def _longest(q: dict[int, float]) -> int:
    """The node (0-based) with the longest mean interface queue (seed 002 §7.3)."""
    return max(q, key=q.get)


def _runs_longest_at(d: pd.DataFrame, node: int) -> int:
    """How many runs had their longest mean queue at ``node``."""
    return sum(1 for t in d.ifq if (q := _ifq(t)) and _longest(q) == node)


# ------------------------------------------------------------ one-to-four
def report_one_to_four(rows: pd.DataFrame, T: dict[Key, dict[int, float]]) -> str:
    d = with_fractions(rows[rows.exp == "one-to-four"], T)
    if d.empty:
        return ""
    body = []
    for r in d.itertuples():
        q = _ifq(r.ifq)
        body.append([r.routing.upper(), _tcp_label(r.variant, r.mss, r.window), _f(r.thr1_kbps), _f(r.exp1_kbps),
                     _f(r.frac1, ".2f"), _f(r.loss1, ".4f"), _f(r.completion1_s, ".1f"), int(r.timeouts1),
                     f"{_longest(q) + 1} ({max(q.values()):.2f})" if q else "-", _f(q.get(0, float("nan")), ".2f")])
    head = ["routing", "TCP", "kbit/s", "expected", "fraction", "loss rate", "done at s", "RTOs",
            "longest queue: node (mean pkts)", "node one's"]
    aodv, dsr = d[d.routing == "aodv"], d[d.routing == "dsr"]
    loss_ratio = aodv.loss1.mean() / dsr.loss1.mean() if dsr.loss1.mean() > 0 else float("inf")
    corr = _corr(d.window, d.loss1)
    node1 = _runs_longest_at(d, 0)
    items = [
        ("DSR reaches more than ~92 % of the expected throughput in every run", ">= 0.92",
         f"min {dsr.frac1.min():.2f}", bool(dsr.frac1.min() >= 0.85)),
        ("DSR's fraction of expected is above AODV's", "DSR > AODV",
         f"DSR {dsr.frac1.mean():.2f}, AODV {aodv.frac1.mean():.2f}", _above(dsr.frac1.mean(), aodv.frac1.mean())),
        ("AODV's loss rate is several times DSR's", "several x", f"{loss_ratio:.1f} x", bool(loss_ratio >= 2)),
        ("loss rate increases with the window", "increases",
         f"corr(window, loss) {corr:+.2f}", _above(corr, 0.0)),
        ("node one (the source) has the longest queue", "all runs", f"{node1} of {len(d)} runs", node1 >= 0.8 * len(d)),
    ]
    return "\n".join(["One-to-four hop (§8.1): 1, 2, 3 then 4 hops from 5, 25, 45 s; one 4 MB transfer from t = 0",
                      text_table(head, body, align="llrrrrrrlr"), _drop_lines(d), "", _verdicts(items)])


# ---------------------------------------------------------------- overlap
def report_overlap(rows: pd.DataFrame, T: dict[Key, dict[int, float]]) -> str:
    d = with_fractions(rows[rows.exp == "overlap"], T)
    if d.empty:
        return ""
    body = []
    for r in d.itertuples():
        q = _ifq(r.ifq)
        body.append([r.routing.upper(), _tcp_label(r.variant, r.mss, r.window), _f(r.thr1_kbps), _f(r.frac1, ".2f"),
                     _f(r.loss1, ".4f"), _f(r.thr2_kbps), _f(r.frac2, ".2f"), _f(r.loss2, ".4f"),
                     f"{_longest(q) + 1}" if q else "-"])
    head = ["routing", "TCP", "s1 kbit/s", "s1 fraction", "s1 loss", "s2 kbit/s", "s2 fraction", "s2 loss",
            "longest queue (node)"]
    node3 = _runs_longest_at(d, 2)
    by = _drops_by_routing(d)
    aodv_drops, dsr_drops = (_packet_drops(by[p]) if p in by else float("nan") for p in ("aodv", "dsr"))
    items = [
        ("stream two reaches a higher fraction of expected than stream one", "~0.6 vs ~0.5",
         f"{d.frac2.mean():.2f} vs {d.frac1.mean():.2f}", _above(d.frac2.mean(), d.frac1.mean())),
        ("stream one's loss rate is above stream two's for every parameter", "all",
         f"{int((d.loss1 > d.loss2).sum())} of {len(d)}", bool((d.loss1 > d.loss2).mean() >= 0.8)),
        ("node three's queue is the most loaded in most runs", "most", f"{node3} of {len(d)}", node3 > len(d) / 2),
        ("AODV drops far more packets than DSR (COL frames not counted)", "far more",
         f"{aodv_drops:.1f} vs {dsr_drops:.1f} per run", bool(aodv_drops > 2 * dsr_drops)),
    ]
    return "\n".join(["Overlap (§8.2, Table 2): two 4 MB transfers, 1->4 and 2->5 (thesis numbering); "
                      "changes at 17, 37, 47 s",
                      text_table(head, body, align="llrrrrrrr"), _drop_lines(d), "", _verdicts(items)])


# --------------------------------------------------------------- waypoint
def _mean_sd(x: pd.Series) -> str:
    return f"{x.mean():.0f} ± {x.std():.0f}" if len(x) > 1 else _f(x.mean())


def report_waypoint(rows: pd.DataFrame, T: dict[Key, dict[int, float]]) -> str:
    d = with_fractions(rows[rows.exp == "waypoint"], T)
    if d.empty:
        return ""
    files = d.seed.nunique()
    out = [f"Random waypoint (§8.4): 30 nodes, 1500 x 300 m, no pause, {files} movement files per speed; "
           "throughput mean ± sd over the files"]
    for streams in (1, 2):
        s = d[d.streams == streams]
        body = []
        for (v, routing, variant, mss, window), g in s.groupby(["speed", "routing", "variant", "mss", "window"]):
            cells = [f"{v:g}", routing.upper(), _tcp_label(variant, mss, window), _mean_sd(g.thr1_kbps),
                     _f(g.frac1.mean(), ".2f"), _f(g.loss1.mean(), ".4f")]
            if streams == 2:
                cells += [_mean_sd(g.thr2_kbps), _f(g.frac2.mean(), ".2f"), _f(g.loss2.mean(), ".4f")]
            body.append(cells)
        head = ["m/s", "routing", "TCP", "kbit/s", "fraction", "loss rate"]
        if streams == 2:
            head = ["m/s", "routing", "TCP", "s1 kbit/s", "s1 fraction", "s1 loss", "s2 kbit/s", "s2 fraction", "s2 loss"]
        out += ["", f"{'One stream' if streams == 1 else 'Two streams'} (Figs. {'19-21' if streams == 1 else '26-31'})",
                text_table(head, body, align="lll" + "r" * (len(head) - 3))]
    one, two = d[d.streams == 1], d[d.streams == 2]
    o2, o10 = one[one.speed == 2.0], one[one.speed == 10.0]
    t2, t10 = two[two.speed == 2.0], two[two.speed == 10.0]

    def m(df: pd.DataFrame, col: str = "thr1_kbps", **eq: Any) -> float:
        for k, v in eq.items():
            df = df[df[k] == v]
        return float(df[col].mean())

    corr = _corr(one.window[one.mss == 512], one.loss1[one.mss == 512])
    sd = lambda g: float(g.thr1_kbps.std())  # noqa: E731
    sd_cells = {(v, mss): sd(one[(one.speed == v) & (one.routing == "aodv") & (one.variant == "reno") & (one.mss == mss)])
                for v in S.SPEEDS_MPS for mss in (512, 1460)}
    two_frac = np.nanmean(two[["frac1", "frac2"]].to_numpy()) if len(two) else float("nan")
    items = [
        ("2 m/s: DSR's throughput above AODV's", "DSR > AODV",
         f"DSR {m(o2, routing='dsr'):.0f}, AODV {m(o2, routing='aodv'):.0f}", _above(m(o2, routing="dsr"), m(o2, routing="aodv"))),
        ("Reno and SACK give about the same throughput", "no difference",
         f"Reno {m(one, variant='reno'):.0f}, SACK {m(one, variant='sack'):.0f}",
         _near((m(one, variant="reno"),), (m(one, variant="sack"),), relative=0.1)),
        ("throughput is higher at 10 m/s than at 2 m/s (shorter optimal paths)", "10 > 2",
         f"{m(o10):.0f} vs {m(o2):.0f}", _above(m(o10), m(o2))),
        ("mean optimal path, one stream, 2 and 10 m/s (within 0.3 hop)", "2.7 and 2.5",
         f"{m(o2, 'opt_hops1'):.2f} and {m(o10, 'opt_hops1'):.2f}",
         _near((m(o2, "opt_hops1"), m(o10, "opt_hops1")), (2.7, 2.5), absolute=0.3)),
        ("fraction of expected is higher at 2 m/s than at 10 m/s", "2 > 10",
         f"{m(o2, 'frac1'):.2f} vs {m(o10, 'frac1'):.2f}", _above(m(o2, "frac1"), m(o10, "frac1"))),
        ("DSR's fraction of expected a little above AODV's", "DSR > AODV",
         f"DSR {m(one, 'frac1', routing='dsr'):.2f}, AODV {m(one, 'frac1', routing='aodv'):.2f}",
         _above(m(one, "frac1", routing="dsr"), m(one, "frac1", routing="aodv"))),
        ("AODV's loss rate above DSR's", "AODV > DSR",
         f"AODV {m(one, 'loss1', routing='aodv'):.4f}, DSR {m(one, 'loss1', routing='dsr'):.4f}",
         _above(m(one, "loss1", routing="aodv"), m(one, "loss1", routing="dsr"))),
        ("loss rate increases with the window (512 B)", "increases", f"corr {corr:+.2f}",
         _above(corr, 0.0)),
        ("sd of throughput, AODV Reno, 2 m/s: 512 B / 1460 B (within 25 %)", "~260 / ~390 kbit/s",
         f"{sd_cells[(2.0, 512)]:.0f} / {sd_cells[(2.0, 1460)]:.0f}",
         _near((sd_cells[(2.0, 512)], sd_cells[(2.0, 1460)]), (260, 390), relative=0.25)),
        ("sd of throughput, AODV Reno, 10 m/s: 512 B / 1460 B (within 25 %)", "~240 / ~460 kbit/s",
         f"{sd_cells[(10.0, 512)]:.0f} / {sd_cells[(10.0, 1460)]:.0f}",
         _near((sd_cells[(10.0, 512)], sd_cells[(10.0, 1460)]), (240, 460), relative=0.25)),
    ]
    if len(two):
        items += [
            ("two streams: throughput ~100 kbit/s lower than one stream at 2 m/s", "-100 kbit/s",
             f"{m(t2) - m(o2):+.0f} kbit/s (stream one)", _above(m(o2), m(t2))),
            ("two streams: fraction of expected 25-30 % lower than one stream", "-25 to -30 %",
             f"{100 * (two_frac / m(one, 'frac1') - 1):+.0f} %", _above(m(one, "frac1"), two_frac)),
            ("mean optimal path, two streams, 2 and 10 m/s (within 0.3 hop)", "~2.5 and ~2.2",
             f"{m(t2, 'opt_hops1'):.2f} and {m(t10, 'opt_hops1'):.2f}",
             _near((m(t2, "opt_hops1"), m(t10, "opt_hops1")), (2.5, 2.2), absolute=0.3)),
        ]
    return "\n".join(out + ["", _drop_lines(one), "", _verdicts(items)])


# -------------------------------------------------------------------- www
def _downloads(d: pd.DataFrame, T: dict[Key, dict[int, float]]) -> pd.DataFrame:
    """One row per finished download: throughput and fraction of its
    client's expected throughput (Eq. 1 over the session's t_i)."""
    out = []
    for r in d.itertuples():
        t_by = {}
        for part in str(r.t_flows or "").split("|"):
            if "=" in part:
                k, v = part.split("=", 1)
                t_by[int(k)] = parse_hops(v)
        TT = T.get(("reno", 512, int(r.window)), {})
        for part in str(r.dl_kbps or "").split():
            fd, size, kbps = part.split(":")
            flow = int(fd.split("/")[0])
            e = expected(t_by.get(flow, {}), TT)
            out.append({"speed": r.speed, "routing": r.routing, "window": r.window, "seed": r.seed, "flow": flow,
                        "bytes": int(size), "kbps": float(kbps), "fraction": float(kbps) / e if e and e > 0 else np.nan})
    return pd.DataFrame(out, columns=["speed", "routing", "window", "seed", "flow", "bytes", "kbps", "fraction"])


def report_www(rows: pd.DataFrame, T: dict[Key, dict[int, float]]) -> str:
    d = rows[rows.exp == "www"]
    if d.empty:
        return ""
    dl = _downloads(d, T)
    body = []
    for (v, routing, window), g in d.groupby(["speed", "routing", "window"]):
        x = dl[(dl.speed == v) & (dl.routing == routing) & (dl.window == window)]
        body.append([f"{v:g}", routing.upper(), f"{int(window) * 512 // 1024} kB", f"{g.downloads_done.mean():.1f}",
                     _f(x.kbps.mean()), _f(x.kbps.median()), _f(x.kbps.max()), _f(x.fraction.median(), ".2f"),
                     _f(100 * (x.fraction < 0.5).mean(), ".0f") + " %"])
    head = ["m/s", "routing", "window", "downloads done/run", "mean kbit/s", "median", "max", "median fraction",
            "fraction < 0.5"]

    def mk(col: str = "kbps", **eq: Any) -> float:
        x = dl
        for k, v in eq.items():
            x = x[x[k] == v]
        return float(x[col].mean())

    items = [
        ("download throughput from 0 to ~650 kbit/s, most below 500", "max ~650, most < 500",
         f"max {dl.kbps.max():.0f}, {100 * (dl.kbps < 500).mean():.0f} % below 500", bool((dl.kbps < 500).mean() > 0.5)),
        ("AODV performs better than DSR", "AODV > DSR",
         f"AODV {mk(routing='aodv'):.0f}, DSR {mk(routing='dsr'):.0f}", _above(mk(routing="aodv"), mk(routing="dsr"))),
        ("throughput lower at 10 m/s than at 2 m/s", "10 < 2",
         f"{mk(speed=10.0):.0f} vs {mk(speed=2.0):.0f}", _above(mk(speed=2.0), mk(speed=10.0))),
        ("4 kB and 16 kB windows differ little", "little",
         f"{mk(window=8):.0f} vs {mk(window=32):.0f}", _near((mk(window=8),), (mk(window=32),), relative=0.15)),
        ("most downloads reach below half their expected throughput", "most < 0.5",
         f"{100 * (dl.fraction < 0.5).mean():.0f} %", bool((dl.fraction < 0.5).mean() > 0.5)),
        ("AODV's fraction of expected above DSR's", "AODV > DSR",
         f"AODV {mk('fraction', routing='aodv'):.2f}, DSR {mk('fraction', routing='dsr'):.2f}",
         _above(mk("fraction", routing="aodv"), mk("fraction", routing="dsr"))),
    ]
    return "\n".join([f"WWW (§8.6): one server, five clients of <= 15 downloads, 900 s, Reno 512 B; "
                      f"{d.seed.nunique()} movement files per speed; per finished download",
                      text_table(head, body, align="lll" + "r" * 6), "", _verdicts(items)])


def report(rows: pd.DataFrame) -> str:
    sections = []
    for reading in S.READINGS:
        r = rows[rows["reading"] == reading] if "reading" in rows else rows
        if len(r):
            sections.append(f"--- {S.READING_TEXT[reading]} ---\n\n" + _report_one_reading(r))
    note = ("Expected throughput (Eq. 1): the oracle's t_i (true topology, 250 m) with these chains' T_i. "
            "Throughput: the time to acknowledge 4 MB (§7.1), or bytes delivered over the run if unfinished.\n"
            "Figs. 3 and 10 are lost: the one-to-four and overlap movements are rebuilt from the stated "
            "connectivity times (papers/seed002/scenarios.py).")
    return ("Seed 002 (Östergren), hoplab beside the thesis's findings\n\n"
            + "\n\n".join(sections) + "\n\n" + note)


def _report_one_reading(rows: pd.DataFrame) -> str:
    T = chain_T(rows)
    parts = [report_chain(rows, T), report_one_to_four(rows, T), report_overlap(rows, T), report_waypoint(rows, T),
             report_www(rows, T)]
    return "\n\n".join(p for p in parts if p)
