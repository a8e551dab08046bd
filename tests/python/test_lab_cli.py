"""`hoplab design expand` and `hoplab lab run|status|export`."""

from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

from hoplab import lab
from hoplab.cli import cli

BASE = {**lab.Design.from_dict({"base": "example:chain"}).base, "duration_s": 3.0}
DESIGN = {"name": "cli", "base": BASE, "replicas": 2, "order": "randomised", "order_seed": 3,
          "factors": {"tcp.max_cwnd": [2, 0], "mac.rts_threshold_bytes": [0, 3000]}}


def _design(tmp_path, d=DESIGN):
    p = tmp_path / "d.json"
    p.write_text(json.dumps(d))
    return p


def test_expand_lists_the_runs_in_order(tmp_path):
    r = CliRunner().invoke(cli, ["design", "expand", str(_design(tmp_path)), "--csv"])
    assert r.exit_code == 0, r.output
    df = pd.read_csv(__import__("io").StringIO(r.stdout))
    assert list(df.columns) == ["run", "tcp.max_cwnd", "mac.rts_threshold_bytes", "replica", "seed", "key"]
    assert len(df) == 8 and list(df["run"]) == list(range(8))
    keys = [r.key[:12] for r in lab.Design.from_dict(DESIGN).expand()]
    assert list(df["key"]) == keys
    r = CliRunner().invoke(cli, ["design", "expand", str(_design(tmp_path))])
    assert r.stdout.startswith("design cli: 4 cells x 2 seeds = 8 runs, order randomised")


def test_run_status_export(tmp_path):
    d, store = _design(tmp_path), tmp_path / "store"
    r = CliRunner().invoke(cli, ["lab", "run", str(d), "--store", str(store), "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert "8 run now (0 failed)" in r.stdout
    r = CliRunner().invoke(cli, ["lab", "run", str(d), "--store", str(store), "--jobs", "1"])
    assert "8 already in" in r.stdout and "0 run now" in r.stdout
    r = CliRunner().invoke(cli, ["lab", "status", "--store", str(store)])
    assert r.exit_code == 0 and r.stdout.split("\n")[1].split() == ["cli", "8", "8", "0", "0", "0"]
    out = tmp_path / "flows.csv"
    r = CliRunner().invoke(cli, ["lab", "export", "--store", str(store), "-o", str(out)])
    assert r.exit_code == 0, r.output
    df = pd.read_csv(out)
    assert len(df) == 8 and (df["status"] == "ok").all()
    pd.testing.assert_series_equal(df["throughput_kbps"], lab.load(store)["throughput_kbps"])


def test_errors_are_one_line(tmp_path):
    bad = dict(DESIGN, factors={"tcp.max_cwnd": [-1]})
    cases = [
        (["design", "expand", str(_design(tmp_path, bad))], "cell {tcp.max_cwnd=-1}: tcp.max_cwnd"),
        (["design", "expand", str(tmp_path / "missing.toml")], "missing.toml"),
        (["lab", "status", "--store", str(tmp_path / "none")], "not a hoplab store"),
        (["lab", "export", "--store", str(tmp_path), "-o", str(tmp_path / "x.xlsx")], "unknown table format"),
    ]
    for args, text in cases:
        r = CliRunner().invoke(cli, args)
        assert r.exit_code == 2, (args, r.output)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("hoplab: error: ") and text in lines[0], (args, r.stderr)
