"""Designs that are too large, malformed or ambiguous (issue 22): refused
with one line naming the design file and the field, before any memory is
spent on them; and a design at the size limit does run in bounded memory."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from hoplab.cli import cli
from hoplab.lab import design as design_mod
from hoplab.lab.design import Design, DesignError

ADDRESS_LIMIT = 2 << 30  # 2 GiB of address space, as the report ran


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))


def _expand_limited(path, timeout: float = 120) -> subprocess.CompletedProcess:
    """`hoplab design expand PATH` in a process of at most 2 GiB."""
    return subprocess.run([sys.executable, "-m", "hoplab", "design", "expand", str(path)], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=_limited)


def _one_line_error(stderr: str, *parts: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoplab: error: "), stderr
    for p in parts:
        assert p in lines[0], (p, lines[0])
    return lines[0]


def _cli_error(tmp_path, text: str, *parts: str, name: str = "d.toml") -> str:
    p = tmp_path / name
    p.write_text(text)
    r = CliRunner().invoke(cli, ["design", "expand", str(p)])
    assert r.exit_code == 2, (r.output, r.exception)
    return _one_line_error(r.stderr, str(p), *parts)


# --- 1, 2: size -------------------------------------------------------------

TEN_TO_THE_TEN = 'base = "example:chain"\n[factors]\n' + "".join(
    f'"f{i}" = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n' for i in range(10))


def test_ten_billion_cells_are_refused_before_any_cell_is_built(tmp_path):
    p = tmp_path / "huge.toml"
    p.write_text(TEN_TO_THE_TEN)
    t = time.perf_counter()
    r = _expand_limited(p, timeout=60)
    assert r.returncode == 2, r.stderr
    _one_line_error(r.stderr, str(p), "factors: 10000000000 runs", "10 x 10 x")
    assert time.perf_counter() - t < 30


def test_the_count_comes_from_the_factor_sizes(monkeypatch):
    def no_levels(*a):
        raise AssertionError("a level was built before the size check")

    monkeypatch.setattr(design_mod, "_parse_factor", no_levels)
    facs = {f"f{i}": list(range(10)) for i in range(10)}
    with pytest.raises(DesignError) as e:
        Design.from_dict({"base": "example:chain", "factors": facs})
    assert e.value.field == "factors"
    # treatments cross the factorial; seeds multiply it
    monkeypatch.undo()
    d = {"base": "example:chain", "factors": {"tcp.max_cwnd": list(range(1000))}, "replicas": 1001,
         "treatments": [{"factors": {"v": 1}}, {"factors": {"v": 2}}]}
    with pytest.raises(DesignError, match=r"2002000 runs \(1000 x 2 cells x 1001 seeds\)"):
        Design.from_dict(d)


def test_the_old_limit_of_ten_million_runs_is_refused_in_one_line(tmp_path):
    # 10 cells x 10^6 replicas was allowed, then ran out of memory (2.6 GB per 10^6 runs).
    p = tmp_path / "old.toml"
    p.write_text('base = "example:chain"\nreplicas = 1000000\n[factors]\n"tcp.max_cwnd" = '
                 f"{list(range(1, 11))}\n")
    r = _expand_limited(p, timeout=60)
    assert r.returncode == 2, r.stderr[-500:]
    _one_line_error(r.stderr, str(p), "factors: 10000000 runs", f"at most {design_mod.MAX_RUNS} runs")


def test_a_design_at_the_run_limit_expands_within_two_gib():
    # The limit is one a machine holds: MAX_RUNS runs (replicas of one cell)
    # expand in a process limited to 2 GiB of address space (they needed
    # 2.6 GB for 10^6 before runs shared their cell's scenario).
    code = ("import resource, sys\n"
            f"resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_LIMIT}, {ADDRESS_LIMIT}))\n"
            "from hoplab.lab.design import Design, MAX_RUNS\n"
            "runs = Design.from_dict({'base': 'example:chain', 'replicas': MAX_RUNS}).expand()\n"
            "assert len(runs) == MAX_RUNS and runs[-1].scenario['seed'] == MAX_RUNS\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert int(r.stdout) * 1024 < design_mod.MEMORY_BUDGET  # peak RSS (kB) within the stated budget
    with pytest.raises(DesignError, match="replicas: expected an integer in 1..1000000"):
        Design.from_dict({"base": "example:chain", "replicas": design_mod.MAX_RUNS + 1})


def test_a_large_base_scenario_lowers_the_limit():
    base = Design.from_dict({"base": "example:chain"}).base
    big = dict(base, flows=[dict(base["flows"][0], start_s=float(i)) for i in range(2000)])  # ~130 kB of JSON
    with pytest.raises(DesignError, match="fewer with a large base scenario") as e:
        Design.from_dict({"base": big, "factors": {"tcp.max_cwnd": list(range(2000))}})
    assert e.value.field == "factors"
    Design.from_dict({"base": big, "factors": {"tcp.max_cwnd": [1, 2]}})  # a few cells of it are fine


def test_runs_of_a_cell_share_its_scenario():
    runs = Design.from_dict({"base": "example:chain", "replicas": 3}).expand()
    assert runs[0].cell_scenario is runs[2].cell_scenario
    assert [r.scenario["seed"] for r in runs] == [1, 2, 3]
    assert json.loads(runs[1].payload()[1]) == runs[1].scenario


# --- 3: dates, other types, deep nesting --------------------------------------

@pytest.mark.parametrize("body, field", [
    ('[factors]\n"tcp.max_cwnd" = [1979-05-27]\n', 'factors."tcp.max_cwnd"[0]'),
    ('[factors.x]\na = { "tcp.max_cwnd" = 07:32:00 }\n', 'factors.x.a."tcp.max_cwnd"'),
    ('description = 1979-05-27T07:32:00Z\n', "description"),
    ('[[treatments]]\nfactors = { v = 1979-05-27 }\n', "treatments[0].factors.v"),
])
def test_a_toml_date_names_the_file_and_the_field(tmp_path, body, field):
    # Top-level keys come before the tables in TOML.
    text = body + 'base = "example:chain"\n' if not body.startswith("[") else 'base = "example:chain"\n' + body
    _cli_error(tmp_path, text, f"{field}: a TOML date or time")


def test_a_date_in_the_base_file_names_the_base(tmp_path):
    (tmp_path / "b.toml").write_text('name = "x"\nwhen = 1979-05-27\n')
    _cli_error(tmp_path, 'base = "b.toml"\n', "base: b.toml: when: a TOML date or time")


@pytest.mark.parametrize("depth", [100, 5000])
@pytest.mark.parametrize("kind", ["array", "table"])
def test_deep_nesting_is_one_line(tmp_path, depth, kind):
    value = "[" * depth + "]" * depth if kind == "array" else "{a = " * depth + "1" + "}" * depth
    line = _cli_error(tmp_path, f'base = "example:chain"\n[factors]\n"tcp.max_cwnd" = {value}\n', "nested")
    if depth == 100:  # tomllib reads it: the field is named
        assert 'factors."tcp.max_cwnd"' in line


def test_deep_json_design_and_base_are_one_line(tmp_path):
    (tmp_path / "b.json").write_text("[" * 100_000 + "]" * 100_000)
    _cli_error(tmp_path, json.dumps({"base": "b.json"}), "base: b.json: not valid JSON", name="d.json")
    _cli_error(tmp_path, '{"base": "example:chain", "factors": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}",
               "nested", name="d.json")


def test_deep_python_values_are_refused_not_recursed():
    v: list = []
    for _ in range(100_000):
        v = [v]
    with pytest.raises(DesignError, match="nested more than 32 deep"):
        Design.from_dict({"base": "example:chain", "factors": {"tcp.max_cwnd": [v]}})


def test_an_integer_too_long_to_read_is_one_line(tmp_path):
    _cli_error(tmp_path, f'base = "example:chain"\n[factors]\n"tcp.max_cwnd" = [{"9" * 5000}]\n',
               "invalid TOML: an integer longer than")


def test_other_python_types_are_refused():
    with pytest.raises(DesignError, match=r'factors."tcp.max_cwnd"\[0\]: a set is not a design value'):
        Design.from_dict({"base": "example:chain", "factors": {"tcp.max_cwnd": [{1}]}})


# --- 4: reserved names ----------------------------------------------------------

@pytest.mark.parametrize("name", ["seed", "key", "run", "replica", "design", "status", "error", "idx",
                                  "events", "wall_s", "flow", "kind", "throughput_kbps"])
def test_reserved_factor_names_are_refused(tmp_path, name):
    line = _cli_error(tmp_path, f'base = "example:chain"\n[factors.{name}]\na = {{}}\nb = {{ "duration_s" = 3.0 }}\n',
                      f'factors."{name}": a factor cannot be named "{name}"')
    if name == "seed":
        assert "replicas = N" in line  # the design's own way to vary the seed
    with pytest.raises(DesignError) as e:  # as a treatment's factor too
        Design.from_dict({"base": "example:chain", "treatments": [{"factors": {name: 1}}]})
    assert e.value.field == f"treatments[0].factors.{name}"


def test_a_seed_field_factor_or_level_is_refused(tmp_path):
    _cli_error(tmp_path, 'base = "example:chain"\n[factors]\nseed = [1, 2]\n', 'factors."seed"', "replicas = N")
    _cli_error(tmp_path, 'base = "example:chain"\n[factors.x]\na = { seed = 3 }\n', 'factors."x".a.seed')


def test_reserved_names_cover_the_columns_the_store_adds():
    from hoplab import lab

    lab.load  # noqa: B018  (through lab's lazy loader, so `lab.load` stays the function, not the module)
    load = sys.modules["hoplab.lab.load"]
    assert set(load.RUN_COLUMNS + load.RUN_TAIL) <= design_mod.RESERVED_NAMES
    assert {"run", "idx", "events", "event_hash", "wall_s", "host", "recorded_at"} <= design_mod.RESERVED_NAMES
    assert set(load.SCHEMA["flows"]) <= design_mod.RESERVED_NAMES


# --- 5: a treatment or factor overriding a factor ------------------------------

def test_a_treatment_overriding_a_factor_is_refused(tmp_path):
    _cli_error(tmp_path, 'base = "example:chain"\n[factors]\n"tcp.max_cwnd" = [2, 4]\n'
               '[[treatments]]\nfactors = { v = "x" }\nset = { "tcp.max_cwnd" = 3 }\n',
               'treatments[0].set.tcp.max_cwnd: overrides factor "tcp.max_cwnd"')
    # a whole table over a factor's field, and a named level's field
    with pytest.raises(DesignError, match=r'treatments\[1\].set.tcp: overrides factor "hops"'):
        Design.from_dict({"base": "example:chain", "factors": {"hops": {"1": {"tcp.max_cwnd": 2}}},
                          "treatments": [{"factors": {"v": 1}, "set": {"mac.cw_min": 7}},
                                         {"factors": {"v": 2}, "set": {"tcp": {"variant": "sack"}}}]})


def test_two_factors_setting_one_field_are_refused():
    with pytest.raises(DesignError, match='sets tcp.max_cwnd, which factor "tcp.max_cwnd" sets too') as e:
        Design.from_dict({"base": "example:chain", "factors": {
            "tcp.max_cwnd": [2, 4], "variant": {"a": {"tcp.max_cwnd": 8, "tcp.variant": "sack"}}}})
    assert e.value.field == 'factors."variant"'


def test_disjoint_fields_in_factors_and_treatments_are_fine():
    d = Design.from_dict({"base": "example:chain", "factors": {"tcp.max_cwnd": [2, 4]},
                          "treatments": [{"factors": {"v": "reno"}, "set": {"tcp.variant": "new_reno"}},
                                         {"factors": {"v": "sack"}, "set": {"tcp.variant": "sack"}}]})
    assert len({r.key for r in d.expand()}) == 4


def test_names_with_line_breaks_stay_on_one_line(tmp_path):
    # found by test_fuzz_designs: a base file name with a record separator (str.splitlines breaks there)
    line = _cli_error(tmp_path, 'base = "a\\u001eb\\nc"\n', r"base: ")
    assert r"a\x1eb\nc" in line


def test_numpy_levels_and_seeds_in_a_python_design_are_plain_values():
    # Before: "a int64 is not a design value" (the design's walk knew no
    # numpy, unlike the scenario's); now one walk (hoplab._plain) serves both.
    np = pytest.importorskip("numpy")
    d = Design.from_dict({"base": "example:chain", "seeds": np.array([3, 4]),
                          "factors": {"tcp.max_cwnd": np.arange(1, 3), "duration_s": [np.float64(5.0)]}})
    runs = d.expand()
    assert [(r.scenario["tcp"]["max_cwnd"], r.scenario["seed"]) for r in runs] == [(1, 3), (1, 4), (2, 3), (2, 4)]
    assert all(type(r.scenario["tcp"]["max_cwnd"]) is int for r in runs)
    with pytest.raises(DesignError, match=r'factors."tcp.max_cwnd"\[1\]: must be a finite number, not nan'):
        Design.from_dict({"base": "example:chain", "factors": {"tcp.max_cwnd": [1, np.float64("nan")]}})
