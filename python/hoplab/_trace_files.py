"""The files a run streams while it goes (`[trace] formats`, issue 24):
their names, and how a `Result` carries them into its directory.

The engine writes them into the directory it is given (``trace_dir``) as
the run goes; `Result.save` then lists them in the manifest beside the
tables, linking (or copying) them in rather than writing them again, and
`Result.load` reads the ``trace`` table from a streamed ``trace.csv``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable

__all__ = ["FILE_OF_FORMAT", "STREAM_NAMES", "place"]

#: The file each format streams into (trace/open.rs names them).
FILE_OF_FORMAT = {"csv": "trace.csv", "anim": "anim.csv", "ns2": "trace.tr"}
#: Every streamed file name a result directory may hold.
STREAM_NAMES = frozenset(FILE_OF_FORMAT.values())


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
