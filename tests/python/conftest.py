"""Shared fixtures. These tests run against the real simulator: they check
properties (shapes, determinism, error reporting, file handling), not
particular numbers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

# A test run started in the background by a shell without job control (nohup,
# setsid, some CI runners) inherits SIGINT ignored, and so would every hoplab
# process the tests start and interrupt. With Python's handler installed here,
# children start with the default disposition (exec resets handlers).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# A short 2-hop chain: cheap, but with real contention (random backoff).
SMALL_TOML = """\
name = "small"
duration_s = 10.0
seed = 1

[topology]
kind = "chain"
nodes = 3
spacing_m = 200.0

[mac]
rts_threshold_bytes = 100

[tcp]
variant = "new_reno"
mss_bytes = 1460

[[flows]]
kind = "ftp"
src = 0
dst = 2
"""


# A 4-hop chain with RTS/CTS and one FTP flow, 6 s (about 5,000 trace rows):
# the trace, stream and pcap tests' scenario.
TRACE_CHAIN = """\
name = "tchain"
duration_s = 6.0
[topology]
kind = "chain"
nodes = 5
spacing_m = 200.0
[mac]
rts_threshold_bytes = 100
[[flows]]
kind = "ftp"
src = 0
dst = 4
"""


@pytest.fixture
def small_toml() -> str:
    return SMALL_TOML


@pytest.fixture
def small_dict() -> dict:
    import tomllib

    return tomllib.loads(SMALL_TOML)


def run_module(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`python -m hoplab ARGS` in a real subprocess."""
    env = dict(os.environ)
    env.setdefault("MPLCONFIGDIR", str(Path(cwd or ROOT) / ".mpl"))
    return subprocess.run([sys.executable, "-m", "hoplab", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=300)
