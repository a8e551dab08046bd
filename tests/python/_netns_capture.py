"""Capture real Linux TCP between network namespaces (test_analyze.py's live
checks, and how tests/data/captures/ was made).

    python tests/python/_netns_capture.py OUT.pcap [BYTES]

`capture(out, nbytes)` makes three namespaces, sender - router - receiver,
joined by two veth pairs (names unique per call, so parallel runs do not
collide), on TEST-NET addresses (RFC 5737: routed nowhere). The router's
link to the receiver is a bottleneck with a short queue (tbf), so the
sender's TCP overflows it and retransmits, and its RTT grows with the queue;
`tcpdump -w` runs in the sender's namespace, ahead of the drops, so that the
capture holds every transmission. Python sockets send `nbytes` over one TCP
connection. The namespaces are always removed (they take the veth pairs with
them), even when a step fails. Needs root, `ip`, `tc` and `tcpdump`; this
machine's kernel has no netem, hence tbf rather than netem delay/loss.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

SENDER, ROUTER_S, ROUTER_R, RECEIVER, PORT = "192.0.2.1", "192.0.2.254", "198.51.100.254", "198.51.100.2", 5001

# Runs in the receiving namespace: accept one connection, read to EOF.
_RECEIVER = f"""
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("{RECEIVER}", {PORT})); s.listen(1)
print("ready", flush=True)
c, _ = s.accept()
n = 0
while True:
    b = c.recv(1 << 16)
    if not b:
        break
    n += len(b)
c.close(); print(n, flush=True)
"""

# Runs in the sending namespace: connect, send the bytes, close.
_SENDER = f"""
import socket, sys
n = int(sys.argv[1])
s = socket.create_connection(("{RECEIVER}", {PORT}), timeout=30)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, sys.argv[2].encode())
block = bytes(range(256)) * 256
while n > 0:
    k = min(n, len(block)); s.sendall(block[:k]); n -= k
s.shutdown(socket.SHUT_WR); s.recv(1); s.close()
"""


def missing_tools() -> str | None:
    """Why a live capture cannot be made here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    for tool in ("ip", "tc", "tcpdump"):
        if shutil.which(tool) is None:
            return f"needs {tool}"
    return None


def _run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True, timeout=30)


def capture(out: Path, nbytes: int = 1_500_000, *, rate: str = "20mbit", queue_bytes: int = 15_000,
            snaplen: int = 128, congestion: str = "cubic") -> int:
    """Write a capture of one `nbytes` transfer to `out`; return the bytes the receiver read."""
    tag = secrets.token_hex(3)
    ns_s, ns_m, ns_r = f"hla{tag}s", f"hla{tag}m", f"hla{tag}r"
    made: list[str] = []
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for ns in (ns_s, ns_m, ns_r):
            _run("ip", "netns", "add", ns)
            made.append(ns)
        links = ((ns_s, f"hla{tag}s0", SENDER, ns_m, f"hla{tag}m0", ROUTER_S),
                 (ns_m, f"hla{tag}m1", ROUTER_R, ns_r, f"hla{tag}r0", RECEIVER))
        for a_ns, a_dev, a_ip, b_ns, b_dev, b_ip in links:
            _run("ip", "link", "add", a_dev, "netns", a_ns, "type", "veth", "peer", "name", b_dev, "netns", b_ns)
            for ns, dev, ip in ((a_ns, a_dev, a_ip), (b_ns, b_dev, b_ip)):
                _run("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev)
                # Segments of one MSS on the wire, as a NIC sends them (no GSO
                # super-packets); an older ip or kernel without it still gives a
                # capture tcptrace and analyze read alike.
                subprocess.run(["ip", "-n", ns, "link", "set", dev, "gso_max_segs", "1"], capture_output=True,
                               timeout=30)
                _run("ip", "-n", ns, "link", "set", dev, "up")
        _run("ip", "-n", ns_s, "route", "add", "default", "via", ROUTER_S)
        _run("ip", "-n", ns_r, "route", "add", "default", "via", ROUTER_R)
        _run("ip", "netns", "exec", ns_m, "sysctl", "-qw", "net.ipv4.ip_forward=1")
        _run("ip", "netns", "exec", ns_m, "tc", "qdisc", "add", "dev", f"hla{tag}m1", "root", "tbf",
             "rate", rate, "burst", "4kb", "limit", str(queue_bytes))
        dump = subprocess.Popen(["ip", "netns", "exec", ns_s, "tcpdump", "-Z", "root", "-i", f"hla{tag}s0",
                                 "-s", str(snaplen), "-U", "--immediate-mode", "-w", str(out), "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        procs.append(dump)
        assert dump.stderr is not None
        dump.stderr.readline()  # "listening on ...": its socket is open
        recv = subprocess.Popen(["ip", "netns", "exec", ns_r, sys.executable, "-c", _RECEIVER],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        procs.append(recv)
        assert recv.stdout is not None
        recv.stdout.readline()  # "ready"
        subprocess.run(["ip", "netns", "exec", ns_s, sys.executable, "-c", _SENDER, str(nbytes), congestion],
                       check=True, capture_output=True, timeout=60)
        got = int(recv.communicate(timeout=30)[0].strip() or 0)
        time.sleep(0.5)  # the last ACKs reach the capture
        dump.send_signal(signal.SIGINT)  # tcpdump writes what it holds and exits
        dump.wait(timeout=10)
        return got
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)


if __name__ == "__main__":
    print(capture(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1_500_000))
