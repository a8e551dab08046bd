"""Fuzzing the ns-2 readers (issue 22 item 7): generated movement (setdest)
and connection (cbrgen) files, mostly well formed around extreme or
malformed numbers (huge, zero, negative, NaN and infinity spellings,
denormals), Tcl and non-Tcl separators, very long lines and binary junk.

- The readers either return or raise `Ns2FormatError`, whose message is one
  line naming the file (and a line of it).
- `hoplab movement import` either writes a scenario the engine's validator
  accepts (exit 0) or prints exactly one `hoplab: error:` line naming an input
  file and writes nothing (exit 2); never an internal error (exit 70), a
  traceback or an error against the output file.

CI runs the short profile of test_fuzz_scenarios (imported below: it
registers and loads the profiles); `HOPLAB_FUZZ=long` runs until stopped
(scripts/fuzz.sh).
"""

from __future__ import annotations

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import example, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hoplab import _core  # noqa: E402
from hoplab.formats.ns2 import Ns2FormatError, movement as nm, traffic as nt  # noqa: E402

from .test_fuzz_scenarios import LONG  # noqa: E402,F401  (loads the "ci" or "long" settings profile)

EXTREME = st.sampled_from(["0", "-0", "1", "-1", "0.5", ".5", "5.", "1e-7", "5e-324", "1e308", "1e400", "-1e400",
                     "nan", "NaN", "inf", "-inf", "Infinity", "0x10", "1_000", "1e", "", "+", "--1",
                     "9" * 400, "9" * 5000, "0" * 5000 + "1", "2147483647", "2147483648", "999999", "1000000",
                     "1e15", "1e16", "65507", "65508", "28", "27", "0.9", "\u0661", "1\u00a0", "4.2\u2028"])
NUMBERS = st.one_of(
    EXTREME, EXTREME, EXTREME,
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(min_value=0, max_value=2000).map(lambda v: f"{v:.12f}"),
    st.integers(-(2**70), 2**70).map(str),
    st.integers(0, 6).map(str),
)
SMALL = st.integers(0, 6).map(str)
NODE = st.one_of(*[SMALL] * 6, NUMBERS)


def value(valid: str) -> st.SearchStrategy[str]:
    """A number of a well-formed line: mostly ``valid``, else anything."""
    return st.one_of(*[st.just(valid)] * 8, NUMBERS)  # one_of picks a branch uniformly
# Between words: mostly a space; Tcl's other white space, and characters
# Python would take for white space but Tcl does not.
WS = st.one_of(*[st.just(" ")] * 12, st.sampled_from(["\t", "\f", "\v", "  "]),
               st.sampled_from(["\u00a0", "\x1c", "\u2028"]))
# Between commands: one of Tcl's separators for the whole file (LF, CRLF, CR,
# semicolon), and at one drawn place perhaps another: a blank line, a comment
# continued by a backslash-newline, a backslash-newline joining two commands,
# ^Z (the end of the script), or a separator Tcl does not split on.
STYLE = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", ";"])
ODD = st.sampled_from(["\n\n", "\n# a comment; \\\n", "\\\n", "\f", "\v", "\x85", "\u2028", "\u2029",
                       "\x1c", "\x1a"])
JUNK = st.one_of(st.text(max_size=40), st.just("x" * 70_000), st.just("$node_(0) set X_ " + "1" * 100_000),
                 st.sampled_from(['"', "{", "[", "}", "]", "\\", "#", '$ns_ at 1 "', "set", "$"]))


def words(*parts) -> st.SearchStrategy[str]:
    """A command: the parts (strings or strategies) joined by drawn white space."""
    return st.tuples(*[p if isinstance(p, st.SearchStrategy) else st.just(p) for p in parts],
                     *[WS] * (len(parts) - 1)).map(
        lambda t: "".join(w + (t[len(parts) + k] if k < len(parts) - 1 else "") for k, w in enumerate(t[:len(parts)])))


@st.composite
def script(draw, commands: list[str]) -> str:
    seps = [draw(STYLE)] * len(commands)
    if commands and draw(st.booleans()):
        seps[draw(st.integers(0, len(commands) - 1))] = draw(ODD)
    return "".join(c + sep for c, sep in zip(commands, seps))


# --------------------------------------------------------------- movement
def _positions(n: int) -> st.SearchStrategy[list[str]]:
    return st.tuples(*[value(f"{10.0 * i + (v == 'Y'):.12f}").map(lambda x, i=i, v=v: f"$node_({i}) set {v}_ {x}")
                       for i in range(n) for v in "XYZ"]).map(list)


