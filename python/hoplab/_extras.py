"""Optional dependencies, installed by extra (pyproject.toml): the core
(run, results, the lab store) needs none of them.

    pip install 'hoplab[stats]'   scipy, statsmodels, scikit-posthocs (hoplab.stats, seed 004)
    pip install 'hoplab[plot]'    matplotlib, scipy (hoplab.plot; sweep's t intervals use scipy)
    pip install 'hoplab[dask]'    dask.distributed, dask-jobqueue (`lab run --dask`)
    pip install 'hoplab[capture]' dpkt (hoplab.analyze, `hoplab analyze`: real captures)
    pip install 'hoplab[all]'     all of them

`require(extra, what)` checks that an extra's modules are installed without
importing them and raises `MissingExtra` (an ImportError) whose text is one
line naming what to install; the CLI prints it as `hoplab: error: ...`.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Iterable

__all__ = ["EXTRAS", "MissingExtra", "extra_of", "missing", "require"]

#: The importable modules of each extra, in pyproject.toml's order.
EXTRAS: dict[str, tuple[str, ...]] = {
    "stats": ("scipy", "statsmodels", "scikit_posthocs"),
    "plot": ("matplotlib", "scipy"),
    "dask": ("dask", "distributed", "dask_jobqueue"),
    "capture": ("dpkt",),
}


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message says which extra to install."""


def _installed(module: str) -> bool:
    if module in sys.modules:  # imported already (None: blocked, as by tests)
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def extra_of(module: str | None) -> str | None:
    """The extra that installs `module` (a dotted name: its top package
    counts), or None for a module no extra provides."""
    top = (module or "").split(".")[0]
    return next((extra for extra, modules in EXTRAS.items() if top in modules), None)


def missing(extra: str, modules: Iterable[str] | None = None) -> list[str]:
    """The modules of `extra` (or those of `modules`) that are not installed."""
    return [m for m in (EXTRAS[extra] if modules is None else modules) if not _installed(m)]


def require(extra: str, what: str, modules: Iterable[str] | None = None) -> None:
    """Raise MissingExtra unless every module of `extra` is installed (or,
    given `modules`, those of them that `what` needs)."""
    absent = missing(extra, modules)
    if absent:
        names = ", ".join(m.replace("_", "-") for m in absent)
        raise MissingExtra(f"{what!r} needs {names}: pip install 'hoplab[{extra}]'", name=absent[0])
