"""The files a run streams while it goes (`[trace] formats`, issue 24):
their names, and how a `Result` carries them into its directory.

The engine writes them into the directory it is given (``trace_dir``) as
the run goes; `Result.save` then lists them in the manifest beside the
tables, linking (or copying) them in rather than writing them again, and
`Result.load` reads the ``trace`` table from a streamed ``trace.csv``.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Callable

__all__ = ["FILE_OF_FORMAT", "STREAM_NAMES", "is_stream_name", "place"]

#: The file each format streams into (trace/open.rs names them).
FILE_OF_FORMAT = {"csv": "trace.csv", "anim": "anim.csv", "ns2": "trace.tr"}
#: Every streamed file name a result directory may hold, but the per-node
#: captures (`is_stream_name`).
STREAM_NAMES = frozenset(FILE_OF_FORMAT.values()) | {"channel.pcap", "channel.pcapng", "nodes.pcapng", "hosts.pcapng"}
#: `[trace] pcap = "nodes" | "hosts"`: a capture per node (trace/pcap/).
_NODE_CAPTURE = re.compile(r"(node|host)-[0-9]+\.pcap")


def is_stream_name(name: str) -> bool:
    """Whether ``name`` is a file a run streams (a trace or a capture)."""
    return name in STREAM_NAMES or _NODE_CAPTURE.fullmatch(name) is not None


def place(src: Path) -> Callable[[Path], None]:
    """A manifest writer that puts the streamed file ``src`` at its path:
    a hard link where the file system allows (no copy of a large trace),
    else a copy. ``src`` is left where it is."""

    def write(dst: Path) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copyfile(src, dst)

    return write
