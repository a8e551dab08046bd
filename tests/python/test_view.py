"""`hoplab view`: the page that animates a run (issue 24 item 5).

The page is checked in a real headless browser: Debian's Chromium
(/usr/bin/chromium) driven by playwright-core from npm (tests/browser/: `npm
ci` there). Those tests are skipped only where chromium, node or
playwright-core is missing; the rest need neither.

The run's event log, anim.csv, is what a run writes with `[trace] formats =
["anim"]`. Where the engine does not know `[trace]` yet, `_anim_from_trace`
(a test fixture, not product code) builds the same rows from today's
in-memory trace: its `tx` rows are MAC sends, with an airtime from fixed
frame sizes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import hoplab
from hoplab import _core, _resources
from hoplab._view import ViewInputError, data as vdata, routes
from hoplab.plot import _geometry as geo

from .conftest import ROOT

BROWSER_DIR = ROOT / "tests" / "browser"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
PY = [sys.executable, "-m", "hoplab"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "python")}


# ------------------------------------------------------------------ fixtures
def _anim_from_trace(trace: pd.DataFrame) -> pd.DataFrame:
    """TEST FIXTURE: anim.csv rows from the pre-tap in-memory trace (event
    tx/rx/col/weak/drop, no layer, size or airtime): each `tx` a MAC send
    with an airtime from a fixed size (PLCP 192 us + bytes at 2 Mbit/s for
    unicast DATA, 1 Mbit/s otherwise), each `drop` a drop."""
    size = {"RTS": 20, "CTS": 14, "ACK": 14}
    ip = {"tcp": 1500, "ack": 40, "cbr": 540, "routing": 48}
    send = trace[trace["event"] == "tx"].copy()
    drop = trace[trace["event"] == "drop"].copy()
    send["layer"], send["event"] = "MAC", "send"
    data = send["frame"] == "DATA"
    send["size_bytes"] = np.where(data, send["packet_type"].map(ip).fillna(40) + 36, send["frame"].map(size))
    rate = np.where(data & (send["dst"] >= 0), 2e6, 1e6)
    send["airtime_s"] = 192e-6 + send["size_bytes"] * 8 / rate
    drop["layer"] = np.where(drop["reason"].isin(["IFQ", "RET"]), "MAC", "RTR")
    drop["event"], drop["size_bytes"], drop["airtime_s"] = "drop", 0, np.nan
    return pd.concat([send, drop]).sort_values("time_s", kind="stable")[vdata.ANIM_COLUMNS]


def _engine_has_trace_table() -> bool:
    try:
        _core.check_scenario(json.dumps({**tomllib.loads(_resources.example_text("chain")),
                                         "trace": {"formats": ["anim"]}}), "json")
    except _core.ScenarioError:
        return False
    return True


def _run_dir(sc: dict, out: Path) -> Path:
    """``sc`` run into ``out`` with its anim.csv: the engine's own where it
    has `[trace]`, else the fixture's from the in-memory trace."""
    if _engine_has_trace_table():
        path = out.with_suffix(".json")
        path.write_text(json.dumps({**sc, "trace": {"formats": ["anim"]}}))
        subprocess.run(PY + ["run", str(path), "--out", str(out)], env=ENV, check=True, capture_output=True)
        return out
    res = hoplab.run({**sc, "output": {**sc.get("output", {}), "trace": True}})
    anim = _anim_from_trace(res.trace)
    res.trace = res.trace.iloc[0:0]  # the run directory without the big trace
    res.save(out)
    anim.to_csv(out / "anim.csv", index=False)
    return out


def waypoint_scenario() -> dict:
    """30 nodes of random waypoint (example:waypoint) at ~10 m/s, three TCP flows, 20 s."""
    sc = tomllib.loads(_resources.example_text("waypoint"))
    sc["duration_s"] = 20.0
    sc["mobility"].update(speed_min_mps=9.0, speed_max_mps=11.0)
    sc["flows"] = [{"kind": "ftp", "src": 0, "dst": 1, "bytes": 10**8},
                   {"kind": "ftp", "src": 24, "dst": 26, "start_s": 1.0, "bytes": 10**8},
                   {"kind": "ftp", "src": 10, "dst": 14, "start_s": 2.0, "bytes": 10**8}]
    return sc


