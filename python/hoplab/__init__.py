"""hoplab: a discrete-event simulator of TCP over multihop IEEE 802.11 ad hoc
networks (Rust engine, Python front end).

    >>> import hoplab
    >>> res = hoplab.run("examples/chain.toml", seed=3)
    >>> res.flows[["flow", "throughput_kbps", "retransmission_index"]]
"""

# `python -m hoplab` runs this package before hoplab.cli can take over
# Ctrl-C, so it imports nothing (a Ctrl-C during an import here would be a
# traceback): not the extension (loaded by the first name below that needs
# it), not typing (~8 ms), importlib or __future__ (annotations are quoted;
# type checkers treat any name TYPE_CHECKING as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["run", "Result", "ScenarioError", "SimulationError", "load_scenario", "scenario", "__version__"]
__all__ += ["ResultError"]
__all__ += ["view"]
__all__ += ["analyze"]

# `import hoplab` (and so every CLI command) must not pay for pandas: the
# names below import their module on first use (PEP 562).
_LAZY = {
    "ScenarioError": ("._core", "ScenarioError"),
    "SimulationError": ("._core", "SimulationError"),
    "__version__": ("._core", "__version__"),
    "run": ("._run", "run"),
    "Result": (".result", "Result"),
    "ResultError": (".manifest", "ResultError"),
    "load_scenario": (".scenario", "load_scenario"),
    "scenario": (".scenario", None),
    "view": ("._view", "view"),
    "analyze": (".capture", "analyze"),  # a real capture's flows as a run's (needs hoplab[capture])
}

if TYPE_CHECKING:  # for type checkers and IDEs: the same names, eagerly
    from . import scenario
    from ._core import ScenarioError, SimulationError
    from ._core import __version__ as __version__
    from ._run import run
    from .manifest import ResultError
    from .result import Result
    from .scenario import load_scenario
    from ._view import view
    from .capture import analyze


def __getattr__(name: str) -> "Any":
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module, attr = _LAZY[name]
    value = importlib.import_module(module, __name__)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value  # once: later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