MOVE_CMD = st.one_of(
    words(st.just("$node_(").flatmap(lambda s: NODE.map(lambda i: f"{s}{i})")), "set",
          st.sampled_from(["X_", "Y_", "Z_", "W_"]), NUMBERS),
    st.tuples(NUMBERS, NODE, NUMBERS, NUMBERS, NUMBERS, WS).map(
        lambda t: f'$ns_ at {t[0]} "$node_({t[1]}) setdest {t[2]}{t[5]}{t[3]} {t[4]}"'),
    st.tuples(SMALL, SMALL, SMALL).map(lambda t: f'$ns_ at 1.0 "$node_({t[0]}) setdest 5.0 5.0 1.0; '
                                                 f'$god_ set-dist {t[1]} {t[2]} 1"'),
    words("$god_", "set-dist", NODE, NODE, NUMBERS),
    value("3").map(lambda n: f"# nodes: {n}, pause: 2.00, max speed: 5.00"),
    JUNK,
)


@st.composite
def movement_files(draw) -> str:
    n = draw(st.integers(1, 4))
    cmds = draw(_positions(n)) + draw(st.lists(MOVE_CMD, max_size=4))
    if draw(st.integers(0, 3)) == 0:
        cmds = draw(st.permutations(cmds))
    return draw(script(cmds))


# ---------------------------------------------------------------- traffic
PARAM = st.sampled_from(["packetSize_", "interval_", "rate_", "random_", "maxpkts_", "window_", "fid_", "ttl_"])
RATE = st.tuples(NUMBERS, st.sampled_from(["", "k", "Kb", "Mb", "G", "GB", "Bps", "x"])).map("".join)


@st.composite
def _cbr(draw, i: int, src: str, dst: str) -> list[str]:
    rate = draw(st.one_of(st.just(f"interval_ {draw(value('0.25'))}"), RATE.map(lambda r: f"rate_ {r}")))
    return [f"set udp_({i}) [new Agent/UDP]", f"$ns_ attach-agent $node_({src}) $udp_({i})",
            f"set null_({i}) [new Agent/Null]", f"$ns_ attach-agent $node_({dst}) $null_({i})",
            f"set cbr_({i}) [new Application/Traffic/CBR]", f"$cbr_({i}) set packetSize_ {draw(value('512'))}",
            f"$cbr_({i}) set {rate}", f"$cbr_({i}) set random_ {draw(value('1'))}",
            f"$cbr_({i}) set maxpkts_ {draw(value('10000'))}",
            f"$cbr_({i}) attach-agent $udp_({i})", f"$ns_ connect $udp_({i}) $null_({i})",
            f'$ns_ at {draw(value("2.5"))} "$cbr_({i}) start"']


@st.composite
def _tcp(draw, i: int, src: str, dst: str) -> list[str]:
    verb = draw(st.sampled_from(["start", "start", "send"]))
    if verb == "send":
        verb += " " + draw(value("100000"))
    return [f"set tcp_({i}) [$ns_ create-connection TCP $node_({src}) TCPSink $node_({dst}) 0]",
            f"$tcp_({i}) set window_ {draw(value('32'))}", f"$tcp_({i}) set packetSize_ {draw(value('512'))}",
            f"set ftp_({i}) [$tcp_({i}) attach-source FTP]", f'$ns_ at {draw(value("1.5"))} "$ftp_({i}) {verb}"']


TRAFFIC_CMD = st.one_of(
    st.tuples(st.sampled_from(["cbr_(0)", "tcp_(1)", "udp_(0)", "cbr_(9)"]), PARAM, st.one_of(NUMBERS, RATE)).map(
        lambda t: f"${t[0]} set {t[1]} {t[2]}"),
    st.tuples(NUMBERS, st.sampled_from(["cbr_(0)", "ftp_(1)"]),
              st.sampled_from(["start", "stop", "send"]), st.one_of(st.just(""), NUMBERS)).map(
        lambda t: f'$ns_ at {t[0]} "${t[1]} {t[2]}{" " + t[3] if t[3] else ""}"'),
    NODE.map(lambda n: f"$ns_ attach-agent $node_({n}) $null_(0)"),
    JUNK,
)


