"""ns-2's scenario files: movement files (CMU `setdest`) and connection
files (`cbrgen.tcl`), read into hoplab scenarios and written from runs.

    from hoplab.formats.ns2 import read_movement, merge_movement, read_traffic
    hoplab.formats.ns2.movement   read_movement, merge_movement, movement_frame, movement_of,
                                  format_movement, write_movement
    hoplab.formats.ns2.traffic    read_traffic, hoplab_flows, merge_traffic, format_traffic,
                                  write_traffic

A malformed line raises `Ns2FormatError` (a ValueError) naming the file and
line. The modules are imported on first use (movement imports pandas).
"""

from __future__ import annotations

import importlib
from typing import Any

from ._text import Ns2FormatError

__all__ = ["Ns2FormatError", "movement", "traffic", "read_movement", "parse_movement", "merge_movement",
           "movement_frame", "movement_of", "format_movement", "write_movement", "read_traffic", "parse_traffic",
           "hoplab_flows", "merge_traffic", "format_traffic", "write_traffic"]

_WHERE = {name: "movement" for name in ("read_movement", "parse_movement", "merge_movement", "movement_frame",
                                        "movement_of", "format_movement", "write_movement")}
_WHERE.update({name: "traffic" for name in ("read_traffic", "parse_traffic", "hoplab_flows", "merge_traffic",
                                            "format_traffic", "write_traffic")})


def __getattr__(name: str) -> Any:  # PEP 562: import a module when first used
    if name in ("movement", "traffic"):
        return importlib.import_module(f"{__name__}.{name}")
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
