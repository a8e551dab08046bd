"""ns-2 movement and connection files at the edges (issue 22): huge and
degenerate numbers are refused at their line with the schema's range, the
import never blames (or touches) its output file, `window_ 0` keeps ns-2's
meaning, and lines and words are split as Tcl splits them."""

from __future__ import annotations

import tomllib

import pytest
from click.testing import CliRunner

from hoplab.cli import cli
from hoplab.formats.ns2 import movement as nm, traffic as nt

BASE = 'name = "b"\nduration_s = 10.0\n'
MOVE = "$node_(0) set X_ 1.0\n$node_(0) set Y_ 1.0\n$node_(1) set X_ 100.0\n$node_(1) set Y_ 1.0\n"


def cbr(*sets: str) -> str:
    """A cbrgen CBR connection from node 0 to 1 with ``sets`` as its lines 6..."""
    return ("set udp_(0) [new Agent/UDP]\n$ns_ attach-agent $node_(0) $udp_(0)\n"
            "set null_(0) [new Agent/Null]\n$ns_ attach-agent $node_(1) $null_(0)\n"
            "set cbr_(0) [new Application/Traffic/CBR]\n"
            + "".join(f"$cbr_(0) set {s}\n" for s in sets)
            + "$cbr_(0) attach-agent $udp_(0)\n$ns_ connect $udp_(0) $null_(0)\n"
            '$ns_ at 1.0 "$cbr_(0) start"\n')


def tcp(*sets: str) -> str:
    return ("set tcp_(0) [$ns_ create-connection TCP $node_(0) TCPSink $node_(1) 0]\n"
            + "".join(f"$tcp_(0) set {s}\n" for s in sets)
            + "set ftp_(0) [$tcp_(0) attach-source FTP]\n" + '$ns_ at 1.0 "$ftp_(0) start"\n')


def import_(tmp_path, movement: str, traffic: str | None = None, base: str = BASE, out_text: str | None = None):
    """`hoplab movement import` of the texts; the result and the -o path."""
    (tmp_path / "m.scen").write_text(movement)
    (tmp_path / "base.toml").write_text(base)
    out = tmp_path / "o.toml"
    if out_text is not None:
        out.write_text(out_text)
    args = ["movement", "import", str(tmp_path / "m.scen"), "--base", str(tmp_path / "base.toml"), "-o", str(out)]
    if traffic is not None:
        (tmp_path / "t.tcl").write_text(traffic)
        args += ["--traffic", str(tmp_path / "t.tcl")]
    return CliRunner().invoke(cli, args), out


def one_error(r) -> str:
    assert r.exit_code == 2, (r.exit_code, r.output, r.exception)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoplab: error: "), r.stderr
    return lines[0][len("hoplab: error: "):]


# ------------------------------------------------------------ numbers
def test_a_nodes_header_of_5000_digits_is_a_one_line_error(tmp_path):
    # Was an internal error: int() of more than 4300 digits, outside the line's error handling.
    r, out = import_(tmp_path, "# nodes: " + "9" * 5000 + "\n" + MOVE)
    assert one_error(r).startswith(f"{tmp_path / 'm.scen'}:1: # nodes: '999")
    assert not out.exists()


def test_a_nodes_header_beyond_the_schemas_node_limit_names_its_range(tmp_path):
    r, _ = import_(tmp_path, "# nodes: 1000001\n" + MOVE)
    assert one_error(r) == (f"{tmp_path / 'm.scen'}:1: # nodes: 1000001 is outside [0, 999999] node "
                            "(mobility.legs[].node)")


@pytest.mark.parametrize("sets, problem", [
    # Was "flows[0].packet_size_bytes" against the start line (10), after a division by 0 in ns-2 terms.
    (["packetSize_ 0", "interval_ 0.1"], "packetSize_ 0 is outside [1, 65507] bytes (flows[].packet_size_bytes)"),
    # Was an internal error: ZeroDivisionError (the rate underflows to 0 kbit/s).
    (["rate_ 5e-324", "maxpkts_ 10"], "rate_ 5e-324 (0 kbit/s) is outside [0.001, 1e7] kbit/s (flows[].rate_kbps)"),
    # Were internal errors: OverflowError, int too large to convert to float.
    (["maxpkts_ " + "9" * 400], "maxpkts_ '9999999999999999999999999999999999999999...' is more than ns-2 holds"),
    (["packetSize_ " + "9" * 400, "interval_ 0.1"], "packetSize_ '9999999999999999999999999999999999999999...' "
                                                    "is outside [1, 65507] bytes"),
    # Were "o.toml: expected value at line 1 column 209": an infinity reached the JSON.
    (["rate_ 1e308G"], "rate_ 1e308G (inf kbit/s) is outside [0.001, 1e7] kbit/s (flows[].rate_kbps)"),
    (["interval_ 5e-324"], "interval_ 5e-324 (packetSize_ 210 x 8 / interval_ = inf kbit/s) is outside"),
    (["maxpkts_ 2147483648"], "maxpkts_ 2147483648 is more than ns-2 holds (a C int"),
])
def test_extreme_cbr_numbers_are_refused_at_their_line(tmp_path, sets, problem):
    r, out = import_(tmp_path, MOVE, cbr(*sets), out_text="kept\n")
    err = one_error(r)
    assert err.startswith(f"{tmp_path / 't.tcl'}:6: {problem}"), err
    assert out.read_text() == "kept\n"  # the output is neither blamed nor touched


