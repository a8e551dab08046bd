"""Receiver models end to end (seed 000 §4.1): with a two-segment receive
window the Linux receiver ACKs every data segment, ns-2's every second one."""

from __future__ import annotations

import pytest

import hoplab
from hoplab import scenario


def _acks_per_segment(**tcp) -> float:
    sc = scenario.chain(1, duration=10.0, tcp=dict(scenario.DEFAULT_TCP, **tcp), timeseries=False)
    sc["output"]["trace"] = True
    res = hoplab.run(sc, seed=1)
    t = res.trace
    acks = t[(t.layer == "MAC") & (t.event == "send") & (t.node == 1) & (t.frame == "DATA") & (t.packet_type == "ack")].uid.nunique()
    segs = int(res.flows.packets_received.iloc[0])
    assert segs > 1000
    return acks / segs


def test_linux_acks_every_segment_ns2_every_second_with_a_two_segment_window():
    assert _acks_per_segment(max_cwnd=2, clamp="receiver", receiver="linux") == pytest.approx(1.0, abs=0.002)
    assert _acks_per_segment(max_cwnd=2, clamp="receiver", receiver="ns2") == pytest.approx(0.5, abs=0.01)
    assert _acks_per_segment(max_cwnd=2, receiver="every") == pytest.approx(1.0, abs=0.002)


def test_contradictory_receiver_fields_are_refused_with_the_field_named():
    sc = scenario.chain(1, duration=1.0, tcp=dict(scenario.DEFAULT_TCP, receiver="linux", delayed_ack=False))
    with pytest.raises(hoplab.ScenarioError) as ei:
        hoplab.run(sc, seed=1)
    assert ei.value.field == "tcp.receiver"
    sc["tcp"] = dict(scenario.DEFAULT_TCP, clamp="window")
    with pytest.raises(hoplab.ScenarioError) as ei:
        hoplab.run(sc, seed=1)
    assert ei.value.field == "tcp.clamp"
