"""`example:NAME` names a packaged example wherever a scenario is read
(issue 23 item 2): `hoplab run`, `validate`, `--set`, `hoplab.run`,
`load_scenario` and a design's `base`, all through `_resources.example_ref`.
An unknown name is one line listing the valid ones."""

from __future__ import annotations

import tomllib

import pytest
from click.testing import CliRunner

import hoplab
from hoplab import lab
from hoplab._resources import example_names, example_text
from hoplab.cli import cli
from hoplab.formats.ns2.script.export import resolved

from .conftest import run_module

VALID = ", ".join(example_names())


def _one_line_error(r, *words: str) -> None:
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoplab: error: "), r.output
    for w in words:
        assert w in lines[0]


def test_run_example_waypoint_in_a_directory_without_examples(tmp_path):
    # A subprocess in an empty directory: no examples/ to find by path.
    r = run_module("run", "example:waypoint", "--set", "duration_s=5", "--out", str(tmp_path / "wp"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("scenario 'waypoint'")
    saved = tomllib.loads((tmp_path / "wp" / "scenario.toml").read_text())
    assert saved["duration_s"] == 5 and saved["name"] == "waypoint"


def test_validate_example_chain():
    r = CliRunner().invoke(cli, ["validate", "example:chain"])
    assert r.exit_code == 0 and r.output == "example:chain: OK: chain-4hop, 5 nodes\n"


def test_set_applies_to_an_example():
    r = CliRunner().invoke(cli, ["run", "example:chain", "--no-save", "--set", "duration_s=3", "--seed", "2"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("scenario 'chain-4hop'  seed 2  3.0 s simulated")


def test_python_run_of_an_example_is_the_packaged_file():
    text = example_text("chain").replace("duration_s = 120.0", "duration_s = 3.0")
    sc = {**hoplab.load_scenario("example:chain"), "duration_s": 3.0}
    assert sc == tomllib.loads(text)
    assert hoplab.run(sc, seed=5).info["event_hash"] == hoplab.run(text, seed=5).info["event_hash"]


def test_design_base_uses_the_same_resolver():
    assert lab.Design.from_dict({"base": "example:grid"}).base == tomllib.loads(example_text("grid"))


@pytest.mark.parametrize("args", [["run", "example:nope", "--no-save"], ["validate", "example:nope"],
                                  ["run", "example:nope", "--set", "duration_s=1"], ["example", "nope"]])
def test_cli_unknown_example_lists_the_valid_ones(args):
    _one_line_error(CliRunner().invoke(cli, args), "no packaged example 'nope'", f"(known: {VALID})")


def test_python_unknown_example_lists_the_valid_ones():
    with pytest.raises(FileNotFoundError) as ei:
        hoplab.run("example:nope")
    assert ei.value.strerror == f"no packaged example 'nope' (known: {VALID})"
    with pytest.raises(FileNotFoundError, match="known: "):
        hoplab.load_scenario("example:nope")
    with pytest.raises(lab.DesignError, match=r"base: no packaged example 'nope' \(known: "):
        lab.Design.from_dict({"base": "example:nope"})


def test_example_command_lists_every_name():
    r = CliRunner().invoke(cli, ["example"])
    assert [line.split()[0] for line in r.output.splitlines()] == example_names()


@pytest.mark.parametrize("name", example_names())
def test_every_example_runs_under_the_ns2_reading(name):
    # The profile fills only what the example leaves unset and follows what
    # it says: chain asks for delayed ACKs, so its sink is ns-2's DelAck.
    sc = {**hoplab.load_scenario(f"example:{name}"), "compat": "ns2", "duration_s": 3.0}
    full = resolved(sc)
    tcp = full["tcp"]
    assert tcp["receiver"] == ("ns2" if tcp["delayed_ack"] else "every")
    assert full["mac"]["data_rate_mbps"] == sc.get("mac", {}).get("data_rate_mbps", 1.0)
    assert hoplab.run(sc, seed=1).info["event_hash"]
