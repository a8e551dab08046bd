"""`hoplab plot topology` and hoplab.plot.topology: nodes, links in range and
flow paths at a time, of a scenario or a run."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from matplotlib.collections import LineCollection, PathCollection

import hoplab
from hoplab import plot
from hoplab.cli import cli
from hoplab.plot import _geometry as geo


def _parts(fig):
    ax = fig.axes[0]
    markers = [c for c in ax.collections if isinstance(c, PathCollection)]
    links = [c for c in ax.collections if isinstance(c, LineCollection)]
    return ax, markers, links


def test_grid_nodes_links_and_paths():
    sc = hoplab.scenario.grid(3, 3, 200.0, duration=10.0)
    sc["flows"] = [hoplab.scenario.ftp(0, 8)]
    fig = plot.topology(sc)
    ax, markers, links = _parts(fig)
    assert len(markers) == 1 and len(markers[0].get_offsets()) == 9
    # 200 m spacing, 250 m range: the 12 grid edges, no diagonal (283 m).
    assert len(links) == 1 and len(links[0].get_segments()) == 12
    path = [ln for ln in ax.lines if ln.get_label().startswith("flow 0")]
    assert len(path) == 1 and path[0].get_label() == "flow 0: 0→1→2→5→8 (4 hops)"
    assert len(path[0].get_xdata()) == 5
    assert sorted(t.get_text() for t in ax.texts) == sorted(map(str, range(9)))
    assert ax.get_xlabel() == "X (m)" and ax.get_title().endswith("radio range 250 m")


def test_disconnected_flow_says_no_path():
    fig = plot.topology(hoplab.scenario.chain(2, spacing=400.0, duration=5.0), circles="all")
    ax, _, links = _parts(fig)
    assert links == []  # no pair within range
    assert [ln.get_label() for ln in ax.lines] == ["flow 0: 0→2, no path at 0 s"]
    assert len(ax.patches) == 3  # a range circle around every node


@pytest.mark.parametrize("spacing, delivers", [(249.0, True), (251.5, False)])
def test_range_is_the_engines(spacing, delivers):
    # tx_range_m is the engine's range: a 1-hop flow just inside it delivers, just outside nothing.
    sc = hoplab.scenario.chain(1, spacing=spacing, duration=2.0, timeseries=False)
    assert geo.tx_range_m(sc) == pytest.approx(250.0, abs=0.1)
    assert (hoplab.run(sc, seed=1).flows["bytes_delivered"].iloc[0] > 0) == delivers


def test_mobile_positions_at_a_time_from_scenario_and_result_agree():
    sc = hoplab.scenario.explicit([(0, 0), (200, 0), (400, 0)], duration=20.0)
    sc["flows"] = [hoplab.scenario.ftp(0, 2)]
    sc["mobility"] = {"legs": [{"node": 2, "at_s": 5.0, "to": [400, 300], "speed_mps": 11.0}]}
    res = hoplab.run(sc, seed=1)
    for src in (sc, res):
        early = plot.topology(src, at=4.0).axes[0].collections
        late = plot.topology(src, at=15.0)  # node 2 is at (400, 110): 228 m from node 1, still linked
        pts = [c for c in late.axes[0].collections if isinstance(c, PathCollection)][0].get_offsets()
        assert tuple(pts[2]) == pytest.approx((400.0, 110.0))
        assert late.axes[0].lines[0].get_label() == "flow 0: 0→1→2 (2 hops)"
        assert any(isinstance(c, LineCollection) for c in early)
    gone = plot.topology(sc, at=20.0)  # at (400, 165): 259 m from node 1, out of range
    assert [ln.get_label() for ln in gone.axes[0].lines] == ["flow 0: 0→2, no path at 20 s"]


def test_cli_topology(tmp_path):
    run_dir = hoplab.run(hoplab.scenario.chain(2, duration=2.0), seed=1).save(tmp_path / "r")
    r = CliRunner().invoke(cli, ["plot", "topology", str(run_dir), "--at", "1", "-o", str(tmp_path / "t.png")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for args, msg in ((["--at", "9"], "--at: 9 s is outside the run (0 to 2 s)"),
                      (["--circles", "7"], "--circles: node 7 is not a node of this network (0..2)"),
                      (["--size", "big"], "--size: expected WIDTHxHEIGHT in inches")):
        r = CliRunner().invoke(cli, ["plot", "topology", str(run_dir), *args, "-o", str(tmp_path / "u.png")])
        assert r.exit_code == 2 and r.stderr.startswith(f"hoplab: error: {msg}") and len(r.stderr.splitlines()) == 1
    assert not (tmp_path / "u.png").exists()
