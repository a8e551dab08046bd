"""Derived fields in designs (issue 23 item 5): `[derive]` computes scenario
fields from a cell's factor levels with a small arithmetic evaluator."""

from __future__ import annotations

import copy
import time

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from hoplab import lab
from hoplab.cli import cli
from hoplab.lab import derive
from hoplab.lab.design import DesignError

from .conftest import EXAMPLES

# examples/designs/window_vs_hops.toml before [derive]: one named level per
# hop count repeating three fields. The derived version must expand into the
# same runs (same keys), so stores made with the old file resume.
OLD_WINDOW_VS_HOPS = f"""
name = "window-vs-hops"
base = "{(EXAMPLES / 'chain.toml').as_posix()}"
replicas = 3
order = "interleaved"

[factors]
"tcp.max_cwnd" = [2, 3, 4, 0]

[factors.hops]
1 = {{ "topology.nodes" = 2, "flows[0].dst" = 1, "duration_s" = 30.0 }}
2 = {{ "topology.nodes" = 3, "flows[0].dst" = 2, "duration_s" = 30.0 }}
3 = {{ "topology.nodes" = 4, "flows[0].dst" = 3, "duration_s" = 30.0 }}
4 = {{ "topology.nodes" = 5, "flows[0].dst" = 4, "duration_s" = 30.0 }}
"""

DESIGN = {
    "name": "derived",
    "base": "example:chain",
    "factors": {"tcp.max_cwnd": [2, 0], "hops": [1, 3]},
    "derive": {"topology.nodes": "hops + 1", "flows[0].dst": "hops", "duration_s": 5.0},
}


def design(**changes):
    d = copy.deepcopy(DESIGN)
    d.update(changes)
    return lab.Design.from_dict(d)


def test_example_design_expands_to_the_same_runs_as_before(tmp_path):
    old_file = tmp_path / "old.toml"
    old_file.write_text(OLD_WINDOW_VS_HOPS)
    old = lab.Design.load(old_file).expand()
    new_design = lab.Design.load(EXAMPLES / "designs" / "window_vs_hops.toml")
    new = new_design.expand()
    assert "derive" in new_design.raw  # the example uses the feature
    assert len(new) == len(old) == 48
    assert [r.key for r in new] == [r.key for r in old]
    assert [(r.cell, r.replica, r.seed) for r in new] == [(r.cell, r.replica, r.seed) for r in old]
    assert [r.resolved for r in new] == [r.resolved for r in old]
    # ... and it is shorter: one factor line instead of a level per hop count.
    assert len(new_design.raw["factors"]["hops"]) == 4 and isinstance(new_design.raw["factors"]["hops"], list)


def test_derived_fields_are_written_into_each_cells_scenario():
    runs = design().expand()
    assert len(runs) == 4
    for r in runs:
        sc = r.scenario
        assert sc["topology"]["nodes"] == r.cell["hops"] + 1
        assert sc["flows"][0]["dst"] == r.cell["hops"]
        assert sc["duration_s"] == 5.0
        assert sc["tcp"]["max_cwnd"] == r.cell["tcp.max_cwnd"]
        assert "hops" not in sc  # a variable factor sets no field of its own
    assert len({r.key for r in runs}) == 4
    assert runs[0].cell == {"tcp.max_cwnd": 2, "hops": 1}


def test_a_factor_named_by_a_field_still_sets_it_when_derive_reads_it():
    # duration_s is a scenario field: it is set, and the derived start reads it.
    d = design(factors={"duration_s": [10.0, 20.0]},
               derive={"flows[0].start_s": "duration_s / 10", "topology.nodes": "max(2, int(duration_s) // 5)",
                       "flows[0].dst": "int(duration_s) // 5 - 1"})
    got = [(r.scenario["duration_s"], r.scenario["flows"][0]["start_s"], r.scenario["topology"]["nodes"],
            r.scenario["flows"][0]["dst"]) for r in d.expand()]
    assert got == [(10.0, 1.0, 2, 1), (20.0, 2.0, 4, 3)]


def test_dotted_factor_names_and_named_levels_are_read():
    d = design(factors={"tcp.max_cwnd": [2, 4], "size": {"1": {"duration_s": 5.0}, "3": {"duration_s": 6.0}}},
               derive={"mac.queue_limit": "tcp.max_cwnd * 10 + size", "topology.nodes": "size + 1",
                       "flows[0].dst": "size"})
    got = [(r.cell["tcp.max_cwnd"], r.cell["size"], r.scenario["mac"]["queue_limit"]) for r in d.expand()]
    assert got == [(2, 1, 21), (2, 3, 23), (4, 1, 41), (4, 3, 43)]


def test_treatment_factors_are_read_too():
    d = design(factors={"hops": [1, 2]}, derive={"topology.nodes": "hops + 1", "flows[0].dst": "hops",
                                                 "tcp.max_cwnd": "clamp * hops"},
               treatments=[{"factors": {"clamp": 1}}, {"factors": {"clamp": 2}}])
    got = [(r.cell["hops"], r.cell["clamp"], r.scenario["tcp"]["max_cwnd"]) for r in d.expand()]
    assert got == [(1, 1, 1), (1, 2, 2), (2, 1, 2), (2, 2, 4)]


def test_runs_of_a_cell_share_its_derived_scenario():
    runs = design(replicas=3).expand()
    by_cell = {}
    for r in runs:
        by_cell.setdefault(r.cell_index, []).append(r)
    for rs in by_cell.values():
        assert all(r.cell_scenario is rs[0].cell_scenario for r in rs)


