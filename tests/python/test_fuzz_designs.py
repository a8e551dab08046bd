"""Fuzzing experiment designs (issue 22 item 7): generated design files
(factor names including the reserved ones, huge level counts and replicas,
TOML dates, arrays and tables nested thousands deep, wrong types,
treatments overriding factors) through `hoplab design expand` and the
Python loader must give a finished expansion or one `hoplab: error:` line
naming the design file (exit 2): never a traceback, an internal error
(exit 70), a MemoryError, or an expansion that runs for long.

CI runs a few dozen examples; `HOPLAB_FUZZ=long` (scripts/fuzz.sh) many,
with the settings profiles of test_fuzz_scenarios.py.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import time

import pytest

hypothesis = pytest.importorskip("hypothesis")
from click.testing import CliRunner  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hoplab.cli import cli  # noqa: E402
from hoplab.lab.design import RESERVED_NAMES, Design, DesignError  # noqa: E402

from .test_fuzz_scenarios import LONG  # noqa: E402,F401  (registers and loads the "ci"/"long" profiles)

#: Wall seconds one design may take to load and expand (the largest a
#: generated design can be and still be accepted is a few thousand runs).
MAX_SECONDS = 60.0

FIELDS = ["tcp.max_cwnd", "tcp.variant", "mac.cw_min", "duration_s", "topology.nodes", "flows[0].dst",
          "tcp", "flows", "seed", "name", "no.such.field", "flows[9].src", "bad path", ""]
NAMES = st.one_of(st.sampled_from(sorted(RESERVED_NAMES)[:12] + ["seed", "key", "run", "replica", "hops", "v"]),
                  st.sampled_from(FIELDS), st.text(min_size=0, max_size=8))
SCALAR = st.one_of(
    st.integers(-(2**70), 2**70), st.sampled_from([0, 1, 2, 3, 4, 2**63, 2**64]),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
    st.text(max_size=10), st.sampled_from(["sack", "new_reno", "x" * 300]),
    st.dates(), st.times(), st.datetimes(),
)
VALUE = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(st.sampled_from(["a", "b", "nodes"]), inner,
                                                                     max_size=3)), max_leaves=6)


class Deep:
    """An array or inline table nested ``depth`` deep, written as text."""

    def __init__(self, depth: int, table: bool) -> None:
        self.depth, self.table = depth, table


DEEP = st.builds(Deep, st.sampled_from([2, 31, 33, 100, 900, 5000]), st.booleans())
LEVELS = st.one_of(st.lists(st.one_of(SCALAR, VALUE, DEEP), max_size=4),
                   st.dictionaries(st.text(max_size=4), st.dictionaries(st.sampled_from(FIELDS), VALUE, max_size=2),
                                   max_size=3),
                   SCALAR)


def _toml(v) -> str:
    if isinstance(v, Deep):
        return ("{a = " * v.depth + "1" + "}" * v.depth) if v.table else "[" * v.depth + "]" * v.depth
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml(x)}" for k, x in v.items()) + "}"


@st.composite
def designs(draw) -> str:
    top = {"base": draw(st.one_of(st.just("example:chain"), st.just("example:nope"), SCALAR))}
    if draw(st.booleans()):
        top["replicas"] = draw(st.one_of(st.sampled_from([1, 2, 3, 1_000_001, 10**7, 2**63, 0, -1]), SCALAR))
    elif draw(st.booleans()):
        top["seeds"] = draw(st.lists(st.one_of(st.integers(-2, 2**65), SCALAR), max_size=4))
    for k in ("order", "order_seed", "name", "description"):
        if draw(st.integers(0, 3)) == 0:
            top[k] = draw(st.one_of(st.sampled_from(["sequential", "interleaved", "randomised"]), SCALAR))
    lines = [f"{k} = {_toml(v)}" for k, v in top.items()]
    if draw(st.integers(0, 4)) == 0:  # 10^10 cells and more: counted, never built
        n = draw(st.sampled_from([7, 10, 12]))
        lines.append("[factors]")
        lines += [f'"f{i}" = {_toml(list(range(n)))}' for i in range(n)]
    else:
        factors = draw(st.dictionaries(NAMES, LEVELS, max_size=3))
        if factors:
            lines.append("[factors]")
            lines += [f"{json.dumps(k)} = {_toml(v)}" for k, v in factors.items()]
    for _ in range(draw(st.integers(0, 2))):
        lines.append("[[treatments]]")
        lines.append(f"factors = {_toml(draw(st.dictionaries(NAMES, SCALAR, max_size=2)))}")
        lines.append(f"set = {_toml(draw(st.dictionaries(st.sampled_from(FIELDS), VALUE, max_size=2)))}")
    return "\n".join(lines) + "\n"


@given(designs())
def test_generated_designs_expand_or_give_one_line(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz-design") / "d.toml"
    path.write_text(text)
    t = time.perf_counter()
    r = CliRunner().invoke(cli, ["design", "expand", str(path), "--csv"])
    assert r.exit_code in (0, 2), (text[:2000], repr(r.exception))
    if r.exit_code == 2:
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"hoplab: error: {path}"), (text[:2000], r.stderr[:2000])
    try:  # the Python loader: the same verdict, as a DesignError
        Design.load(path).expand()
        assert r.exit_code == 0, text[:2000]
    except DesignError as e:
        assert r.exit_code == 2 and "\n" not in str(e), (text[:2000], str(e)[:2000])
    assert time.perf_counter() - t < MAX_SECONDS, text[:2000]