def chain_scenario() -> dict:
    """example:chain for 6 s; a name that would end a <script> element early."""
    sc = tomllib.loads(_resources.example_text("chain"))
    sc["duration_s"] = 6.0
    sc["name"] = "chain </script><!-- {{js}}"
    return sc


@pytest.fixture(scope="module")
def waypoint_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run_dir(waypoint_scenario(), tmp_path_factory.mktemp("view") / "waypoint")


@pytest.fixture(scope="module")
def chain_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run_dir(chain_scenario(), tmp_path_factory.mktemp("view") / "chain")


def _anim(run: Path) -> pd.DataFrame:
    return pd.read_csv(run / "anim.csv", keep_default_na=False, na_values={"airtime_s": ["", "NaN"]})


def _sends(anim: pd.DataFrame) -> pd.DataFrame:
    return anim[(anim["layer"] == "MAC") & (anim["event"] == "send")].reset_index(drop=True)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(PY + list(args), env=ENV, capture_output=True, text=True)


# ------------------------------------------------------------ without a browser
def _rewrite_anim(run: Path, text: str) -> None:
    """Put ``text`` in the run's anim.csv, and in its manifest where that lists
    the file (so that the log's own reading is tested, not the manifest check)."""
    import hashlib

    (run / "anim.csv").write_text(text)
    m = json.loads((run / "MANIFEST.json").read_text())
    if "anim.csv" in m["files"]:
        m["files"]["anim.csv"].update(size=len(text.encode()), sha256=hashlib.sha256(text.encode()).hexdigest())
        (run / "MANIFEST.json").write_text(json.dumps(m, indent=2))