@pytest.mark.parametrize("line, problem", [
    ('$ns_ at 1e400 "$cbr_(0) start"', "time: '1e400' is out of range"),
    ('$ns_ at 2e7 "$cbr_(0) start"', "time 2e7 is outside [0, 1e7] s (flows[].start_s)"),
    ('$ns_ at 1 "$cbr_(0) stop"', ""),
    ("$ns_ attach-agent $node_(" + "9" * 30 + ") $udp_(0)",
     "node 999999999999999999999999999999 is outside [0, 999999] node (flows[].src)"),
])
def test_extreme_times_and_nodes_are_refused_at_their_line(line, problem):
    text = cbr() + line + "\n"
    if not problem:  # a stop at the start: refused by the reader, at the stop's line
        with pytest.raises(nt.Ns2FormatError, match="not after its start"):
            nt.parse_traffic(text, "t.tcl")
        return
    with pytest.raises(nt.Ns2FormatError) as e:
        nt.parse_traffic(text, "t.tcl")
    assert e.value.line == 9 and problem in e.value.problem, str(e.value)


def test_huge_movement_numbers_are_refused_with_the_schema_range():
    with pytest.raises(nm.Ns2FormatError) as e:
        nm.parse_movement("$node_(0) set X_ 0\n$node_(0) set Y_ " + "9" * 5000 + "\n", "m.scen")
    assert e.value.line == 2 and e.value.problem == "y: '9999999999999999999999999999999999999999...' is out of range"
    with pytest.raises(nm.Ns2FormatError) as e:
        nm.parse_movement("$node_(0) set X_ 1.5e6\n$node_(0) set Y_ 1\n", "m.scen")
    assert e.value.line == 1 and e.value.problem == "x 1.5e6 is outside [-1000000, 1000000] m (topology.positions[][])"
    with pytest.raises(nm.Ns2FormatError) as e:
        nm.parse_movement(MOVE + '$ns_ at 1 "$node_(0) setdest 5 5 5e-324"\n', "m.scen")
    assert e.value.line == 5 and "speed 5e-324 is outside [1e-6, 1000] m/s" in e.value.problem


def test_an_import_error_in_no_flow_or_leg_names_the_inputs_not_the_output(tmp_path):
    # 300 TCP flows over 1e5 s is beyond the engine's event limit ("topology"): the
    # error was reported against o.toml, which was never written.
    conns = "".join(f"set t({i}) [$ns_ create-connection TCP $node_(0) TCPSink $node_(1) 0]\n"
                    f"set f({i}) [$t({i}) attach-source FTP]\n$ns_ at 1 \"$f({i}) start\"\n" for i in range(300))
    r, out = import_(tmp_path, MOVE, conns, base='name = "b"\nduration_s = 1e5\n', out_text="kept\n")
    err = one_error(r)
    assert err.startswith(f"{tmp_path / 'm.scen'} and {tmp_path / 't.tcl'} into {tmp_path / 'base.toml'}: "), err
    assert "o.toml" not in err and out.read_text() == "kept\n"


# ------------------------------------------------------------- window_
def test_window_0_is_refused_as_ns2_never_sends_with_it(tmp_path):
    # Was accepted as max_cwnd = 0, which hoplab reads as "unclamped".
    r, out = import_(tmp_path, MOVE, tcp("window_ 0"))
    err = one_error(r)
    assert err.startswith(f"{tmp_path / 't.tcl'}:2: window_ 0: ns-2 never sends"), err
    assert "tcp/tcp.cc" in err and not out.exists()


def test_a_fractional_window_clamps_to_its_integer_part_as_ns2_does():
    tr = nt.parse_traffic(tcp("window_ 7.9"), "t.tcl")
    assert tr.connections[0].tcp["max_cwnd"] == 7  # TcpAgent::window(): (int)wnd_


def test_maxpkts_0_sends_one_packet_as_ns2_does():
    # CBR_Traffic: the first packet goes at start, then ++seqno_ < maxpkts_ is tested.
    flows, _ = nt.hoplab_flows(nt.parse_traffic(cbr("maxpkts_ 0", "interval_ 0.5"), "t.tcl"), duration_s=10.0)
    assert flows[0]["max_packets"] == 1
    flows, _ = nt.hoplab_flows(nt.parse_traffic(cbr("maxpkts_ 1", "interval_ 0.5"), "t.tcl"), duration_s=10.0)
    assert flows[0]["max_packets"] == 1


