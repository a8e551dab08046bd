"""The experiment lab: designs, a resumable result store, execution backends.

    >>> from hoplab import lab
    >>> d = lab.Design.load("examples/designs/window_vs_hops.toml")
    >>> lab.run(d, store="out/lab", jobs=2)          # only what the store misses
    >>> df = lab.load("out/lab")                     # one row per run and flow

See docs/ARCHITECTURE.md ("The experiment lab") and README.md.
"""

from .design import Design, DesignError, Run, engine_version
from .execute import LabError
from .load import load, status
from .runner import Summary, run
from .store import Store, StoreError

__all__ = ["Design", "DesignError", "Run", "LabError", "Store", "StoreError", "Summary", "engine_version",
           "load", "run", "status"]
