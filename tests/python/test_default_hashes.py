"""Default runs keep their event hashes: a new option or compat profile must
not move a run that does not ask for it. A change meant to move the model
regenerates the file (`python scripts/event_hashes.py --write
validation/default_hashes.tsv`) and says why in its commit."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_default_event_hashes_are_unchanged():
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "event_hashes.py"), "--check",
                        str(ROOT / "validation" / "default_hashes.tsv")], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
