"""The command table (after pip's `commands_dict`): name -> where the click
command lives and its summary for `hoplab --help`.

A command module is imported only when its command runs (or its own --help
is asked for). The summary is the first paragraph of the command's
docstring; tests/python/test_cli_package.py checks that they agree.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["COMMANDS", "CommandInfo"]


class CommandInfo(NamedTuple):
    module: str  # absolute module path
    attr: str  # the click command (or group) in it
    summary: str  # first paragraph of its docstring


COMMANDS: dict[str, CommandInfo] = {
    "analyze": CommandInfo(
        "hoplab.cli.analyze", "analyze_cmd",
        "Measure the TCP flows of a pcap or pcapng capture (Ethernet, raw IP, Linux cooked v1/v2, 802.11 with "
        "radiotap) as hoplab measures a simulated run's flows: throughput, retransmission index, loss rate, RTT "
        "mean and standard deviation, a cwnd estimate and time series (docs/GUIDE.md, \"Analysing real "
        "captures\")."),
    "bench": CommandInfo(
        "hoplab.cli.bench", "bench",
        "Time fixed scenarios, each in a fresh process (4-hop chain, 7x7 grid, 200 random nodes with static "
        "routing; the grid with DSR, the 200 nodes with AODV and with OLSR; seed 001's 150 mobile nodes and a "
        "1,000-node version with AODV and DSR) and report events, wall time, events/s and peak memory against "
        "the targets (routing: <= 3x the static run)."),
    "config": CommandInfo(
        "hoplab.cli.config", "config_cmd",
        "Print the scenario reference: every field's type, unit, default, valid range and source."),
    "crosscheck": CommandInfo(
        "hoplab.cli.crosscheck", "crosscheck_cmd",
        "Run a scenario (TOML, or an ns-2 script) in hoplab with compat = \"ns2\" and in ns-2.35 for each seed, "
        "and print per flow and in total: throughput, packets delivered, retransmissions, timeouts, routing "
        "packets and drops by reason, side by side with their spread over the seeds and the ratio."),
    "design": CommandInfo(
        "hoplab.cli.design", "design_group",
        "Experiment designs: factors, levels, replicas and run order (see docs/GUIDE.md)."),
    "emu": CommandInfo(
        "hoplab.cli.emu", "emu_cmd",
        "Run a scenario with real Linux TCP/IP stacks at the nodes its [emulation] table names (a network "
        "namespace and TUN device each), through the simulated channel in real time; `--replay DIR` re-runs a "
        "saved run, `cleanup` removes leftovers. Needs root or CAP_NET_ADMIN."),
    "example": CommandInfo(
        "hoplab.cli.example", "example_cmd",
        "List the packaged example scenarios, or print one (NAME) as TOML."),
    "import": CommandInfo(
        "hoplab.cli.import_cmd", "import_cmd",
        "Translate an ns-2 wireless script (SCRIPT.tcl, its arguments after `--`) into a hoplab scenario: "
        "readable TOML, each value with the script line it came from as a comment; `hoplab run` of it runs "
        "what `hoplab run SCRIPT.tcl` runs."),
    "lab": CommandInfo(
        "hoplab.cli.lab", "lab_group",
        "Run designs into a result store, see what is done, summarise and export results."),
    "movement": CommandInfo(
        "hoplab.cli.movement", "movement_group",
        "ns-2 movement (setdest) and connection (cbrgen) files: import them into a scenario, export the "
        "movement of a run."),
    "plot": CommandInfo(
        "hoplab.cli.plot", "plot_group",
        "Draw figures of results: PNG, SVG or PDF, chosen by the suffix of -o."),
    # The paper reproductions: a group of its own over the papers' registry.
    "reproduce": CommandInfo(
        "hoplab.papers.cli", "reproduce",
        "Reproduce a seed paper's experiment: `hoplab reproduce PAPER [OPTIONS]` (`hoplab reproduce PAPER "
        "--help` for its options)."),
    "run": CommandInfo(
        "hoplab.cli.run", "run_cmd",
        "Run one scenario file (TOML, or .json) or example:NAME (see `hoplab example`), print a summary "
        "and save the results."),
    "timeline": CommandInfo(
        "hoplab.cli.timeline", "timeline",
        "Print what happens around a route break: movement, declared link failures (false ones marked), "
        "route errors, discoveries, the first data over a new path with the outage, and the first ACK after "
        "it."),
    "validate": CommandInfo(
        "hoplab.cli.validate", "validate_cmd",
        "Check a scenario file without running it: `OK` with its name and node count (exit 0), or the "
        "one-line error (exit 2). Warns when a flow's ends are not connected at its start in a static "
        "topology."),
    "view": CommandInfo(
        "hoplab.cli.view", "view_cmd",
        "Write a self-contained web page (one HTML file, no network) that animates a run: nodes moving, each "
        "frame on the air with its decode and carrier-sense reach, flows' paths as they change, drops by cause, "
        "and per-flow throughput and cwnd; --serve serves it on localhost."),
}
