"""The CLI as a package (issue 19 items 4, 7, 8): a lazily loaded command
table, no heavy imports at start-up, one-line errors for a missing extra,
and `design expand`'s table rendered exactly as pandas would."""

from __future__ import annotations

import json
import os
import random
import re
import string
import subprocess
import sys
from pathlib import Path

import click
import pytest

from .conftest import ROOT

PKG = ROOT / "python" / "hoplab"
HEAVY = ("pandas", "pyarrow", "scipy", "statsmodels", "matplotlib", "scikit_posthocs", "seaborn", "dask")


def _py(code: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, env={**os.environ, **(env or {})})


# Runs `hoplab ARGS` through the real entry point and prints, as JSON on the
# last line of stderr, which heavy packages it imported.
_LOADED = """
import atexit, json, sys
heavy = {heavy!r}
def report():
    sys.stdout.flush()
    print(json.dumps(sorted(m for m in heavy if m in sys.modules)), file=sys.stderr)
atexit.register(report)
from hoplab.cli import main
main(sys.argv[1:])
"""


def _loaded(*args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    r = _py(_LOADED.format(heavy=HEAVY), *args)
    return r, json.loads(r.stderr.strip().splitlines()[-1])


def test_import_hoplab_imports_nothing_heavy():
    r = _py(f"import sys, hoplab, hoplab.cli; print([m for m in {HEAVY!r} if m in sys.modules])")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_public_names_still_resolve_lazily():
    r = _py("import hoplab, sys; assert 'pandas' not in sys.modules\n"
            "print(hoplab.Result.__name__, hoplab.run.__name__, hoplab.ResultError.__name__,\n"
            "      hoplab.load_scenario.__name__, hoplab.scenario.__name__, sorted(set(hoplab.__all__) - set(dir(hoplab))))")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["Result", "run", "ResultError", "load_scenario", "hoplab.scenario", "[]"]


@pytest.mark.parametrize("args", [
    ["--help"], ["--version"], ["validate", "examples/chain.toml"], ["config"], ["example"], ["example", "chain"],
    ["design", "expand", "examples/designs/window_vs_hops.toml"],
    ["design", "expand", "examples/designs/window_vs_hops.toml", "--csv"],
    ["config", "--resolved", "examples/chain.toml"],
])
def test_light_commands_import_nothing_heavy(args):
    r, heavy = _loaded(*args)
    assert r.returncode == 0, r.stderr
    assert heavy == [], (args, heavy)


@pytest.mark.parametrize("save", [False, True])
def test_run_imports_nothing_heavy(tmp_path, save):
    # Result builds its DataFrames lazily and writes CSV without pandas
    r, heavy = _loaded("run", "examples/chain.toml", *(["--out", str(tmp_path / "r")] if save else ["--no-save"]))
    assert r.returncode == 0, r.stderr
    assert heavy == [], heavy


def test_plot_timeseries_imports_no_statistics(tmp_path):
    out = tmp_path / "run"
    r = _py("from hoplab.cli import main; main()", "run", "examples/chain.toml", "--out", str(out),
            "--set", "duration_s=5")
    assert r.returncode == 0, r.stderr
    r, heavy = _loaded("plot", "timeseries", str(out), "-o", str(tmp_path / "t.png"))
    assert r.returncode == 0, r.stderr
    assert "matplotlib" in heavy and not set(heavy) & {"scipy", "statsmodels", "scikit_posthocs"}, heavy


def test_plot_package_does_not_import_stats():
    r = _py("import sys, hoplab.plot as p; p.timeseries; p.nodes; p.save\n"
            "print([m for m in ('scipy', 'statsmodels', 'hoplab.stats') if m in sys.modules])")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


# ---- the command table ----

def test_table_summaries_are_the_commands_first_paragraphs():
    from hoplab.cli._commands import COMMANDS
    from hoplab.cli._group import load_command

    for name, info in COMMANDS.items():
        cmd = load_command(info)
        assert cmd.name == name, (name, cmd.name)
        first = " ".join((cmd.help or "").partition("\n\n")[0].split())
        assert first == info.summary, name
        for limit in (30, 45, 80, 200):
            assert click.Command(name, help=info.summary).get_short_help_str(limit) == cmd.get_short_help_str(limit)


def test_help_is_the_same_before_and_after_loading_every_command():
    code = ("from click.testing import CliRunner\n"
            "from hoplab.cli import cli\n"
            "from hoplab.cli._commands import COMMANDS\n"
            "import sys\n"
            "lazy = CliRunner().invoke(cli, ['--help'], terminal_width=100).output\n"
            "assert 'hoplab.cli.run' not in sys.modules\n"
            "ctx = cli.make_context('hoplab', ['--help'], resilient_parsing=True)\n"
            "[cli.get_command(ctx, n) for n in COMMANDS]\n"
            "eager = CliRunner().invoke(cli, ['--help'], terminal_width=100).output\n"
            "assert lazy == eager, (lazy, eager)\n"
            "print(lazy)")
    r = _py(code)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  run\s+Run one scenario file", r.stdout, re.M), r.stdout


def test_unknown_command_is_a_usage_error():
    r = _py("from hoplab.cli import main; main()", "frobnicate")
    assert r.returncode == 2
    assert "No such command 'frobnicate'" in r.stderr and "Traceback" not in r.stderr


def test_no_module_imports_back_into_the_command_group():
    # Command modules import errors and helpers, never hoplab.cli itself
    # (the old cli.py and its seven cli_*.py imported each other 12 times).
    # Relative forms from any depth too: `from ..cli import main`, `from .. import cli`.
    back = re.compile(r"^\s*(from\s+(\.+|hoplab\.cli)\s+import\s+(cli|main)\b|from\s+\.+cli\s+import|"
                      r"from\s+hoplab\s+import\s+cli\b|from\s+hoplab\.cli\s+import|import\s+hoplab\.cli\b)", re.M)
    offenders = []
    for p in PKG.rglob("*.py"):
        rel = p.relative_to(PKG).as_posix()
        if rel in ("__main__.py", "cli/__main__.py"):
            continue
        for m in back.finditer(p.read_text()):
            line = m.group(0).strip()
            if "cli.errors" in line:
                continue
            offenders.append(f"{rel}: {line}")
    assert offenders == []


# ---- a missing extra: one line naming it ----

_BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Block())
from hoplab.cli import main
main(sys.argv[1:])
"""


def _without(blocked: tuple[str, ...], *args: str) -> subprocess.CompletedProcess:
    return _py(_BLOCK.format(blocked=blocked), *args)


def test_plot_without_matplotlib_names_the_extra(tmp_path):
    r = _without(("matplotlib",), "plot", "model", "chain-clamp", "-o", str(tmp_path / "m.png"))
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == ["hoplab: error: 'hoplab plot' needs matplotlib: pip install 'hoplab[plot]'"]
    assert not (tmp_path / "m.png").exists()


def test_reproduce_seed004_without_stats_names_the_extra():
    # seed 004's report needs the stats extra: checked before any run
    r = _without(("scipy", "statsmodels", "scikit_posthocs"), "reproduce", "seed004", "--replicas", "1")
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [
        "hoplab: error: 'hoplab reproduce seed004' needs scipy, statsmodels, scikit-posthocs: "
        "pip install 'hoplab[stats]'"]
    # with scipy there but statsmodels not, it still fails at once (not after the sweep)
    r = _without(("statsmodels",), "reproduce", "seed004", "--replicas", "1")
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [
        "hoplab: error: 'hoplab reproduce seed004' needs statsmodels: pip install 'hoplab[stats]'"]


def test_reproduce_plot_without_matplotlib_names_the_extra(tmp_path):
    r = _without(("matplotlib",), "reproduce", "seed000", "--replicas", "1", "--plot", str(tmp_path / "f.png"))
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == ["hoplab: error: '--plot' needs matplotlib: pip install 'hoplab[plot]'"]


def test_run_needs_no_extra():
    r = _without(("matplotlib", "scipy", "statsmodels", "scikit_posthocs", "dask"),
                 "run", "examples/chain.toml", "--no-save", "--set", "duration_s=2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("scenario 'chain-4hop'")


def test_library_import_of_a_missing_extra_is_an_import_error_naming_it():
    code = _BLOCK.split("from hoplab.cli")[0].format(blocked=("scipy",)) + (
        "import hoplab.stats as s\n"
        "try:\n    s.describe\nexcept ImportError as e:\n    print(e)\n")
    r = _py(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "'hoplab.stats.describe' needs scipy: pip install 'hoplab[stats]'"


# ---- design expand without pandas ----

def _rows(rnd: random.Random) -> list[dict]:
    names = []
    while len(names) < rnd.randint(1, 6):
        n = "".join(rnd.choice(string.ascii_letters + "._[]0123456789") for _ in range(rnd.randint(1, 14)))
        if n not in names:
            names.append(n)
    kinds = [rnd.choice(["int", "big", "bool", "str"]) for _ in names]
    value = {"int": lambda: rnd.randint(-1000, 100000), "big": lambda: rnd.randint(0, 2**63 - 1),
             "bool": lambda: rnd.random() < 0.5,
             "str": lambda: "".join(rnd.choice(string.ascii_letters + string.digits + "-_.{}=")
                                    for _ in range(rnd.randint(1, 15)))}
    return [{n: value[k]() for n, k in zip(names, kinds)} for _ in range(rnd.randint(1, 6))]


def test_runs_table_matches_pandas():
    import pandas as pd

    from hoplab.cli import _runs_table

    rnd = random.Random(19)
    for _ in range(400):
        rows = _rows(rnd)
        assert _runs_table._columns(rows) is not None
        df = pd.DataFrame(rows)
        assert _runs_table.to_string(rows) == df.to_string(index=False), rows
        assert _runs_table.to_csv(rows) == df.to_csv(index=False), rows
    # what it does not render itself goes to pandas, same text
    for rows in ([{"a": 1.5}, {"a": 2.25}], [{"a": 1}, {"a": "x"}], [{"a": "x,y"}], [{"a": 1}, {"b": 2}]):
        assert _runs_table._columns(rows) is None
        assert _runs_table.to_string(rows) == pd.DataFrame(rows).to_string(index=False)
        assert _runs_table.to_csv(rows) == pd.DataFrame(rows).to_csv(index=False)


# ---- ./hoplab without cargo ----

def _path_without_cargo() -> str:
    return os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                           if d and not (Path(d) / "cargo").exists())


def test_wrapper_runs_without_cargo_when_the_build_is_current():
    venv = Path(os.environ.get("HOPLAB_VENV", ROOT / ".venv"))
    stamp = venv / ".hoplab-build"
    if not stamp.exists():
        pytest.skip("not a ./hoplab venv")
    r = subprocess.run([str(ROOT / "hoplab"), "--version"], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PATH": _path_without_cargo(), "HOPLAB_VENV": str(venv)})
    if "out of date" in r.stderr or "not built yet" in r.stderr:
        pytest.skip("the build is not current in this checkout")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("hoplab ")


@pytest.mark.parametrize("stale", [False, True])
def test_wrapper_without_cargo_and_a_stale_build_says_so_in_one_line(tmp_path, stale):
    # A separate (fake) venv: its stamp says nothing of the real build.
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    if stale:
        (venv / ".hoplab-build").write_text("")
        os.utime(venv / ".hoplab-build", (0, 0))  # 1970: every source file is newer
    if stale and not list((ROOT / "python" / "hoplab").glob("_core*.so")):
        pytest.skip("no built extension in this checkout")
    r = subprocess.run([str(ROOT / "hoplab"), "--version"], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PATH": _path_without_cargo(), "HOPLAB_VENV": str(venv)})
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("hoplab-setup: the Rust extension is ")
    assert "cargo is not on PATH: install Rust (https://rustup.rs)" in lines[0]
    assert ("out of date (" in lines[0]) == stale
    assert not (venv / "bin" / "python").exists()  # nothing created


def test_extras_are_the_ones_pyproject_declares():
    import tomllib

    from hoplab._extras import EXTRAS

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(declared)
    # `all` is every feature extra (the aliases kept for old install commands and the
    # test extra aside).
    features = sorted(set(declared) - {"all", "cluster", "parquet", "test"})
    assert declared["all"] == [f"hoplab[{','.join(sorted(features, key=list(declared).index))}]"]
    for extra, modules in EXTRAS.items():
        names = " ".join(declared[extra]).replace("-", "_")
        assert all(m in names for m in modules if m != "distributed"), (extra, modules, declared[extra])
