"""pcap captures from a run (issue 24 item 3): `[trace] formats = ["pcap"]`
writes channel.pcap, node-N.pcap or host-N.pcap into the result directory;
the manifest carries them and `Result.load` lists them; tcptrace's counts on
the hosts' captures are the flows table's (skipped, saying so, without
tcptrace)."""

from __future__ import annotations

import shutil
import struct
import subprocess

import pytest
from click.testing import CliRunner

import hoplab
from hoplab.cli import cli

from .conftest import TRACE_CHAIN


def _run(tmp_path, mode, formats='["pcap"]'):
    sc = tmp_path / "s.toml"
    sc.write_text(TRACE_CHAIN + f'[trace]\nformats = {formats}\npcap = "{mode}"\n')
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["run", str(sc), "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def test_channel_capture_is_a_pcap_in_the_result(tmp_path):
    out = _run(tmp_path, "channel")
    head = (out / "channel.pcap").read_bytes()[:24]
    magic, _, _, _, _, _, linktype = struct.unpack("<IHHiIII", head)
    assert (magic, linktype) == (0xA1B23C4D, 127)  # ns timestamps, radiotap
    assert list(hoplab.Result.load(out).trace_files) == ["channel.pcap"]


def test_pcapng_and_pcap_side_by_side(tmp_path):
    out = _run(tmp_path, "nodes", '["pcap", "pcapng"]')
    names = sorted(hoplab.Result.load(out).trace_files)
    assert names == [f"node-{n}.pcap" for n in range(5)] + ["nodes.pcapng"]
    # pcapng: a Section Header Block first.
    assert (out / "nodes.pcapng").read_bytes()[:4] == bytes.fromhex("0a0d0d0a")


@pytest.mark.parametrize("mode, stem", [("nodes", "node"), ("hosts", "host")])
def test_a_node_filter_writes_captures_of_those_nodes_only(tmp_path, mode, stem):
    """`[trace] nodes = [3, 1]`: node-1.pcap and node-3.pcap, no empty files for the rest."""
    sc = tmp_path / "s.toml"
    sc.write_text(TRACE_CHAIN + f'[trace]\nformats = ["pcap"]\npcap = "{mode}"\nnodes = [3, 1]\n')
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["run", str(sc), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.glob("*.pcap")) == [f"{stem}-1.pcap", f"{stem}-3.pcap"]
    assert sorted(hoplab.Result.load(out).trace_files) == [f"{stem}-1.pcap", f"{stem}-3.pcap"]
    assert all((out / f"{stem}-{n}.pcap").stat().st_size > 24 for n in (1, 3))  # packets past the header


def test_hosts_captures_are_listed_and_agree_with_tcptrace(tmp_path):
    out = _run(tmp_path, "hosts")
    res = hoplab.Result.load(out)
    assert sorted(res.trace_files) == [f"host-{n}.pcap" for n in range(5)]
    if shutil.which("tcptrace") is None:
        pytest.skip("tcptrace is not installed (apt-get install tcptrace)")
    flow = res.flows.iloc[0]

    def field(node, name):
        text = subprocess.run(["tcptrace", "-l", "-n", str(out / f"host-{node}.pcap")],
                              capture_output=True, text=True, check=True).stdout
        line = next(l for l in text.splitlines() if name in l)
        return int(line.split(name)[1].split()[0])

    assert field(0, "actual data pkts:") == flow.packets_sent
    assert field(0, "rexmt data pkts:") == flow.retransmissions
    assert field(4, "unique bytes sent:") == flow.bytes_delivered
