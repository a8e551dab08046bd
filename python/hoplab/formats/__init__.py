"""File formats of other simulators and tools, read and written by hoplab.

    hoplab.formats.ns2   ns-2 movement (setdest) and connection (cbrgen) files

The trace formats (ns-2 and others) will live beside them.
"""

__all__ = ["ns2"]
