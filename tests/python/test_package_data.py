"""Everything the commands read ships inside the package and is found
through importlib.resources, never through the source tree (issue 10 item
7; scripts/test_install.sh checks a real installed wheel)."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from click.testing import CliRunner

import hoplab
from hoplab import _resources
from hoplab.papers.seed000.reference import seed000_testbed
from hoplab.cli import cli
from hoplab.papers.seed001.experiment import claims, table1_reference
from hoplab.papers.seed003.experiment import base_scenario

from .conftest import ROOT

PKG = Path(hoplab.__file__).resolve().parent


def test_every_reproduction_resource_resolves():
    assert seed000_testbed() is not None and len(seed000_testbed()) > 0
    assert table1_reference() is not None and len(table1_reference()) > 0
    assert claims() is not None and len(claims()) > 0
    assert base_scenario()["name"] == "route-break"


def test_every_example_is_package_data_and_runs_from_the_cli():
    names = _resources.example_names()
    assert names == sorted(p.stem for p in (ROOT / "examples").glob("*.toml"))
    assert (resources.files("hoplab") / "py.typed").is_file()
    r = CliRunner().invoke(cli, ["example"])
    assert r.exit_code == 0 and all(n in r.stdout for n in names)
    r = CliRunner().invoke(cli, ["example", "chain"])
    assert r.exit_code == 0 and r.stdout == (ROOT / "examples" / "chain.toml").read_text()


def test_top_level_examples_and_data_are_the_package_files():
    # README and the Rust tests use examples/ and data/ at the top: they
    # must be the packaged files, not copies that can drift.
    assert (ROOT / "examples").resolve() == PKG / "examples"
    # Reference tables live with their paper (hoplab/papers/<paper>/data/):
    # no top-level copy that could drift.
    assert not (ROOT / "data").exists() and not (PKG / "data").exists()
    assert sorted(p.relative_to(PKG).as_posix() for p in PKG.glob("papers/*/data/*.csv")) == [
        "papers/seed000/data/seed000_tables1-4.csv", "papers/seed001/data/seed001_claims.csv",
        "papers/seed001/data/seed001_table1.csv", "papers/seed004/data/seed004_table2.csv"]


def test_no_module_locates_files_from_the_source_tree():
    for f in PKG.rglob("*.py"):
        text = f.read_text()
        assert not re.search(r"__file__|parents?\[|\.parent\.parent", text), f.relative_to(PKG)