# ----------------------------------------------------- Tcl's lines and words
@pytest.mark.parametrize("sep", ["\f", "\v", "\t", " \f "])
def test_form_feed_and_vertical_tab_separate_words_not_lines(sep):
    # Was refused: str.splitlines split the command at \f and \v.
    mv = nm.parse_movement(f"$node_(0) set X_{sep}3.0\n$node_(0){sep}set Y_ 4.0\n", "m.scen")
    assert mv.positions == [(3.0, 4.0)]


@pytest.mark.parametrize("sep", ["\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_unicode_line_separators_are_characters_and_line_numbers_stay_right(sep):
    # A separator inside a comment: Tcl sees one line, so the bad line is line 3 (was 4).
    text = f"# a comment{sep}still the comment\n$node_(0) set X_ 1\n$node_(0) set Y_ x\n"
    with pytest.raises(nm.Ns2FormatError) as e:
        nm.parse_movement(text, "m.scen")
    assert e.value.line == 3, str(e.value)
    # Inside a command it is part of a word (Tcl's white space is ASCII): not a number.
    with pytest.raises(nm.Ns2FormatError) as e:
        nm.parse_movement(f"$node_(0) set X_ 1{sep}\n$node_(0) set Y_ 1\n", "m.scen")
    assert e.value.line == 1 and "not a number" in e.value.problem


def test_a_no_break_space_is_not_white_space():
    # Was read as "$node_(0) set X_ 1.0": \s and str.split() take U+00A0 for a space.
    with pytest.raises(nm.Ns2FormatError) as e:
        nm.parse_movement("$node_(0) set X_\u00a01.0\n$node_(0) set Y_ 1.0\n", "m.scen")
    assert e.value.line == 1
    with pytest.raises(nt.Ns2FormatError) as e:
        nt.parse_traffic(cbr("packetSize_\u00a0512"), "t.tcl")
    assert e.value.line == 6


def test_semicolons_backslash_newlines_cr_and_ctrl_z_as_tcl_reads_a_sourced_file():
    text = ("$node_(0) set X_ 1.0; $node_(0) set Y_ 2.0\r\n"          # line 1: two commands, CRLF
            "# a comment \\\n  continued: $node_(9) set X_ oops\r"      # lines 2-3, CR ends line 3
            "$node_(1) set X_ \\\n    3.0\n"                           # lines 4-5: one command
            "$node_(1) set Y_ 4.0\n"                                    # line 6
            '$ns_ at 1.0 "$node_(0) setdest 5 5 1; $node_(1) setdest 6 6 1"\n'  # line 7: two legs
            "$god_ set-dist 0 1 1\x1a this is past the end of the script\n")
    mv = nm.parse_movement(text, "m.scen")
    assert mv.positions == [(1.0, 2.0), (3.0, 4.0)]
    assert [(g.node, g.line) for g in mv.legs] == [(0, 7), (1, 7)]
    with pytest.raises(nm.Ns2FormatError) as e:
        nm.parse_movement(text.replace("set Y_ 4.0", "set Y_ four"), "m.scen")
    assert e.value.line == 6


def test_the_example_files_still_import_the_same(tmp_path):
    from .conftest import EXAMPLES

    ns2 = EXAMPLES / "ns2"
    out = tmp_path / "o.toml"
    r = CliRunner().invoke(cli, ["movement", "import", str(ns2 / "scen-5n-1000x300.tcl"), "--traffic",
                                 str(ns2 / "tcp-5n.tcl"), "--base", str(ns2 / "base.toml"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    sc = tomllib.loads(out.read_text())
    assert [f["tcp"]["max_cwnd"] for f in sc["flows"]] == [32]  # cbrgen's window_ 32


def test_a_long_run_of_digits_that_is_no_number_is_refused_at_once():
    # Found by test_fuzz_ns2: `[0-9]+\.?[0-9]*` could split a run of digits anywhere, so
    # a 100,000-digit token ending in a letter took quadratic time (hours). In a child
    # process, so that the old behaviour fails the test instead of hanging it.
    import subprocess
    import sys

    code = ("from hoplab.formats.ns2 import movement as nm, traffic as nt\n"
            "for parse, text in ((nm.parse_movement, '$node_(0) set X_ ' + '1' * 100000 + 'x\\n'),\n"
            "                    (nt.parse_traffic, 'set c [new Application/Traffic/CBR]\\n'\n"
            "                                       '$c set interval_ ' + '1' * 100000 + 'x\\n')):\n"
            "    try:\n"
            "        parse(text, 'f')\n"
            "    except ValueError as e:\n"
            "        print(str(e))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    digits = "'" + "1" * 40 + "...'"
    assert r.stdout.splitlines() == [f"f:1: x: {digits} is not a number", f"f:2: interval_: {digits} is not a number"]
