"""hoplab: a discrete-event simulator of TCP over multihop IEEE 802.11 ad hoc
networks (Rust engine, Python front end).

    >>> import hoplab
    >>> res = hoplab.run("examples/chain.toml", seed=3)
    >>> res.flows[["flow", "throughput_kbps", "retransmission_index"]]
"""

from . import scenario
from ._core import ScenarioError, SimulationError
from ._core import __version__ as __version__
from ._run import run
from .manifest import ResultError
from .result import Result
from .scenario import load_scenario

__all__ = ["run", "Result", "ScenarioError", "SimulationError", "load_scenario", "scenario", "__version__"]
__all__ += ["ResultError"]