@pytest.mark.parametrize("changes, field, words", [
    # A treatment overriding a derived field, as one overriding a factor's field.
    ({"treatments": [{"factors": {"v": "a"}, "set": {"topology.nodes": 4}}]},
     "treatments[0].set.topology.nodes", "derived field topology.nodes (from hops)"),
    ({"treatments": [{"factors": {"v": "a"}, "set": {"flows": []}}]},
     "treatments[0].set.flows", "derived field flows[0].dst"),
    # A factor setting what is derived.
    ({"factors": {"hops": [1, 2], "topology.nodes": [3, 4]}}, 'derive."topology.nodes"', 'factor "topology.nodes"'),
    ({"factors": {"hops": [1, 2], "shape": {"a": {"topology": {"kind": "chain"}}}}},
     'derive."topology.nodes"', 'factor "shape" sets topology too'),
    # Two derived fields, one part of the other.
    ({"derive": {"flows": "hops", "flows[0].dst": "hops"}}, 'derive."flows[0].dst"', "flows is derived too"),
    ({"derive": {"seed": "hops"}}, "derive.seed", "replicas"),
    ({"derive": {"topology.nodes": "hop + 1"}}, 'derive."topology.nodes"', "'hop' is not a factor of this design"),
    ({"derive": {"topology..nodes": "1"}}, 'derive."topology..nodes"', "not a field path"),
    ({"derive": {"topology": {"nodes": "hops"}}}, "derive.topology", "quote a dotted field name"),
    ({"derive": ["topology.nodes"]}, "derive", "expected a table"),
    ({"derive": {f"a{i}": "1" for i in range(1001)}}, "derive", "more than the 1000 a design may derive"),
])
def test_conflicts_and_bad_entries_are_refused_before_any_cell(changes, field, words):
    with pytest.raises(DesignError) as e:
        design(**changes)
    assert e.value.field == field
    assert words in e.value.message


@pytest.mark.parametrize("expr", [
    "__import__('os').system('touch pwned')", "open('x')", "hops.__class__", "(1).real", "[1][0]", "'a'",
    "lambda: 1", "hops if hops else 1", "hops > 1", "True + hops", "min(*[1, 2])", "int(x=1)", "min(hops)",
    "hops +", "", "1" * (derive.MAX_CHARS + 1), "(" * 300 + "1" + ")" * 300, "a\x00b", "{}",
])
def test_anything_but_arithmetic_is_refused_without_evaluation(expr, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DesignError) as e:
        design(derive={"topology.nodes": expr})
    assert e.value.field == 'derive."topology.nodes"'
    assert "\n" not in str(e.value)
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("expr, words", [
    ("9 ** 9 ** 9", "exponent beyond 64"),
    ("2 ** 64 * 2 ** 64", "beyond ±2**64"),
    ("1e308 * 10", "not a finite number"),
    ("10.0 ** 400.0", "range of a float"),
    ("(-1) ** 0.5", "not a real number"),
    ("hops // (hops - hops)", "division by zero"),
    ("round(hops, 10 ** 9)", "round()'s digits"),
])
def test_evaluation_is_bounded_and_fails_in_one_line_naming_the_cell(expr, words):
    d = design(derive={"topology.nodes": expr, "flows[0].dst": "hops"})
    t0 = time.monotonic()
    with pytest.raises(DesignError) as e:
        d.expand()
    assert time.monotonic() - t0 < 5
    assert e.value.field == 'derive."topology.nodes"'
    assert e.value.message.startswith("cell {tcp.max_cwnd=2, hops=1}: ")
    assert words in e.value.message


def test_a_level_that_is_not_a_number_is_named():
    d = design(factors={"hops": {"one": {}, "two": {}}})
    with pytest.raises(DesignError, match=r"hops is 'one' here, not a number"):
        d.expand()


def test_cli_error_is_one_line_naming_the_file_and_the_field(tmp_path):
    p = tmp_path / "d.toml"
    p.write_text('name = "x"\nbase = "example:chain"\n[factors]\nhops = [1, 2]\n'
                 '[derive]\n"topology.nodes" = "hops + nodes"\n')
    r = CliRunner().invoke(cli, ["design", "expand", str(p)])
    assert r.exit_code == 2
    assert r.output == (f"hoplab: error: {p}: derive.\"topology.nodes\": 'hops + nodes': 'nodes' is not a factor "
                        "of this design (factors: hops)\n")


# Arithmetic over small integers gives what Python gives (the evaluator is
# Python's own operators on a checked tree).
_leaf = st.one_of(st.integers(-50, 50).map(str), st.sampled_from(["hops", "w"]))


def _combine(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-", "*", "/", "//", "%"]), children)
        .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["min", "max"]), children, children).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        children.map(lambda c: f"-{c}"),
    )


@settings(max_examples=300, deadline=None)
@given(st.recursive(_leaf, _combine, max_leaves=12), st.integers(1, 9), st.integers(-9, 9))
def test_evaluator_agrees_with_python_on_arithmetic(text, hops, w):
    expr = derive.parse(text) if len(text) <= derive.MAX_CHARS else None
    if expr is None:
        return
    values = {"hops": hops, "w": w}
    try:
        want = eval(text, {"__builtins__": {"min": min, "max": max}}, values)  # noqa: S307 - test oracle
    except ZeroDivisionError:
        with pytest.raises(derive.DeriveError, match="division by zero"):
            derive.evaluate(expr, values)
        return
    assert derive.evaluate(expr, values) == want
