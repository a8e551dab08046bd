"""Fuzzing `hoplab analyze`: captures built from the committed Linux capture
with their container, byte order, link type, timestamps (out of order, far
apart, beyond the pcap fraction's range), snap length and original lengths
drawn at random, then cut short or with bytes overwritten. Whatever the
file, `analyze` gives a result or one of its one-line errors naming the
file (CaptureError, TooManyIntervals), never another exception; a result's
flows hold no more bytes than the records say the packets had; and the
command exits 0 or 2 with one line per error or warning.

CI runs a few examples (the "ci" profile of test_fuzz_scenarios); the long
run is HOPLAB_FUZZ=long (`scripts/fuzz.sh`).
"""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
pytest.importorskip("dpkt")
from click.testing import CliRunner  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hoplab.capture import CaptureError, TooManyIntervals, analyze  # noqa: E402
from hoplab.capture.read import records  # noqa: E402
from hoplab.cli import cli  # noqa: E402

from .test_analyze import LINUX, _radiotap, _sll2  # noqa: E402
from .test_fuzz_scenarios import LONG  # noqa: E402,F401 - registers and loads the ci/long profiles

FRAMES = [(r.time_ns, r.data, r.orig_len) for r in records(LINUX)][:40]
#: Link types: those read (their frames converted or not: a wrong link type
#: is a case too) and some that are not.
LINKTYPES = [1, 101, 12, 14, 228, 229, 113, 276, 105, 127, 0, 147, 65535]
CONVERT = {"ethernet": lambda f: f, "raw": lambda f: [(t, d[14:], o - 14) for t, d, o in f],
           "sll2": _sll2, "radiotap": _radiotap}


def _pcap(frames, linktype: int, order: str, nano: bool) -> bytes:
    out = [struct.pack(order + "IHHiIII", 0xA1B23C4D if nano else 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype)]
    for (sec, frac), data, orig in frames:
        out.append(struct.pack(order + "IIII", sec, frac, len(data), orig) + data)
    return b"".join(out)


