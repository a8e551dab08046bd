"""What the ns-2 script tests share: where ns-2's examples are, skips when
ns-2 or its examples are not installed, a copy of the examples as ns-2
users run them, and the command line."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "ns2_scripts"
EXAMPLES = Path("/usr/share/doc/ns2/examples/tcl")
needs_examples = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="ns2-examples is not installed "
                                    "(apt-get install ns2-examples)")
needs_ns = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed (apt-get install ns2)")


def copy_examples(root: Path) -> Path:
    """ns-2.35's tcl/ex, tcl/test and tcl/mobility under ``root``, the scene
    files gunzipped (as the suite's test-all scripts do)."""
    for sub in ("ex", "test", "mobility"):
        shutil.copytree(EXAMPLES / sub, root / sub)
    for gz in (root / "mobility" / "scene").glob("*.gz"):
        gz.with_suffix("").write_bytes(gzip.decompress(gz.read_bytes()))
    return root


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hoplab", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)
