"""hoplab.papers: the registry, `hoplab reproduce PAPER` generated from it
with each paper's own options, a cheap `reproduce --help`, and a toy paper
registered here running through the framework (adding a paper is one
subpackage, its data, its test and one registry line)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

from hoplab import papers, scenario
from hoplab.cli import cli
from hoplab.papers._framework import Outcome, Paper, ReproduceError, option, replicas_option
from hoplab.papers._grid import run_grid

SHARED = {"--out", "--jobs", "--help", "-h"}
OWN = {
    "seed000": {"--replicas", "--receiver", "--routing", "--duration", "--reading", "--real", "--plot"},
    "seed000-routing": {"--replicas", "--receiver", "--duration", "--reading", "--plot"},
    "seed001": {"--replicas", "--duration", "--hops", "--schemes", "--only", "--quick", "--reading"},
    "seed002": {"--replicas", "--only", "--reading"},
    "seed003": {"--replicas", "--plot"},
    "seed004": {"--replicas", "--duration", "--plots", "--control", "--plot"},
}


def _options(help_text: str) -> set[str]:
    """The option names `--help` lists (the first column, e.g. `-h, --help`)."""
    found: set[str] = set()
    options = help_text.split("\nOptions:\n", 1)[1]
    for m in re.finditer(r"^  (-[-\w]+)((?:, -[-\w]+)*)", options, flags=re.M):
        found |= {m.group(1), *re.findall(r"-[-\w]+", m.group(2))}
    return found


def test_the_registry_lists_the_six_experiments():
    assert papers.names() == ["seed000", "seed000-routing", "seed001", "seed002", "seed003", "seed004"]
    for name in papers.names():
        paper = papers.load(name)
        assert isinstance(paper, Paper) and paper.name == name and papers.summary(name)


@pytest.mark.parametrize("name", sorted(OWN))
def test_every_papers_help_shows_only_its_own_options(name):
    r = CliRunner().invoke(cli, ["reproduce", name, "--help"])
    assert r.exit_code == 0, r.output
    assert _options(r.stdout) == OWN[name] | SHARED


def test_reproduce_help_lists_the_papers_with_their_summaries():
    r = CliRunner().invoke(cli, ["reproduce", "--help"])
    assert r.exit_code == 0
    for name in papers.names():
        assert re.search(rf"^\s+{re.escape(name)}\s+{re.escape(papers.summary(name)[:30])}", r.stdout, re.M)


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint('@@modules@@', *sorted(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split("@@modules@@", 1)[1].split())  # after what the command printed


def test_reproduce_help_imports_no_paper_nor_more_than_the_cli():
    # `hoplab reproduce --help` reads the registry's summaries: no paper's
    # modules, nothing heavy (pandas) beyond what importing the CLI costs.
    base = _modules_after("import hoplab.cli")
    helped = _modules_after("from hoplab.cli import cli\ntry:\n    cli.main(['reproduce', '--help'], "
                            "prog_name='hoplab')\nexcept SystemExit:\n    pass")
    extra = helped - base
    assert not [m for m in extra if m.startswith("hoplab.papers.seed")], extra
    assert "pandas" not in helped
    # and a paper's --help imports its command, not its experiment
    one = _modules_after("from hoplab.cli import cli\ntry:\n    cli.main(['reproduce', 'seed001', '--help'], "
                         "prog_name='hoplab')\nexcept SystemExit:\n    pass")
    assert "hoplab.papers.seed001.command" in one and "hoplab.papers.seed001.experiment" not in one
    assert "pandas" not in one
    # the group itself needs nothing beyond `import hoplab` and click
    pkg = _modules_after("import hoplab, click")
    group = _modules_after("from hoplab.papers.cli import reproduce\ntry:\n    reproduce.main(['--help'], "
                           "prog_name='reproduce')\nexcept SystemExit:\n    pass")
    stdlib = sys.stdlib_module_names
    assert {m for m in group - pkg if not m.startswith("click") and m.split(".")[0].lstrip("_") not in stdlib
            and m.split(".")[0] not in stdlib} <= {
        "hoplab.papers", "hoplab.papers._framework", "hoplab.papers.cli"}, group - pkg


# ------------------------------------------------------------- a toy paper
# Everything a new paper provides: a task (a seed and a scenario), a row per
# run, columns, a report, its options — and one `register` call.

class ToyTask:
    def __init__(self, hops: int, seed: int) -> None:
        self.hops, self.seed = hops, seed

    def scenario(self) -> dict[str, Any]:
        return scenario.chain(self.hops, duration=2.0, seed=self.seed, timeseries=False, name=f"toy-{self.hops}")


COLUMNS = ["hops", "seed", "throughput_kbps"]


def _row(task: ToyTask, res: Any) -> dict[str, Any]:
    return {"hops": task.hops, "seed": task.seed, "throughput_kbps": float(res.flows.iloc[0].throughput_kbps)}


def _run(*, out: Path | None, jobs: int, progress: Any, replicas: int | None, hops: int) -> Outcome:
    if hops < 1:
        raise ReproduceError("--hops: give at least 1")
    tasks = [ToyTask(h, s) for s in range(1, (replicas or 2) + 1) for h in range(1, hops + 1)]
    rows = pd.DataFrame(run_grid(tasks, _row, name="toy", columns=COLUMNS, out=out, jobs=jobs, progress=progress,
                                 describe=lambda r: f"{r['hops']} hops seed {r['seed']}"), columns=COLUMNS)
    mean = rows.groupby("hops")["throughput_kbps"].mean()
    report = "Toy: mean throughput per chain\n" + "\n".join(f"{h} hops: {v:.1f} kbit/s" for h, v in mean.items())
    return Outcome(report, {"summary.csv": mean.reset_index().to_csv(index=False).encode()},
                   None if out is None else f"per-run rows: {out / 'runs.csv'}")


TOY = Paper(name="toy", help="A toy paper: 1-hop and 2-hop chains for 2 s.",
            options=[replicas_option("Replicas [default: 2]."),
                     option("--hops", type=int, default=2, show_default=True, help="Longest chain.")],
            run=_run)


@pytest.fixture
def toy():
    papers.register("toy", f"{__name__}:TOY", "A toy paper")
    yield
    papers.unregister("toy")


def test_a_toy_paper_registered_here_runs_through_the_framework(toy, tmp_path):
    assert "toy" in papers.names()
    r = CliRunner().invoke(cli, ["reproduce", "--help"])
    assert "A toy paper" in r.stdout
    r = CliRunner().invoke(cli, ["reproduce", "toy", "--help"])
    assert _options(r.stdout) == {"--replicas", "--hops"} | SHARED
    args = ["reproduce", "toy", "--replicas", "1", "--jobs", "1", "--out", str(tmp_path)]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    assert "1 hops:" in r.stdout and "2 hops:" in r.stdout and f"per-run rows: {tmp_path / 'runs.csv'}" in r.stdout
    assert len(pd.read_csv(tmp_path / "runs.csv")) == 2 and (tmp_path / "summary.csv").is_file()
    again = CliRunner().invoke(cli, args)  # resumed from the store
    assert again.exit_code == 0 and "reusing 2" in again.stderr and again.stdout == r.stdout
    # the framework's one-line errors: a click usage error, and a bad value
    r = CliRunner().invoke(cli, ["reproduce", "toy", "--plot", "x.png"])
    assert r.exit_code == 2 and "No such option" in r.stderr and "--plot" in r.stderr
    r = CliRunner().invoke(cli, ["reproduce", "toy", "--hops", "0"])
    assert r.exit_code == 2 and r.stderr == "hoplab: error: --hops: give at least 1\n"


def test_an_unknown_paper_is_a_usage_error():
    r = CliRunner().invoke(cli, ["reproduce", "seed009"])
    assert r.exit_code == 2 and "seed009" in r.stderr