@st.composite
def traffic_files(draw) -> str:
    ends = st.tuples(NODE, NODE)
    (s0, d0), (s1, d1) = draw(ends), draw(ends)
    cmds = draw(_cbr(0, s0, d0)) + draw(_tcp(1, s1, d1))
    for _ in range(draw(st.integers(0, 1))):  # replace a line of the valid file
        k = draw(st.integers(0, len(cmds) - 1))
        cmds[k] = draw(TRAFFIC_CMD)
    cmds += draw(st.lists(TRAFFIC_CMD, max_size=2))
    return draw(script(cmds))


def _one_line_naming(e: Ns2FormatError, path: str, text: str) -> None:
    msg = str(e)
    assert len(msg.splitlines()) == 1, msg  # no raw line separator of any kind
    assert msg.startswith(f"{path}:") or msg.startswith(f"{path} "), msg
    if e.line is not None:
        assert 1 <= e.line <= text.count("\n") + text.count("\r") + 1, msg


# Issue 22's cases, always run: a 5000-digit header (an internal error), form
# feeds in a comment (Python split the line there: line numbers past the end).
POS = "$node_(0) set X_ 1\n$node_(0) set Y_ 1\n"
CBR = ("set u [new Agent/UDP]\n$ns_ attach-agent $node_(0) $u\nset n [new Agent/Null]\n"
       "$ns_ attach-agent $node_(1) $n\nset c [new Application/Traffic/CBR]\n$c attach-agent $u\n"
       "$ns_ connect $u $n\n$ns_ at 1 \"$c start\"\n")


@example("# nodes: " + "9" * 5000 + "\n" + POS)
@example("#\f\f\f\v\x85\u2028\n$node_(0) set X_ x\n")
@given(movement_files())
def test_movement_reader_returns_or_names_a_line(text):
    try:
        mv = nm.parse_movement(text, "m.scen")
    except Ns2FormatError as e:
        _one_line_naming(e, "m.scen", text)
        return
    assert mv.nodes >= 1 and len(mv.positions) == mv.nodes


# A 400-digit maxpkts_ (OverflowError) and a rate that underflows to 0 (ZeroDivisionError).
@example(CBR + "$c set maxpkts_ " + "9" * 400 + "\n")
@example(CBR + "$c set rate_ 5e-324\n$c set maxpkts_ 10\n")
@given(traffic_files())
def test_traffic_reader_returns_or_names_a_line(text):
    try:
        tr = nt.parse_traffic(text, "t.tcl")
        nt.hoplab_flows(tr, duration_s=10.0)
    except Ns2FormatError as e:
        _one_line_naming(e, "t.tcl", text)


BASE = 'name = "fuzz"\nduration_s = 10.0\n'
BLOBS = st.one_of(st.binary(max_size=200), st.just(b"\xff\xfe$node_(0) set X_ 1\n"),
                  st.just(b"$node_(0) set X_ 1\x00\n"))


# An infinite rate (was a JSON error against the output file) and 400 digits.
@example((POS + POS.replace("(0)", "(1)")).encode(), (CBR + "$c set rate_ 1e308G\n").encode())
@example((POS + POS.replace("(0)", "(1)")).encode(), (CBR + "$c set packetSize_ " + "9" * 400 + "\n").encode())
@given(st.one_of(movement_files().map(str.encode), BLOBS),
       st.one_of(st.none(), traffic_files().map(str.encode), BLOBS))
def test_cli_import_writes_a_valid_scenario_or_one_error_line(tmp_path_factory, movement, traffic):
    from click.testing import CliRunner

    from hoplab.cli import cli

    d = tmp_path_factory.mktemp("ns2fuzz")
    (d / "base.toml").write_text(BASE)
    (d / "m.scen").write_bytes(movement)
    out = d / "o.toml"
    args = ["movement", "import", str(d / "m.scen"), "--base", str(d / "base.toml"), "-o", str(out)]
    inputs = [str(d / "m.scen")]
    if traffic is not None:
        (d / "t.tcl").write_bytes(traffic)
        args += ["--traffic", str(d / "t.tcl")]
        inputs.append(str(d / "t.tcl"))
    r = CliRunner().invoke(cli, args)
    assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
    assert "Traceback" not in r.output and "internal error" not in r.output, r.output
    assert r.exit_code in (0, 2), (r.exit_code, r.output)
    if r.exit_code == 0:
        _core.check_scenario(out.read_text(), "toml")  # raises ScenarioError if the validator refuses it
        return
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoplab: error: "), r.stderr
    blamed = lines[0][len("hoplab: error: "):]
    assert any(blamed.startswith(p + ":") or blamed.startswith(p + " ") for p in inputs), blamed
    assert not out.exists()