def _pcapng(frames, linktype: int, order: str, tsresol: int) -> bytes:
    def block(btype: int, body: bytes) -> bytes:
        body += b"\0" * (-len(body) % 4)
        return struct.pack(order + "II", btype, 12 + len(body)) + body + struct.pack(order + "I", 12 + len(body))

    out = [block(0x0A0D0D0A, struct.pack(order + "IHHq", 0x1A2B3C4D, 1, 0, -1)),
           block(1, struct.pack(order + "HHI", linktype, 0, 65535) + struct.pack(order + "HHB3x", 9, 1, tsresol)
                 + b"\0" * 4)]
    for ticks, data, orig in frames:
        out.append(block(6, struct.pack(order + "IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, len(data), orig) + data))
    return b"".join(out)


#: The link type a converted frame list really has, per conversion.
NATIVE = {"ethernet": [1], "raw": [101, 12, 14, 228], "sll2": [276], "radiotap": [127]}


@st.composite
def _times(draw, n: int, first: int) -> list[int]:
    """n record times: in order, stepping back now and then, or anywhere in 64 bits."""
    mode = draw(st.sampled_from(["in order", "steps back", "anywhere"]))
    if mode == "anywhere":  # years apart, out of order, beyond a pcap's 32-bit seconds
        return draw(st.lists(st.integers(0, 2**64 - 1), min_size=n, max_size=n))
    steps = draw(st.lists(st.integers(-2_000_000_000 if mode == "steps back" else 0, 2_000_000_000),
                          min_size=n, max_size=n))
    out, t = [], first
    for step in steps:
        t = max(0, t + step)
        out.append(t)
    return out


@st.composite
def captures(draw):
    """A capture's bytes: frames of the committed capture, converted to a link
    type (the file names it, or another: a wrong link type is a case too),
    with drawn times and snap lengths, in pcap or pcapng of either byte order;
    then, in about half of them, one kind of damage."""
    n = draw(st.integers(0, len(FRAMES)))
    kind = draw(st.sampled_from(sorted(CONVERT)))
    frames = CONVERT[kind](FRAMES[:n])
    linktype = draw(st.one_of(st.sampled_from(NATIVE[kind]), st.sampled_from(LINKTYPES)))
    times = draw(_times(len(frames), FRAMES[0][0]))
    snap = draw(st.one_of(st.none(), st.integers(0, 120)))  # the snap length (None: whole frames)
    built = [(t, d if snap is None else d[:snap], o) for t, (_, d, o) in zip(times, frames)]
    damage = draw(st.sampled_from(["none", "none", "none", "orig", "flip", "cut", "frac"]))
    if damage == "orig" and built:  # one record's original length, anything in 32 bits
        k = draw(st.integers(0, len(built) - 1))
        t, d, _ = built[k]
        built[k] = (t, d, draw(st.one_of(st.sampled_from([0, 1, 1 << 20, (1 << 20) + 1, 2**32 - 1]),
                                         st.integers(0, 2**32 - 1))))
    container = draw(st.sampled_from(["pcap", "pcapng"]))
    order = draw(st.sampled_from(["<", ">"]))
    if container == "pcap":
        nano = draw(st.booleans())
        unit = 1 if nano else 1000
        stamped = [(((t // 10**9) % 2**32, (t % 10**9) // unit), d, o) for t, d, o in built]
        if damage == "frac" and stamped:  # a fraction out of its range (pcap draft §5)
            (sec, _), d, o = stamped[-1]
            stamped[-1] = ((sec, 10**9 // unit), d, o)
        data = _pcap(stamped, linktype, order, nano)
    else:
        tsresol = draw(st.sampled_from([9, 6, 0x80 | 30, 3]))
        data = _pcapng([(t % 2**64, d, o) for t, d, o in built], linktype, order, tsresol)
    blob = bytearray(data)
    if damage == "flip" and blob:
        for pos, val in draw(st.lists(st.tuples(st.integers(0, len(blob) - 1), st.integers(0, 255)),
                                      min_size=1, max_size=4)):
            blob[pos] = val
    if damage == "cut":
        blob = blob[:draw(st.integers(0, len(blob)))]
    return bytes(blob)


INTERVALS = st.sampled_from([1.0, 1.0, 0.001, 1e-6, 3600.0])


@given(data=captures(), interval=INTERVALS)
def test_any_capture_gives_a_result_or_one_line_naming_the_file(data, interval):
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "fuzz.cap"
        p.write_bytes(data)
        try:
            r = analyze(p, interval_s=interval)
        except (CaptureError, TooManyIntervals) as e:
            assert str(e).startswith(f"{p}: ") and "\n" not in str(e), str(e)
            code, err = _cli(p, interval)
            assert code == 2 and err == [f"hoplab: error: {e.cli_text() if isinstance(e, TooManyIntervals) else e}"]
            return
        held = sum(rec.orig_len for rec in records(p))  # the bytes the packets had on the link
        assert r.flows.unique_bytes.sum() <= held
        assert (r.flows.packets_sent <= r.info["tcp_packets"]).all()
        assert r.info["duration_s"] >= 0 and (r.flows.start_s >= 0).all() and (r.flows.end_s >= r.flows.start_s).all()
        code, err = _cli(p, interval)
        assert code == 0 and err == [f"hoplab: warning: {w}" for w in r.info.get("warnings", [])]


def _cli(p: Path, interval: float) -> tuple[int, list[str]]:
    res = CliRunner().invoke(cli, ["analyze", str(p), "--interval", repr(interval)])
    if res.exit_code == 130:  # fuzz.sh's SIGINT at the end of its share reached the command: a stop
        raise KeyboardInterrupt
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.exit_code, res.stderr.splitlines()
