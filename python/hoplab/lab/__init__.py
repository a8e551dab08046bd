"""The experiment lab: designs, a resumable result store, execution backends.

    >>> from hoplab import lab
    >>> d = lab.Design.load("examples/designs/window_vs_hops.toml")
    >>> lab.run(d, store="out/lab", jobs=2)          # only what the store misses
    >>> df = lab.load("out/lab")                     # one row per run and flow

See docs/ARCHITECTURE.md ("The experiment lab") and docs/GUIDE.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["Design", "DesignError", "Run", "JobQueue", "LabError", "Store", "StoreError", "Summary", "engine_version",
           "load", "run", "status"]

# The store and the loaders import pandas (and Parquet through pyarrow);
# `hoplab design expand` needs only the design. Each name imports its module
# on first use (PEP 562).
_WHERE = {"Design": "design", "DesignError": "design", "Run": "design", "engine_version": "design",
          "LabError": "execute", "JobQueue": "jobqueue", "load": "load", "status": "load", "Summary": "runner", "run": "runner",
          "Store": "store", "StoreError": "store"}

if TYPE_CHECKING:
    from .design import Design, DesignError, Run, engine_version
    from .execute import LabError
    from .jobqueue import JobQueue
    from .load import load, status
    from .runner import Summary, run
    from .store import Store, StoreError


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_WHERE[name]}")
    # Bind every name the module gives: importing `hoplab.lab.load` also sets
    # the package attribute `load` to that submodule, which would otherwise
    # shadow the function `load` once `status` had been asked for first.
    for n, m in _WHERE.items():
        if m == _WHERE[name]:
            globals()[n] = getattr(module, n)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