def test_a_run_without_its_event_log_is_one_line_saying_how_to_get_it(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    hoplab.run(chain_scenario()).save(bare)
    r = _cli("view", str(bare))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert f"{bare / 'anim.csv'}: no such file" in r.stderr and '[trace] formats = ["anim"]' in r.stderr


@pytest.mark.parametrize("text, problem", [
    ("time_s,node\n1,2\n", "no column 'layer'"),
    (",".join(vdata.ANIM_COLUMNS) + "\nsoon,0,MAC,send,DATA,0,1,0,False,1,tcp,0,1,0,100,0.001,\n",
     "line 2, column time_s: 'soon' is not a time within the run"),
    ("", "not a CSV file"),
])
def test_a_bad_event_log_is_one_line_naming_the_file(tmp_path: Path, chain_run: Path, text: str, problem: str) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(chain_run, bad)
    _rewrite_anim(bad, text)
    r = _cli("view", str(bad), "-o", str(tmp_path / "x.html"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith(f"hoplab: error: {bad / 'anim.csv'}: ") and problem in r.stderr, r.stderr
    assert not (tmp_path / "x.html").exists()


def _with_cell(run: Path, line: int, column: str, value: str) -> str:
    """The run's anim.csv with one cell (line numbers as in the file: the header is 1) replaced."""
    lines = (run / "anim.csv").read_text().splitlines()
    col = lines[0].split(",").index(column)
    cells = lines[line - 1].split(",")
    cells[col] = value
    lines[line - 1] = ",".join(cells)
    return "\n".join(lines) + "\n"


def _line_of(run: Path, event: str, nth: int) -> int:
    """The line of anim.csv with the nth event of this kind (send or drop), counting from 1."""
    lines = (run / "anim.csv").read_text().splitlines()
    return [i + 1 for i, l in enumerate(lines) if l.split(",")[3] == event][nth - 1]


@pytest.mark.parametrize("column, value, event, problem", [
    ("airtime_s", "1e300", "send", "1e+300 is not a frame's time on the air (0 to 0.56 s, the run's largest frame "
                                   "at its slowest rate)"),
    ("airtime_s", "inf", "send", "inf is not a frame's time on the air"),
    ("airtime_s", "-0.001", "send", "-0.001 is not a frame's time on the air"),
    ("airtime_s", "", "send", "an empty field is not a frame's time on the air"),
    ("airtime_s", "soon", "drop", "'soon' is not a frame's time on the air"),
    ("time_s", "nan", "send", "'nan' is not a time within the run (0 to 6 s)"),
    ("time_s", "inf", "drop", "inf is not a time within the run (0 to 6 s)"),
    ("time_s", "-inf", "send", "-inf is not a time within the run (0 to 6 s)"),
    ("time_s", "7.5", "send", "7.5 is not a time within the run (0 to 6 s)"),
    ("node", "5", "send", "5 is not a node of the run (0 to 4)"),
    ("node", "-1", "drop", "-1 is not a node of the run (0 to 4)"),
    ("dst", "12", "send", "12 is not a node of the run (0 to 4) nor -1 (broadcast)"),
    ("packet_src", "99999999999999999999999", "send", "99999999999999999999999 is not a node of the run (0 to 4)"),
    ("packet_dst", "2.5", "send", "2.5 is not a node of the run (0 to 4) nor -1"),
    ("uid", "1e30", "send", "1e+30 is not a whole number from -1 (none)"),
    ("size_bytes", "-3", "send", "-3 is not a whole number from -1 (none)"),
    ("retry", "maybe", "send", "'maybe' is not True or False"),
])
def test_a_value_a_run_cannot_write_is_one_line_naming_line_and_column(
        tmp_path: Path, chain_run: Path, column: str, value: str, event: str, problem: str) -> None:
    """Out-of-range values used to end in an internal error (an infinite
    airtime is not JSON) or a page drawing nonsense (node 5 of 5, an event
    after the run's end)."""
    bad = tmp_path / "bad"
    shutil.copytree(chain_run, bad)
    line = _line_of(chain_run, event, 2)  # not the first line: the number is the file's
    _rewrite_anim(bad, _with_cell(bad, line, column, value))
    r = _cli("view", str(bad), "-o", str(tmp_path / "x.html"))
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"hoplab: error: {bad / 'anim.csv'}: line {line}, column {column}: "
                                                   f"{problem}"), lines
    assert not (tmp_path / "x.html").exists()


def test_the_runs_own_log_passes_the_checks(chain_run: Path) -> None:
    """Every value the engine writes is in range (drops with an empty airtime, -1 for none)."""
    anim = _anim(chain_run)
    assert (anim["event"] == "drop").any() and anim["airtime_s"].isna().any() and (anim["dst"] == -1).any()
    assert vdata.build(chain_run)["meta"]["frames"] > 0


def test_an_out_of_range_value_in_a_results_trace_names_its_row(chain_run: Path) -> None:
    res = hoplab.Result.load(chain_run)
    res.trace = _anim(chain_run).reset_index(drop=True)
    res.trace.loc[7, "node"] = 40
    with pytest.raises(ViewInputError) as e:
        vdata.build(res)
    assert str(e.value) == "the result's trace: row 7, column node: 40 is not a node of the run (0 to 4)"


def test_not_a_run_directory(tmp_path: Path) -> None:
    r = _cli("view", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not a directory" in r.stderr
    r = _cli("view", str(tmp_path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "MANIFEST.json" in r.stderr, r.stderr


def test_too_many_frames_names_the_window_to_cut(tmp_path: Path, chain_run: Path) -> None:
    sends = _sends(_anim(chain_run))
    r = _cli("view", str(chain_run), "--max-frames", "1000", "-o", str(tmp_path / "x.html"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert f"{len(sends):,} frames" in r.stderr and "--start/--end" in r.stderr
    m = re.search(r"--end (\S+) keeps the first 1,000\)$", r.stderr.strip())
    assert m, r.stderr
    end = float(m.group(1))
    assert float(sends["time_s"].iloc[999]) - 1e-6 <= end <= float(sends["time_s"].iloc[999])
    # the window it suggests fits
    r = _cli("view", str(chain_run), "--max-frames", "1000", "--end", m.group(1), "-o", str(tmp_path / "x.html"))
    assert r.returncode == 0, r.stderr
    d = _page_data(tmp_path / "x.html")
    inside = sends[sends["time_s"] <= end]
    assert d["meta"]["frames"] == len(inside) and 990 <= len(inside) <= 1000 and d["meta"]["end_s"] == end
    r = _cli("view", str(chain_run), "--start", "5", "--end", "2")
    assert r.returncode == 2 and "window 5-2 s is empty" in r.stderr


def _page_data(page: Path) -> dict:
    text = page.read_text()
    m = re.search(r'<script type="application/json" id="hoplab-data">(.*?)</script>', text, re.S)
    assert m, "no data element"
    return json.loads(m.group(1))


def test_the_page_is_one_file_with_the_runs_events(tmp_path: Path, chain_run: Path) -> None:
    r = _cli("view", str(chain_run), "-o", str(tmp_path / "chain.html"))
    assert r.returncode == 0 and r.stdout.startswith(f"wrote {tmp_path / 'chain.html'}"), r.stderr
    text = (tmp_path / "chain.html").read_text()
    assert hoplab.view(chain_run, tmp_path / "again.html").read_text() == text  # the same run, the same page
    # nothing to fetch: no external script, style, image or font
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text) and "@import" not in text
    assert "fetch(" not in text and text.count("<script") == 2
    d = _page_data(tmp_path / "chain.html")
    anim, res = _anim(chain_run), hoplab.Result.load(chain_run, tables=["nodes", "flows"])
    sends = _sends(anim)
    assert d["meta"]["scenario"] == "chain </script><!-- {{js}}"  # survived inlining
    assert d["meta"]["nodes"] == 5 and d["meta"]["frames"] == len(sends) == int(res.nodes["mac_frames_sent"].sum())
    assert d["meta"]["drops"] == int((anim["event"] == "drop").sum())
    f = d["frames"]
    assert f["tx"] == sends["node"].tolist() and f["rx"] == sends["dst"].tolist()
    assert [d["names"]["kind"][k] for k in f["kind"]] == sends["frame"].tolist()
    assert np.allclose(f["air"], sends["airtime_s"], rtol=0, atol=1e-9)
    # the chain's static route, followed through its frames
    (flow,) = d["flows"]
    assert [p for _, p in flow["paths"] if p and len(p) == 5] and flow["paths"][-2][1] == [0, 1, 2, 3, 4]
    # throughput from the segments reaching the destination: the bytes the run says it delivered
    bins = flow["throughput"]
    width = bins["t"][1] - bins["t"][0]
    delivered = sum(bins["v"]) * width * 1000 / 8
    assert abs(delivered - int(res.flows["bytes_delivered"][0])) <= 1460


def test_radio_ranges_come_from_the_engine(tmp_path: Path) -> None:
    sc = tomllib.loads(_resources.example_text("chain"))
    tx, cs = vdata._radio_ranges(geo.resolved(sc))
    assert tx == _core.tx_range_m(json.dumps(sc), "json")
    assert abs(tx - 250.0) < 0.1 and abs(cs - 550.0) < 0.1  # ns-2's defaults (propagation.rs's own test)
    sc["radio"].update(tx_range_m=120.0, cs_range_m=300.0)
    assert [round(v, 9) for v in vdata._radio_ranges(geo.resolved(sc))] == [120.0, 300.0]
    sc["radio"] = {"propagation": "flat", "tx_range_m": 90.0}
    assert vdata._radio_ranges(geo.resolved(sc)) == (90.0, 90.0)


def test_a_flows_path_follows_its_frames() -> None:
    # 0 -> 1 -> 2 -> 3, then 0 reroutes through 4, then a silence, then 0 -> 3 directly.
    frames = [(0.0, 0, 1), (0.1, 1, 2), (0.2, 2, 3), (0.3, 0, 1), (0.4, 0, 4), (0.45, 9, -1), (0.5, 4, 2),
              (0.6, 1, 2), (3.0, 0, 3)]
    t, a, b = zip(*frames)
    assert routes.path_changes(t, a, b, 0, 3, quiet_s=1.0) == [
        (0.0, [0, 1]), (0.1, [0, 1, 2]), (0.2, [0, 1, 2, 3]), (0.4, [0, 4]), (0.5, [0, 4, 2, 3]),
        (1.6, None), (3.0, [0, 3]), (4.0, None)]
    # a loop in stale next hops ends the path rather than the loop
    assert routes.path_changes([0.0, 0.1, 0.2], [1, 0, 2], [2, 1, 1], 0, 3) == [
        (0.0, [0]), (0.1, [0, 1, 2]), (1.2, None)]


def test_view_of_a_result_in_memory(tmp_path: Path, chain_run: Path) -> None:
    res = hoplab.Result.load(chain_run)
    with pytest.raises(ViewInputError, match=r"the result has no trace"):
        hoplab.view(res, tmp_path / "x.html")
    res.trace = _anim(chain_run)  # a trace with the tap's columns
    page = hoplab.view(res, tmp_path / "mem.html")
    assert _page_data(page)["frames"] == _page_data(hoplab.view(chain_run, tmp_path / "dir.html"))["frames"]


def test_serve_prints_the_url_and_serves_the_page(tmp_path: Path, chain_run: Path) -> None:
    import signal
    import urllib.request

    run = tmp_path / "run"
    shutil.copytree(chain_run, run)
    p = subprocess.Popen(PY + ["view", str(run), "--serve", "--port", "0"], env=ENV, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        wrote, serving = p.stdout.readline(), p.stdout.readline()
        assert wrote.startswith(f"wrote {run / 'view.html'} ("), wrote  # the default: beside the run's files
        m = re.match(r"serving (http://127\.0\.0\.1:\d+/view\.html)  \(Ctrl-C stops\)$", serving.strip())
        assert m, serving
        with urllib.request.urlopen(m.group(1), timeout=30) as r:
            assert r.read() == (run / "view.html").read_bytes()
    finally:
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    assert p.returncode == 130 and err == "hoplab: interrupted\n"
    assert hoplab.Result.load(run).info["nodes"] == 5  # the page beside the results leaves them loadable


# -------------------------------------------------------------- in the browser
def _browser_missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if shutil.which("node") is None:
        return "no node (apt-get install nodejs npm)"
    if not (BROWSER_DIR / "node_modules" / "playwright-core").is_dir():
        return "no playwright-core (cd tests/browser && npm ci)"
    return None


browser = pytest.mark.skipif(_browser_missing() is not None, reason=_browser_missing() or "")


def _drive(page: Path, steps: list[dict], tmp_path: Path, width: int = 1400, height: int = 800) -> dict:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"width": width, "height": height, "steps": steps}))
    r = subprocess.run(["node", str(BROWSER_DIR / "drive.js"), str(page), str(plan)], capture_output=True, text=True,
                       cwd=BROWSER_DIR, env={**os.environ, "CHROMIUM": CHROMIUM}, timeout=180)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["console_errors"] == [] and out["page_errors"] == [], (out["console_errors"], out["page_errors"])
    assert out["requests"] == []  # nothing from the network
    return out


def _on_air(sends: pd.DataFrame, t: float) -> list[tuple[int, float]]:
    start = sends["time_s"].round(9)
    end = start + sends["airtime_s"].round(9)
    on = sends[(start <= t) & (t < end)]
    return list(zip(on["node"].tolist(), on["time_s"].round(9).tolist()))


def _showcase(sends: pd.DataFrame, flows: list[dict], lo: float, hi: float) -> float:
    """A time in [lo, hi] (the middle of a frame's airtime) when the most flows
    have a path drawn and, among those, the most frames (DATA first) are on the air."""
    s = sends[(sends["time_s"] >= lo) & (sends["time_s"] <= hi)]
    start = s["time_s"].round(9).to_numpy()
    end = np.sort(start + s["airtime_s"].round(9).to_numpy())
    mids = (s["time_s"] + s["airtime_s"] / 2).round(9).to_numpy()
    on = np.searchsorted(start, mids, side="right") - np.searchsorted(end, mids, side="right")
    d = s[s["frame"] == "DATA"]
    d_start = d["time_s"].round(9).to_numpy()
    d_end = np.sort(d_start + d["airtime_s"].round(9).to_numpy())
    on += 10 * (np.searchsorted(d_start, mids, side="right") - np.searchsorted(d_end, mids, side="right"))
    drawn = np.zeros(len(mids), dtype=np.int64)
    for f in flows:
        times = np.array([t for t, _ in f["paths"]])
        has = np.array([p is not None and len(p) > 1 for _, p in f["paths"]] + [False])
        drawn += has[np.searchsorted(times, mids, side="right") - 1] if len(times) else 0
    return float(mids[int(np.argmax(drawn * 1000 + on))])


@browser
def test_waypoint_page_shows_the_run(tmp_path: Path, waypoint_run: Path) -> None:
    page = hoplab.view(waypoint_run, tmp_path / "waypoint.html")
    res = hoplab.Result.load(waypoint_run, tables=["nodes", "movement", "flows"])
    sends = _sends(_anim(waypoint_run))
    times = [0.0, 3.25, 7.5, 11.0123456, 15.9, 19.99]
    # seek to times when frames are on the air too (the middle of three frames' airtime)
    busy = [float(sends["time_s"].iloc[k] + sends["airtime_s"].iloc[k] / 2) for k in (10, len(sends) // 2, len(sends) - 5)]
    steps = [{"seek": t} for t in times + busy]
    shots = tmp_path / "shots"
    shots.mkdir()
    showcase = _showcase(sends, _page_data(page)["flows"], 5.0, 18.0)
    steps += [{"seek": showcase, "screenshot": str(shots / "waypoint.png")},
              {"seek": 12.5, "select": {"flow": 2}, "screenshot": str(shots / "waypoint-flow.png")},
              {"seek": 12.5, "select": {"flow": -1}, "click_node": 7, "screenshot": str(shots / "waypoint-node.png")},
              {"seek": 2.0, "select": {"node": -1}, "play_ms": 700, "screenshot": str(shots / "waypoint-playing.png")}]
    out = _drive(page, steps, tmp_path)
    assert out["shown"]["nodes"] == "30" == str(res.info["nodes"])
    assert out["shown"]["frames"] == f"{len(sends):,}" == f"{int(res.nodes['mac_frames_sent'].sum()):,}"
    assert out["shown"]["flows"] == 3
    for t, step in zip(times + busy, out["steps"]):
        st = step["state"]
        assert st["time"] == t and st["node_count"] == 30 and st["frame_count"] == len(sends)
        want = geo.positions_at(res.movement, t, 30)
        got = np.array([[n["x"], n["y"]] for n in st["nodes"]])
        assert [n["id"] for n in st["nodes"]] == list(range(30))
        assert np.abs(got - want).max() < 1e-6, (t, np.abs(got - want).max())
        assert [(f["tx"], f["t"]) for f in st["frames_on_air"]] == _on_air(sends, t)
    for t in busy:
        assert out["steps"][(times + busy).index(t)]["state"]["frames_on_air"]
    # the nodes move: some by metres between two of those times
    a, b = (np.array([[n["x"], n["y"]] for n in out["steps"][k]["state"]["nodes"]]) for k in (1, 2))
    assert np.hypot(*(a - b).T).max() > 10
    showcase_step, flow_step, node_step, play_step = out["steps"][-4:]
    assert showcase_step["state"]["frames_on_air"]  # transmissions and routes, in one picture
    assert sum(1 for p in showcase_step["state"]["paths"].values() if p and len(p) > 2) >= 2
    assert flow_step["state"]["selected"] == {"node": -1, "flow": 2} and flow_step["info"].startswith("flow 2")
    assert node_step["state"]["selected"]["node"] == 7 and node_step["info"].startswith("node 7")
    assert play_step["state"]["time"] > 2.0 and not play_step["state"]["playing"]
    for png in shots.iterdir():
        assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keep = os.environ.get("HOPLAB_VIEW_SHOTS")  # a directory to keep the screenshots in, to look at them
    if keep:
        shutil.copytree(shots, keep, dirs_exist_ok=True)


@browser
def test_chain_page_draws_the_path_and_the_drops(tmp_path: Path, chain_run: Path) -> None:
    page = hoplab.view(chain_run, tmp_path / "chain.html")
    anim = _anim(chain_run)
    drops = anim[anim["event"] == "drop"]
    t = float(drops["time_s"].iloc[-1]) if len(drops) else 5.0
    out = _drive(page, [{"seek": t, "select": {"flow": 0}, "screenshot": str(tmp_path / "chain.png")}], tmp_path)
    st = out["steps"][0]["state"]
    assert out["shown"]["nodes"] == "5" and out["shown"]["drops"] == f"{len(drops):,}"
    assert st["paths"] == {"0": [0, 1, 2, 3, 4]} and "0 → 1 → 2 → 3 → 4 (4 hops)" in out["steps"][0]["info"]
    # the drops of the last moments are drawn, each at its node, with its cause in the legend
    shown = {(d["node"], d["reason"]) for d in st["drops_shown"]}
    if len(drops):
        last = drops.iloc[-1]
        assert (int(last["node"]), last["reason"]) in shown
        assert all(f"drop {code}" in out["shown"]["legend"] for code in drops["reason"].unique())
    assert [n["x"] for n in st["nodes"]] == [0.0, 200.0, 400.0, 600.0, 800.0]
