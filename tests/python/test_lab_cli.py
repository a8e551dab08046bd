"""`hoplab design expand` and `hoplab lab run|status|export`."""

from __future__ import annotations

import errno
import json
import os

import pandas as pd
import pytest
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


@pytest.fixture(scope="module")
def one_run_store(tmp_path_factory):
    d = tmp_path_factory.mktemp("store")
    design = {"name": "one", "base": {**BASE, "duration_s": 1.0}, "replicas": 1}
    lab.run(lab.Design.from_dict(design), d / "store", jobs=1, progress=False)
    return d / "store"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full to fill a disk with")
@pytest.mark.parametrize("name", ["flows.csv", "flows.parquet"])
def test_export_to_a_full_disk_names_the_file_and_leaves_no_tmp(tmp_path, one_run_store, name):
    """The temporary file is /dev/full (every write: ENOSPC), as on a full disk.
    pandas raises the error without a file name: it used to print "None: No
    space left on device" and leave the .tmp file."""
    out = tmp_path / name
    out.write_text("an earlier export\n")
    tmp = tmp_path / f".{name}.tmp"
    tmp.symlink_to("/dev/full")
    r = CliRunner().invoke(cli, ["lab", "export", "--store", str(one_run_store), "-o", str(out)])
    assert r.exit_code == 2, r.output
    assert r.stderr.splitlines() == [f"hoplab: error: {out}: cannot write: No space left on device"]
    assert not tmp.exists() and not tmp.is_symlink()
    assert out.read_text() == "an earlier export\n"  # the earlier file is untouched


def test_export_failing_in_the_writer_names_the_file(tmp_path, one_run_store, monkeypatch):
    """The same with the writer's write raising ENOSPC midway (a real disk filling up)."""
    out = tmp_path / "flows.csv"
    real = pd.DataFrame.to_csv

    def to_csv(self, path, **kw):
        real(self.head(0), path, **kw)  # the header made it to disk
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_csv", to_csv)
    r = CliRunner().invoke(cli, ["lab", "export", "--store", str(one_run_store), "-o", str(out)])
    assert r.exit_code == 2 and r.stderr.splitlines() == [f"hoplab: error: {out}: cannot write: No space left on device"]
    assert list(tmp_path.iterdir()) == []
