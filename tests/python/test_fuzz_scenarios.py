"""Fuzzing (issue 10 item 2): generated scenarios and `--set` overrides, each
run for at most 1 simulated second, must give a clean ScenarioError or a
finished run: never a PanicException or a SimulationError (an engine bug), a
hang (a run doing 20x the work the cost model estimated, or 60 s of wall time, is stopped through the
progress callback and reported) or, from the CLI, a traceback.

CI runs a modest number of examples (< 1 minute). The long run is
`scripts/fuzz.sh 30m` (HOPLAB_FUZZ=long: many examples, stopped by the
time limit); a failure prints the minimal scenario to add to
tests/python/reproducers.py.
"""

from __future__ import annotations

import copy
import json
import math
import os
import time

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import hoplab  # noqa: E402
from hoplab._scenario_json import scenario_json  # noqa: E402

from .reproducers import CORPUS  # noqa: E402

LONG = os.environ.get("HOPLAB_FUZZ") == "long"
settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))
settings.register_profile("long", max_examples=10_000_000, deadline=None,
                          suppress_health_check=list(HealthCheck))
settings.load_profile("long" if LONG else "ci")

#: Wall seconds a <= 1 s simulated run may take before it counts as a hang.

BASES: list[dict] = [
    {"name": "f-ftp", "duration_s": 0.5, "topology": {"kind": "chain", "nodes": 3, "spacing_m": 200.0},
     "flows": [{"kind": "ftp", "src": 0, "dst": 2}]},
    {"name": "f-cbr", "duration_s": 0.5, "topology": {"kind": "grid", "rows": 2, "cols": 2, "spacing_m": 200.0},
     "flows": [{"kind": "cbr", "src": 0, "dst": 3, "rate_kbps": 100.0}]},
] + [
    {"name": f"f-{p}", "duration_s": 0.5, "topology": {"kind": "random", "nodes": 6, "width_m": 500.0, "height_m": 300.0},
     "routing": {"protocol": p}, "flows": [{"kind": "ftp", "src": 0, "dst": 5}],
     "mobility": {"legs": [{"node": 1, "at_s": 0.1, "to": [10.0, 10.0], "speed_mps": 20.0}]}}
    for p in ("aodv", "dsr", "olsr", "dsdv")
] + [dict(sc, duration=min(sc["duration_s"], 0.5)) for sc in CORPUS.values()]

PATHS = [
    "mac.data_rate_mbps", "mac.basic_rate_mbps", "mac.rts_threshold", "mac.short_retry_limit", "mac.cw_min",
    "mac.cw_max", "mac.slot_us", "mac.sifs_us", "mac.queue_limit", "mac.preamble",
    "radio.tx_range_m", "radio.cs_range_m", "radio.interference_range_m", "radio.tx_power_w",
    "radio.rx_threshold_w", "radio.cs_threshold_w", "radio.capture_threshold_db", "radio.propagation",
    "radio.frequency_hz", "radio.antenna_height_m",
    "tcp.mss_bytes", "tcp.max_cwnd", "tcp.receive_window_bytes", "tcp.initial_cwnd", "tcp.delack_timeout_s", "tcp.min_rto_s",
    "tcp.initial_rto_s", "tcp.max_rto_s", "tcp.variant", "tcp.few_alpha", "tcp.vegas_alpha", "tcp.probe_interval_s",
    "tcp.receiver", "tcp.ecn", "tcp.elfn", "tcp.adtcp", "tcp.rto_estimator", "tcp.tick_s",
    "topology.nodes", "topology.spacing_m", "topology.width_m", "topology.rows", "topology.cols",
    "flows.0.src", "flows.0.dst", "flows.0.start_s", "flows.0.stop_s", "flows.0.bytes", "flows.0.rate_kbps",
    "flows.0.packet_size_bytes", "mobility.step_m", "link.arp", "link.arp_queue_limit", "lred.enabled",
    "lred.max_p", "output.trace", "seed", "name", "duration_s",
    "trace.formats", "trace.nodes", "trace.layers", "trace.events", "trace.start_s", "trace.end_s", "trace.pcap",
    "routing.aodv.hello_interval_s", "routing.olsr.tc_interval_s", "routing.dsdv.periodic_update_s",
    "routing.dsr.request_period_s", "routing.aodv.active_route_timeout_s", "routing.preset",
    # deprecated names (aliases of duration_s, tcp.mss_bytes): accepted alone, refused beside the new one
    "duration", "tcp.mss",
]

EXTREME = st.sampled_from([0, -1, 1, 2, 3, 7, 1e-12, 1e-9, 1e-7, 0.5, 1e3, 1e6, 1e9, 1e12, 1e300,
                           2**31 - 1, 2**32 - 1, 2**63, 2**64 - 1, 2**64, -1e-9])
