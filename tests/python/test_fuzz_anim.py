"""Fuzzing `hoplab view`'s reading of anim.csv: a real run's event log with
cells replaced by values drawn at random (numbers out of range, NaN,
infinities, huge integers, text, empty fields), lines dropped, repeated or
swapped, and the file cut short. Whatever the log, `hoplab view` writes the
page (exit 0) or prints one line naming anim.csv (exit 2); never a
traceback or an internal error (exit 70). A value that is refused is named
with its line and column.

CI runs a few examples (the "ci" profile of test_fuzz_scenarios); the long
run is HOPLAB_FUZZ=long (`scripts/fuzz.sh`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from click.testing import CliRunner  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import hoplab  # noqa: E402
from hoplab.cli import cli  # noqa: E402

from .test_fuzz_scenarios import LONG  # noqa: E402,F401 - registers and loads the ci/long profiles

SCENARIO = {"name": "fuzz-anim", "duration_s": 2.0, "topology": {"kind": "chain", "nodes": 4, "spacing_m": 200.0},
            "routing": {"protocol": "aodv"}, "flows": [{"kind": "ftp", "src": 0, "dst": 3}],
            "trace": {"formats": ["anim"]}}


@functools.cache
def _run() -> Path:
    """The run directory, made once per process (Hypothesis calls the test many times)."""
    d = Path(tempfile.mkdtemp(prefix="hoplab-fuzz-anim-")) / "run"
    hoplab.run(SCENARIO, trace_dir=d).save(d)
    return d


CELLS = st.one_of(
    st.sampled_from(["", "nan", "NaN", "inf", "-inf", "1e300", "-1e300", "1e-300", "-1", "-2", "0", "1.5",
                     "99999999999999999999999", "9223372036854775808", "True", "False", "maybe", "MAC", "send",
                     "drop", "DATA", "\"quoted, with a comma\"", "é", "0x10"]),
    st.integers(-10**20, 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n,\""), max_size=6),
)
EDITS = st.lists(st.one_of(
    st.tuples(st.just("cell"), st.integers(1, 10**6), st.integers(0, 16), CELLS),
    st.tuples(st.just("drop_line"), st.integers(1, 10**6)),
    st.tuples(st.just("repeat_line"), st.integers(1, 10**6)),
    st.tuples(st.just("swap"), st.integers(1, 10**6), st.integers(1, 10**6)),
), max_size=6)


def _edit(lines: list[str], edits) -> list[str]:
    lines = list(lines)
    for e in edits:
        if len(lines) < 2:
            break
        i = 1 + e[1] % (len(lines) - 1)  # a data line (the header stays)
        if e[0] == "cell":
            cells = lines[i].split(",")
            cells[e[2] % len(cells)] = e[3]
            lines[i] = ",".join(cells)
        elif e[0] == "drop_line":
            del lines[i]
        elif e[0] == "repeat_line":
            lines.insert(i, lines[i])
        else:
            j = 1 + e[2] % (len(lines) - 1)
            lines[i], lines[j] = lines[j], lines[i]
    return lines


@given(edits=EDITS, cut=st.one_of(st.none(), st.none(), st.integers(0, 60_000)))  # the log is ~55 kB
def test_any_event_log_gives_a_page_or_one_line_naming_the_file(edits, cut):
    src = _run()
    with tempfile.TemporaryDirectory() as d:
        run = Path(d) / "run"
        shutil.copytree(src, run)
        text = "\n".join(_edit((src / "anim.csv").read_text().splitlines(), edits)) + "\n"
        if cut is not None:
            text = text[:cut]
        (run / "anim.csv").write_text(text)
        m = json.loads((run / "MANIFEST.json").read_text())  # the log's reading is under test, not the manifest
        if "anim.csv" in m["files"]:
            m["files"]["anim.csv"].update(size=len(text.encode()), sha256=hashlib.sha256(text.encode()).hexdigest())
            (run / "MANIFEST.json").write_text(json.dumps(m))
        page = Path(d) / "page.html"
        r = CliRunner().invoke(cli, ["view", str(run), "-o", str(page)])
        if r.exit_code == 130:  # fuzz.sh's SIGINT at the end of its share reached the command: a stop
            raise KeyboardInterrupt
        assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
        err = r.stderr.splitlines()
        if r.exit_code == 0:
            assert err == [] and page.is_file()
            return
        assert r.exit_code == 2 and len(err) == 1, (r.exit_code, r.stderr)
        assert err[0].startswith(f"hoplab: error: {run / 'anim.csv'}: "), err[0]
        assert not page.exists()
        if " is not " in err[0] and "column '" not in err[0]:  # a value refused: its line and column named
            assert re.search(r": line \d+, column \w+: ", err[0]), err[0]
