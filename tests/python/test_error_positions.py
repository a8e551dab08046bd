"""Issue 23 item 8: positions of TOML and JSON errors come from the parsers'
structured positions (attributes `.line`, `.column`), never from message
text; a JSON syntax error has the promised `file:line:column: invalid JSON:
problem` form; messages name no Rust type ("expected u32")."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import hoplab
import hoplab.lab
from hoplab import _core
from hoplab.cli import cli
from hoplab.cli.errors import scenario_error_text

from .conftest import SMALL_TOML

BAD_JSON = '{"duration_s": 10,\n "topology": {"kind": "chain", "nodes": 3, }\n}\n'


def _cli(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(cli, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoplab: error: "), r.stderr
    return r.exit_code, lines[0]


@pytest.mark.parametrize("command", ["validate", "run"])
def test_json_syntax_error_has_the_invalid_json_form(tmp_path, command):
    p = tmp_path / "bad.json"
    p.write_text(BAD_JSON)
    code, line = _cli(command, str(p))
    assert code == 2
    # was "bad.json: trailing comma at line 2 column 44"
    assert line == f"hoplab: error: {p}:2:44: invalid JSON: trailing comma"


def test_json_syntax_error_is_the_same_with_set(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text(BAD_JSON)
    assert _cli("validate", str(p), "--set", "seed=2")[1] == f"hoplab: error: {p}:2:44: invalid JSON: trailing comma"


def test_api_json_syntax_error_carries_its_position():
    with pytest.raises(hoplab.ScenarioError) as ei:
        _core.check_scenario(BAD_JSON, "json")
    e = ei.value
    assert (e.line, e.column, e.field, e.message) == (2, 44, "", "invalid JSON: trailing comma")
    assert str(e) == "invalid JSON: trailing comma (at line 2, column 44)"


def test_a_toml_type_error_has_a_position_and_no_rust_type(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SMALL_TOML.replace("seed = 1", "seed = -1"))  # line 3
    code, line = _cli("validate", str(p))
    assert code == 2
    assert line == (f"hoplab: error: {p}:3:8: seed: invalid value: integer `-1`, "
                    "expected a whole number from 0 to 18446744073709551615")


@pytest.mark.parametrize("replace, expected", [
    (("nodes = 3", "nodes = -1"), "expected a whole number from 0 to 4294967295"),
    (("duration_s = 10.0", 'duration_s = "x"'), "expected a number"),
    (("[tcp]", "[output]\ntimeseries = 3\n[tcp]"), "expected true or false"),
    (("seed = 1", "seed = 1\nmac = 5"), "expected a table"),
])
def test_no_rust_type_names(replace, expected):
    with pytest.raises(hoplab.ScenarioError) as ei:
        hoplab.run(SMALL_TOML.replace("[mac]\nrts_threshold_bytes = 100", "").replace(*replace))
    text = str(ei.value)
    assert expected in text, text
    for rust in ("u32", "u64", "f64", "a boolean", "struct ", "a sequence"):
        assert rust not in text, text


def test_no_rust_type_names_in_json_either():
    with pytest.raises(hoplab.ScenarioError) as ei:
        hoplab.run({"duration_s": 1, "topology": {"kind": "chain", "nodes": 3, "spacing_m": 200}, "mac": 5})
    assert ei.value.field == "mac" and "expected an object" in ei.value.message, ei.value.message


def test_position_comes_from_attributes_not_text():
    # a message that reads like a parser position but carries none
    e = _core.ScenarioError("x")
    e.field, e.message, e.line, e.column = "name", "TOML parse error at line 9, column 9", None, None
    assert scenario_error_text(e, "f.toml") == "f.toml: name: TOML parse error at line 9, column 9"
    e.line, e.column = 4, 2
    assert scenario_error_text(e, "f.toml") == "f.toml:4:2: name: TOML parse error at line 9, column 9"


def test_design_json_error_has_the_same_form(tmp_path):
    p = tmp_path / "d.json"
    p.write_text('{"base": "x.toml",\n "factors": {,}}')
    with pytest.raises(hoplab.lab.DesignError) as ei:
        hoplab.lab.Design.load(p)
    assert f"{p}:2:14: invalid JSON: " in str(ei.value), str(ei.value)