VALUE = st.one_of(
    EXTREME,
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.integers(min_value=-(2**65), max_value=2**65),
    st.booleans(),
    st.none(),
    st.sampled_from(["", "aodv", "olsr", "sack", "ns2", "long", "flat", "x" * 300, "1979-05-27"]),
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.sampled_from(["a", "kind", "nodes"]), st.integers(0, 5), max_size=2),
    # what JSON cannot carry, and numpy's numbers (issue 22): a ScenarioError naming the field, or a number
    st.sampled_from([math.nan, math.inf, -math.inf]),
    st.sampled_from(["int64", "uint32", "float64", "float32", "bool_"]).flatmap(
        lambda t: st.integers(0, 10).map(lambda i: _numpy(t, i))),
)


def _numpy(type_name: str, i: int):
    np = pytest.importorskip("numpy")
    return getattr(np, type_name)(i)


def _set(d: dict, path: str, value) -> None:
    keys = path.split(".")
    cur = d
    for k in keys[:-1]:
        if k.isdigit():
            if not isinstance(cur, list) or int(k) >= len(cur):
                return
            cur = cur[int(k)]
        else:
            nxt = cur.get(k)
            if not isinstance(nxt, (dict, list)):
                nxt = cur[k] = {}
            cur = nxt
    if isinstance(cur, dict):
        cur[keys[-1]] = value


@st.composite
def scenarios(draw) -> dict:
    sc = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(1, 4))):
        _set(sc, draw(st.sampled_from(PATHS)), draw(VALUE))
    # Bounded: never more than 1 simulated second (a long valid run is no bug).
    d = sc.get("duration_s")
    if isinstance(d, (int, float)) and not isinstance(d, bool) and math.isfinite(d) and d > 1.0:
        sc["duration_s"] = 1.0
    return sc


class Hang(Exception):
    pass


#: A run is a hang when it does far more work than the cost model admitted
#: (the model's calibration is within ~10x), or when it stops progressing
#: for this long; wall time alone misjudges a loaded machine (a 693-node
#: DSR run took 10 s at nice 19 beside a build, 3.7 s idle).
WORK_FACTOR = 20.0
MIN_EVENTS = 1e6
STALL_S = 60.0


def run_bounded(sc: dict):
    t0 = time.monotonic()
    try:
        estimate = hoplab._core.estimate_cost_json(scenario_json(sc))["events"]
    except (hoplab.ScenarioError, ValueError, TypeError):
        estimate = 0.0
    budget = WORK_FACTOR * max(estimate, MIN_EVENTS)

    def watchdog(sim_s, dur_s, events, rate):
        if events > budget or time.monotonic() - t0 > STALL_S:
            raise Hang(f"still running after {time.monotonic() - t0:.1f} s at {sim_s:.6f}/{dur_s} s simulated, "
                       f"{events} events (budget {budget:.3g}): {json.dumps(sc, default=repr)}")

    return hoplab.run(sc, progress=watchdog)


@given(scenarios())
def test_generated_scenarios_fail_cleanly_or_run(sc):
    try:
        res = run_bounded(sc)
    except hoplab.ScenarioError as e:
        # One line naming the field: a dict reaches the engine as hoplab's own JSON.
        assert "\n" not in str(e) and e.field, repr(e)
        return
    assert res.info["duration_s"] == sc["duration_s"]


OVERRIDE_KEYS = st.sampled_from(PATHS + ["flows[0].dst", "nonexistent.key", "", "tcp", "mac..x"])
OVERRIDE_VALUES = st.one_of(
    EXTREME.map(str),
    st.sampled_from(["", "true", "[1, 2]", "{a = 1}", "1979-05-27", "\"quoted\"", "nan", "inf", "-inf",
                     "1e999", "=", "0x10", "'''", "\\", "[[", "\u00e9"]),
    st.text(max_size=12),
)


@given(st.lists(st.tuples(OVERRIDE_KEYS, OVERRIDE_VALUES), min_size=1, max_size=3))
def test_cli_overrides_give_one_line_or_a_run(tmp_path_factory, sets):
    from click.testing import CliRunner

    from hoplab.cli import cli

    p = tmp_path_factory.mktemp("fuzz") / "base.json"
    p.write_text(json.dumps(BASES[0]))
    args = ["run", str(p), "--no-save", "--set", "duration_s=0.2"]
    for k, v in sets:
        if k == "duration_s":
            continue
        args += ["--set", f"{k}={v}"]
    r = CliRunner().invoke(cli, args)
    assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
    assert "Traceback" not in r.output, args
    assert r.exit_code in (0, 2), (args, r.exit_code, r.output)
    if r.exit_code == 2:
        errs = [ln for ln in r.output.splitlines() if ln.startswith("hoplab: error:")]
        assert len(errs) == 1, (args, r.output)
